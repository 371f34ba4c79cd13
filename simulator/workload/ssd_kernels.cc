// Bytes and FLOPs of each SSD kernel, read off mamba_ssm's Triton kernels (ssd_chunk_state.py,
// ssd_state_passing.py, ssd_bmm.py, ssd_chunk_scan.py, ssd_combined.py): which tensors each loads and stores
// and in which precision. dt, dA_cumsum and their gradients are fp32, as are the chunk states the forward
// writes and passes, C B^T per chunk and its gradient; the backward's state passing hands the states and
// their gradients on in 16 bits. The intra-chunk products are causal: a kernel visits the tiles on and below
// the diagonal, half of the chunk's square.
#include "simulator/workload/ssd_kernels.h"

namespace simtrain::workload {
namespace {

constexpr double kFp32 = 4;

// Tensor sizes in elements.
struct SsdTensors {
  explicit SsdTensors(const SsdShape& s)
      : e(s.element_bytes),
        x(s.tokens * s.heads * s.head_dim),
        b(s.tokens * s.groups * s.state),
        dt(s.tokens * s.heads),
        states(s.tokens / kSsdChunk * s.heads * s.head_dim * s.state),
        cb(s.tokens * s.groups * kSsdChunk),
        conv(x + 2 * b),
        taps(s.conv_taps),
        // FLOPs: x against the states (chunk states, their gradient, the states' contribution), the causal
        // intra-chunk product with x, and C B^T per group.
        state_flops(2 * s.tokens * s.heads * s.head_dim * s.state),
        intra_flops(s.tokens * s.heads * kSsdChunk * s.head_dim),
        cb_flops(2 * s.tokens * s.groups * kSsdChunk * s.state) {}
  double e, x, b, dt, states, cb, conv, taps, state_flops, intra_flops, cb_flops;
};

SsdKernel streaming(std::string name, double flops, double bytes, double launches = 1) {
  return {std::move(name), false, flops, bytes, launches};
}

SsdKernel matmul(std::string name, double flops, double bytes) {
  return {std::move(name), true, flops, bytes, 1};
}

// The forward kernels the backward recomputes (all but the chunk scan).
void chunk_states(std::vector<SsdKernel>& k, const SsdTensors& t, const std::string& suffix) {
  k.push_back(streaming("ssd.chunk_cumsum" + suffix, 4 * t.dt, t.dt * t.e + 2 * t.dt * kFp32));
  k.push_back(matmul("ssd.bmm_chunk" + suffix, t.cb_flops, 2 * t.b * t.e + t.cb * kFp32));
  k.push_back(matmul("ssd.chunk_state" + suffix, t.state_flops,
                     (t.b + t.x) * t.e + 2 * t.dt * kFp32 + t.states * kFp32));
  k.push_back(streaming("ssd.state_passing" + suffix, 2 * t.states, 2 * t.states * kFp32));
}

}  // namespace

double ssd_model_flops(const SsdShape& s) {
  const double conv_channels = s.heads * s.head_dim + 2 * s.groups * s.state;
  return s.tokens * (2 * s.conv_taps * conv_channels + s.heads * (2 * kSsdChunk + 4 * s.state) * s.head_dim +
                     s.groups * 2 * kSsdChunk * s.state);
}

std::vector<SsdKernel> ssd_forward_kernels(const SsdShape& shape) {
  const SsdTensors t(shape);
  std::vector<SsdKernel> k;
  k.push_back(streaming("conv1d.fwd", 2 * t.taps * t.conv, 2 * t.conv * t.e));
  chunk_states(k, t, ".fwd");
  // Reads C B^T, x, C, the states, dt, dA and z; writes the gated output and x's share before the gate.
  k.push_back(matmul("ssd.chunk_scan.fwd", t.intra_flops + t.state_flops + 5 * t.x,
                     t.cb * kFp32 + (4 * t.x + t.b) * t.e + t.states * kFp32 + 2 * t.dt * kFp32));
  return k;
}

std::vector<SsdKernel> ssd_backward_kernels(const SsdShape& shape) {
  const SsdTensors t(shape);
  std::vector<SsdKernel> k;
  k.push_back(streaming("conv1d.recompute", 2 * t.taps * t.conv, 2 * t.conv * t.e));
  chunk_states(k, t, ".recompute");
  // dz and the gradient before the gate from x, z, the ungated output and the output's gradient.
  k.push_back(streaming("ssd.chunk_scan.bwd_dz", 8 * t.x, 6 * t.x * t.e));
  k.push_back(matmul("ssd.chunk_scan.bwd_dstates", t.state_flops,
                     (t.b + t.x) * t.e + t.dt * kFp32 + t.states * kFp32));
  k.push_back(streaming("ssd.state_passing.bwd", 3 * t.states, 2 * t.states * kFp32 + 2 * t.states * t.e));
  k.push_back(matmul("ssd.chunk_scan_chunk_state.bwd_dx", t.intra_flops + t.state_flops,
                     (3 * t.x + t.b + t.states) * t.e + t.cb * kFp32 + 3 * t.dt * kFp32));
  k.push_back(matmul("ssd.chunk_state.bwd_db", t.state_flops,
                     (t.x + t.states + t.b) * t.e + t.b * kFp32 + 3 * t.dt * kFp32));
  k.push_back(matmul("ssd.chunk_scan.bwd_dc", t.state_flops,
                     (t.x + t.states + t.b) * t.e + t.b * kFp32 + 2 * t.dt * kFp32));
  k.push_back(
      matmul("ssd.chunk_scan.bwd_dcb", t.intra_flops, 2 * t.x * t.e + 2 * t.dt * kFp32 + t.cb * kFp32));
  k.push_back(matmul("ssd.bmm_chunk.bwd_db", t.cb_flops, 2 * t.b * t.e + t.cb * kFp32 + t.b * kFp32));
  k.push_back(matmul("ssd.bmm_chunk.bwd_dc", t.cb_flops, 2 * t.b * t.e + t.cb * kFp32 + t.b * kFp32));
  // flip, cumsum, flip of the previous chunks' dA gradient, then the two adds into the total.
  k.push_back(streaming("ssd.dda_reverse_cumsum", 5 * t.dt, 10 * t.dt * kFp32, 5));
  k.push_back(
      matmul("ssd.chunk_scan.bwd_ddacs", t.intra_flops, 2 * t.x * t.e + t.cb * kFp32 + 3 * t.dt * kFp32));
  k.push_back(streaming("ssd.chunk_cumsum.bwd", 4 * t.dt, 3 * t.dt * kFp32 + t.dt * t.e));
  // The conv1d's gradient reads its input and the output's gradient and writes the input's.
  k.push_back(streaming("conv1d.bwd_data", 4 * t.taps * t.conv, 3 * t.conv * t.e));
  return k;
}

}  // namespace simtrain::workload
