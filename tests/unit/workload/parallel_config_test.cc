// Specification of the parallel-plan checks: each impossible plan ends with one line that names the options
// and the constraint they break, as Megatron-LM and DeepSpeed would refuse it.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_config.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

// Llama-2 7B's shape: 32 layers, 32 heads, 4096 hidden, 11008 FFN.
TransformerConfig llama2_7b() { return *build_model("llama2-7b").transformer; }

TransformerConfig eight_experts() {
  TransformerConfig m = llama2_7b();
  m.kv_heads = 8;
  m.experts = 8;
  m.experts_per_token = 2;
  m.moe_ffn_hidden = 14336;
  return m;
}

ParallelConfig plan(int tp, int pp) {
  ParallelConfig c;
  c.tp = tp;
  c.pp = pp;
  return c;
}

}  // namespace

TEST_CASE("recompute policies print and parse by their framework names") {
  for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full}) {
    Recompute parsed = Recompute::None;
    CHECK(parse_recompute(to_string(r), parsed));
    CHECK(parsed == r);
  }
  Recompute unchanged = Recompute::Full;
  CHECK_FALSE(parse_recompute("partial", unchanged));
  CHECK(unchanged == Recompute::Full);
}

TEST_CASE("a plan that divides evenly is accepted") {
  ParallelConfig c = plan(8, 4);
  c.sp = true;
  c.vpp = 2;
  c.cp = 2;
  c.global_batch = 64;
  c.seq_len = 4096;
  CHECK_NOTHROW(validate(c, llama2_7b(), 256));  // dp = 256 / 64 = 4
  c.dp = 4;
  CHECK_NOTHROW(validate(c, llama2_7b(), 256));
}

TEST_CASE("the GPUs must be a whole number of model-parallel groups") {
  CHECK_THROWS_WITH_AS(
      validate(plan(8, 2), llama2_7b(), 24),
      "--gpus 24: not divisible by --tp 8 x --pp 2 x --cp 1 = 16 (data parallelism must be whole)", Error);
  ParallelConfig c = plan(8, 1);
  c.dp = 3;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 16),
                       "--dp 3: --dp x --tp 8 x --pp 1 x --cp 1 = 24 GPUs, but --gpus is 16", Error);
  CHECK_THROWS_WITH_AS(validate(plan(0, 1), llama2_7b(), 8), "--tp: must be at least 1, got 0", Error);
}

TEST_CASE("tensor parallelism must split heads, KV heads and the FFN evenly") {
  CHECK_THROWS_WITH_AS(validate(plan(3, 1), llama2_7b(), 3),
                       "--tp 3: 32 attention heads are not divisible by 3", Error);
  TransformerConfig gqa = llama2_7b();
  gqa.kv_heads = 4;
  CHECK_THROWS_WITH_AS(validate(plan(8, 1), gqa, 8),
                       "--tp 8: 4 KV heads (query groups) are not divisible by 8", Error);
  TransformerConfig odd_ffn = llama2_7b();
  odd_ffn.ffn_hidden = 11000;
  CHECK_THROWS_WITH_AS(validate(plan(16, 1), odd_ffn, 16), "--tp 16: FFN size 11000 is not divisible by 16",
                       Error);
  ParallelConfig sp = plan(1, 1);
  sp.sp = true;
  CHECK_THROWS_WITH_AS(validate(sp, llama2_7b(), 8), "--sp: sequence parallelism needs --tp > 1", Error);
}

TEST_CASE("pipeline stages and virtual stages must split the layers evenly") {
  CHECK_THROWS_WITH_AS(validate(plan(1, 3), llama2_7b(), 3),
                       "--pp 3 --vpp 1: 32 layers are not divisible by pp x vpp = 3"
                       " (an uneven split: --pp-first-layers, --pp-last-layers or --pp-layers)",
                       Error);
  ParallelConfig c = plan(1, 4);
  c.vpp = 3;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 4),
                       "--pp 4 --vpp 3: 32 layers are not divisible by pp x vpp = 12"
                       " (an uneven split: --pp-first-layers, --pp-last-layers or --pp-layers)",
                       Error);
  c = plan(1, 1);
  c.vpp = 2;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 1), "--vpp 2: interleaved virtual stages need --pp > 1",
                       Error);
  // Interleaved without overlapped exchanges, Megatron needs three stages or more.
  c = plan(1, 2);
  c.vpp = 2;
  c.overlap_p2p_communication = false;
  CHECK_THROWS_WITH_AS(
      validate(c, llama2_7b(), 2),
      "--no-overlap-p2p-communication: interleaved virtual stages without overlapped exchanges "
      "need --pp > 2, got --pp 2",
      Error);
  c = plan(1, 4);
  c.vpp = 2;
  c.overlap_p2p_communication = false;
  CHECK_NOTHROW(validate(c, llama2_7b(), 4));
}

TEST_CASE("the global batch must be whole micro-batches on every data-parallel rank") {
  ParallelConfig c = plan(8, 1);
  c.micro_batch = 2;
  c.global_batch = 100;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 64),
                       "--global-batch 100: not divisible by --micro-batch 2 x data-parallel size 8 = 16",
                       Error);
}

