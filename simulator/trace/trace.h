// The Trace: what every rank of a training job does in one iteration, as programs of operations with
// explicit dependencies and a stream per operation, so that overlap of compute and communication is explicit.
// Ranks that run the same program share one copy of it: a 16k-rank trace holds one program, not 16k.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/dtype.h"

namespace simtrain::trace {

enum class OpType : std::uint8_t { Compute, Collective, Send, Recv };

// What a compute kernel does; the cost model picks its efficiency and measured table by this.
enum class ComputeKind : std::uint8_t {
  Gemm,  // shape: {m, n, k}
  Conv,  // shape: {n, c, h, w, k, r, s, stride, pad}
  BatchNorm,
  LayerNorm,
  Pool,
  Activation,
  Softmax,
  Attention,  // fused scaled-dot-product attention; shape: {batch, heads, seq, head_dim}
  Elementwise,
  Embedding,
  Optimizer,
  Other,
  // Work of the host thread that launches the kernels (Python, PyTorch's dispatcher, the launch call), as an
  // imported trace records it: a kernel cannot start before the host op that launches it has ended, so a
  // step whose host cannot keep up is host-bound. Scaled by the host's speed, never by the GPU's; the
  // engine counts it as host time, not GPU compute.
  Host,
};

// Which pass of training a compute op belongs to; measured tables are keyed by it.
enum class Pass : std::uint8_t { Forward, BackwardData, BackwardWeight, Update, Other };

// Whose kernels compute an attention, since implementations of the same algorithm run at different rates.
enum class AttentionKernel : std::uint8_t {
  // The fused attention Transformer Engine and PyTorch's SDPA choose for the GPU: the profile's `attention`
  // (cuDNN's from Hopper on; FlashAttention-2's below it, so there `attention` is its figure).
  Fused,
  // The flash-attn package's FlashAttention-2 (PyTorch SDPA's flash backend too): `attention_flash2`.
  FlashAttention2,
  // FlashAttention's Triton port built by Triton's pre-MLIR compiler (llm-foundry's attn_impl triton, as its
  // MPT benchmarks ran): a share of FlashAttention-2's rate, smaller in the backward pass
  // (cost/compute_cost.cc).
  Triton
};

// SendRecv is nccl-tests' sendrecv: every rank sends its buffer to the next rank of the communicator and
// receives the previous rank's at the same time (one ncclSend and one ncclRecv in a group), a ring shift.
enum class CollectiveKind : std::uint8_t {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Broadcast,
  Reduce,
  SendRecv
};

// A GPU kernel. Its duration comes from `duration_s` when the trace was measured (>= 0), otherwise the cost
// model derives it from kind, shape, dtype, FLOPs and bytes.
struct ComputeSpec {
  ComputeKind kind = ComputeKind::Other;
  Pass pass = Pass::Other;
  DType dtype = DType::FP32;
  double flops = 0;  // floating-point operations (a multiply-add counts 2)
  double bytes = 0;  // bytes moved to and from device memory
  std::vector<std::int64_t> shape;
  double duration_s = -1;  // measured duration, or -1
  // A memory-bound kernel that PyTorch runs on its unvectorized elementwise path: strided or broadcast
  // operands (a transposed view, a bias along rows) or operands of different dtypes (an fp16 gradient cast
  // to fp32, an fp32 + fp16 residual add). It moves its bytes at the profile's memory_bound_unvectorized.
  bool unvectorized = false;
  // A flash-attention kernel: the key tiles of 128 each query tile visits, on average (a causal mask over
  // t tiles: (t + 1) / 2). Each query tile's CTA pays a fixed cost besides its key loop, so few tiles run at
  // a lower rate (the profile's attention_fixed_tiles). 0 = not such a kernel, or not known.
  double kv_tiles = 0;
  // An attention kernel's implementation.
  AttentionKernel attention_kernel = AttentionKernel::Fused;
  // An FP8 GEMM that promotes its partial sums to fp32 on the CUDA cores as it goes (cuBLASLt's FAST_ACCUM
  // off), as Transformer Engine runs the data- and weight-gradient GEMMs of its FP8 recipes and every GEMM
  // of the blockwise one: on Hopper it runs at the profile's gemm_fp8_split_accumulator of the FP8 rate.
  bool split_accumulator = false;
  // A copy between device and host memory (activation offloading): its bytes cross the host link (PCIe, or
  // NVLink-C2C to a Grace CPU), not HBM, by the copy engines, not the SMs.
  bool host_copy = false;