TEST_CASE("context parallelism cuts the sequence into 2 x cp chunks") {
  ParallelConfig c = plan(1, 1);
  c.cp = 4;
  c.seq_len = 4100;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 8), "--cp 4: --seq-len 4100 is not divisible by 2 x cp = 8",
                       Error);
  c.seq_len = 0;  // the model's default is the caller's to resolve and check
  CHECK_NOTHROW(validate(c, llama2_7b(), 8));
}

TEST_CASE("expert parallelism needs experts that divide, within the data-parallel ranks") {
  ParallelConfig c = plan(1, 1);
  c.ep = 2;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 8), "--ep 2: the model has no experts to distribute", Error);
  c.ep = 3;
  CHECK_THROWS_WITH_AS(validate(c, eight_experts(), 9), "--ep 3: 8 experts are not divisible by 3", Error);
  c = plan(8, 1);
  c.ep = 8;
  CHECK_THROWS_WITH_AS(
      validate(c, eight_experts(), 32),
      "--ep 8: does not divide data-parallel x --cp = 4 x 1 = 4 (with --etp below --tp it may "
      "span tensor-parallel ranks)",
      Error);
  CHECK_NOTHROW(validate(c, eight_experts(), 64));
}

TEST_CASE("MoE parallel folding: etp x ep divides a stage's ranks, and etp divides tp") {
  ParallelConfig c = plan(8, 1);
  c.ep = 8;
  c.etp = 1;
  CHECK_NOTHROW(validate(c, eight_experts(), 32));  // 8 x 4 ranks per stage, regrouped as 1 x 8 x 4
  c.etp = 2;
  CHECK_THROWS_WITH_AS(validate(c, eight_experts(), 8),
                       "--ep 8 --etp 2: ep x etp does not divide --tp x --cp x data-parallel = 8", Error);
  c.etp = 3;
  CHECK_THROWS_WITH_AS(validate(c, eight_experts(), 24),
                       "--etp 3: expert tensor parallelism must divide --tp 8", Error);
  ParallelConfig dense = plan(2, 1);
  dense.etp = 1;
  CHECK_THROWS_WITH_AS(validate(dense, llama2_7b(), 8), "--etp 1: the model has no experts to split", Error);
}

TEST_CASE("ZeRO stages are 0-3 and exclude FSDP and the distributed optimizer") {
  ParallelConfig c = plan(1, 1);
  c.zero = 4;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 8), "--zero 4: ZeRO stage must be 0, 1, 2 or 3", Error);
  c.zero = 2;
  c.fsdp = FsdpMode::FullShard;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 8),
                       "--zero 2 --fsdp: ZeRO and FSDP both shard training state; choose one", Error);
  c.fsdp = FsdpMode::None;
  c.distributed_optimizer = true;
  CHECK_THROWS_WITH_AS(
      validate(c, llama2_7b(), 8),
      "--distributed-optimizer: already shards optimizer states; do not combine it with --zero or --fsdp",
      Error);
}

TEST_CASE("FP8 needs 16-bit mixed precision around it and dimensions that are multiples of 16") {
  ParallelConfig c = plan(1, 1);
  c.fp8 = true;
  CHECK_NOTHROW(validate(c, llama2_7b(), 8));
  c.precision = Precision::FP32;
  CHECK_THROWS_WITH_AS(
      validate(c, llama2_7b(), 8),
      "--precision fp8: needs a 16-bit mixed precision (amp-bf16 or amp-fp16) around the FP8 GEMMs", Error);
  c.precision = Precision::AMP_BF16;
  TransformerConfig odd = llama2_7b();
  odd.ffn_hidden = 11000;  // 11000 / 8 = 1375
  c.tp = 8;
  CHECK_THROWS_WITH_AS(
      validate(c, odd, 8),
      "--precision fp8: hidden size 4096 and FFN size per TP rank 1375 must be multiples of 16", Error);
}

TEST_CASE("16-bit first and last layers: only under FP8 or NVFP4, not delayed scaling, one rank's share") {
  ParallelConfig c = plan(1, 4);  // 32 layers: 8 per pipeline rank
  c.bf16_layers_at_end = 2;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 4),
                       "--first-last-layers-bf16: applies to FP8 or NVFP4 training", Error);
  c.fp8 = true;
  CHECK_THROWS_WITH_AS(validate(c, llama2_7b(), 4),
                       "--first-last-layers-bf16: delayed scaling does not support 16-bit first and last "
                       "layers (Megatron refuses it; give --fp8-recipe tensorwise, blockwise or mxfp8)",
                       Error);
  c.quant_recipe = QuantRecipe::MXFP8;
  CHECK_NOTHROW(validate(c, llama2_7b(), 4));
  c.bf16_layers_at_start = 9;
  CHECK_THROWS_WITH_AS(
      validate(c, llama2_7b(), 4),
      "--num-layers-at-start-in-bf16 9: must be between 0 and the layers per pipeline rank (8)", Error);
}