  friend bool operator==(const ComputeSpec&, const ComputeSpec&) = default;
};

// How a MoE token dispatch or combine (an all-to-all) is routed when its dispatcher sends each token once
// to every node that holds one of its experts and fans it out over NVLink there (DeepEP's and HybridEP's
// hierarchical kernels, Megatron's flex dispatcher), where NCCL's all-to-all sends it once per chosen expert:
// every token picks `top_k` of `experts` routed experts spread evenly over the communicator's ranks.
// top_k 0: a plain all-to-all. `row_bytes`, a token row's bytes (hidden x element size), lets the
// dispatcher's cost per row be priced (calibration::Efficiencies::moe_flex_dispatch_row_s); 0: unknown.
struct NodeDedupRouting {
  std::uint16_t top_k = 0;
  std::uint32_t experts = 0;
  std::uint32_t row_bytes = 0;
  // Across nodes the NVLink fan-out follows the network transfer instead of overlapping it (HybridEP's
  // kernels; DeepEP's overlap them): the collective takes the sum of the two phases.
  bool phases_in_series = false;

  friend bool operator==(const NodeDedupRouting&, const NodeDedupRouting&) = default;
};

// A collective over the communicator that `group` assigns to the executing rank.
struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::AllReduce;
  DType dtype = DType::FP32;
  double bytes = 0;         // the buffer size as nccl-tests counts it (per rank input for all-reduce)
  std::uint16_t group = 0;  // index into Trace::groups
  NodeDedupRouting node_dedup{};  // all-to-all only

  friend bool operator==(const CollectiveSpec&, const CollectiveSpec&) = default;
};

// A point-to-point transfer to (Send) or from (Recv) the rank `peer_offset` positions away from the
// executing rank inside its communicator of `group` (wrapping around), e.g. +1 = next pipeline stage.
struct P2PSpec {
  std::uint16_t group = 0;
  std::int32_t peer_offset = 1;
  double bytes = 0;
  std::int32_t tag = 0;

  friend bool operator==(const P2PSpec&, const P2PSpec&) = default;
};

// One operation of a program. It starts when the previous op on the same stream and all `deps` have ended.
struct Op {
  std::string name;
  OpType type = OpType::Compute;
  std::uint8_t stream = 0;          // index into Program::streams
  std::vector<std::uint32_t> deps;  // indices of earlier ops of the same program
  ComputeSpec compute;              // when type == Compute
  CollectiveSpec collective;        // when type == Collective
  P2PSpec p2p;                      // when type == Send or Recv

  friend bool operator==(const Op&, const Op&) = default;
};

// The operations one or more ranks execute, in issue order per stream.
struct Program {
  std::string name;
  std::vector<std::string> streams;  // e.g. {"compute", "comm"}
  std::vector<Op> ops;

  friend bool operator==(const Program&, const Program&) = default;
};

// Appends `op` to `program` and returns its index, which later ops name in their deps. Throws Error when the
// program would exceed kMaxOpsPerProgram, before it grows past what one process can simulate.
std::uint32_t append(Program& program, Op op);

// A family of communicators that partitions (some of) the ranks, e.g. all data-parallel groups.
// A collective op names a group; each rank uses the communicator of that group that contains it.
struct CommunicatorGroup {
  std::string name;
  std::vector<std::vector<int>> communicators;  // each lists world ranks in communicator order

  friend bool operator==(const CommunicatorGroup&, const CommunicatorGroup&) = default;
};

// Facts about the workload the trace came from, used for throughput and MFU.
struct TraceMetadata {
  std::string model;                     // e.g. "resnet50"
  std::string generator;                 // e.g. "simtrain workload ddp" or "kineto import"
  std::string parallelism;               // e.g. "ddp"
  double samples_per_iteration = 0;      // global batch
  double tokens_per_iteration = 0;       // 0 when the model does not work on tokens
  double model_flops_per_iteration = 0;  // forward + backward FLOPs of the whole job (no recompute)
  double peak_memory_bytes = 0;          // per GPU, 0 when unknown
  // What PyTorch's caching allocator would report for one GPU (torch.cuda.max_memory_allocated and
  // max_memory_reserved); 0 when unknown. peak_memory_bytes adds the CUDA context and library slack to these.
  double peak_allocated_bytes = 0;
  double peak_reserved_bytes = 0;
  // peak_memory_bytes by what holds it ("weights", "gradients", "optimizer_states", "activations",
  // "communication_buffers", "workspace"), as the generator's estimate splits it; empty when unknown.
  std::map<std::string, double> memory_breakdown_bytes;
  DType compute_dtype = DType::FP32;  // the dtype whose peak MFU is measured against
  // The profile name of the GPU the measured durations (ComputeSpec::duration_s) were recorded on, e.g.
  // "h200-sxm"; empty when unknown or when nothing was measured. Costing for another GPU rescales them.
  std::string recorded_gpu;

  friend bool operator==(const TraceMetadata&, const TraceMetadata&) = default;
};

struct Trace {
  static constexpr int kSchemaVersion = 1;

  int world_size = 0;
  TraceMetadata metadata;
  std::vector<Program> programs;
  std::vector<std::uint32_t> rank_program;  // world_size entries, index into programs
  std::vector<CommunicatorGroup> groups;

  const Program& program_of(int rank) const { return programs[rank_program[rank]]; }

  // Field-by-field equality (doubles compared exactly): what a lossless reader/writer round trip preserves.
  friend bool operator==(const Trace&, const Trace&) = default;
};

// For each group, the communicator index holding each rank (-1 when the rank is in none of them), and the
// rank's position in it. Built once per trace because a lookup per op would be quadratic at scale.
class CommunicatorIndex {
 public:
  explicit CommunicatorIndex(const Trace& trace);
  // The communicator of `group` that contains `rank`; throws Error when there is none.
  const std::vector<int>& communicator(std::uint16_t group, int rank) const;
  int position(std::uint16_t group, int rank) const;

 private:
  const Trace* trace_;
  std::vector<std::vector<int>> comm_of_rank_;      // [group][rank]
  std::vector<std::vector<int>> position_of_rank_;  // [group][rank]
};

// Checks the structural invariants (indices in range, deps pointing backwards, groups partitioning ranks,
// positive sizes); throws Error naming the offending field path, e.g. "programs[0].ops[12].deps[1]".
void validate(const Trace& trace, const std::string& origin);

// A trace in which all `world_size` ranks run `program` and form one communicator, group 0 named
// `group_name`: a data-parallel job, or a collective benchmark. Metadata is left for the caller.
Trace single_program_trace(Program program, int world_size, std::string group_name);

std::string_view to_string(OpType type);
std::string_view to_string(ComputeKind kind);
std::string_view to_string(Pass pass);
std::string_view to_string(AttentionKernel kernel);
std::string_view to_string(CollectiveKind kind);
bool parse(std::string_view text, OpType& out);
bool parse(std::string_view text, ComputeKind& out);
bool parse(std::string_view text, Pass& out);
bool parse(std::string_view text, AttentionKernel& out);
bool parse(std::string_view text, CollectiveKind& out);

}  // namespace simtrain::trace
