// The CPU side of an eager PyTorch step: how long the launching thread spends per kernel it launches
// (Python, operator dispatch, autocast, autograd bookkeeping and the launch itself). When the GPU finishes
// kernels faster than that, it waits: small batches and models of many small kernels are host-bound.
// Calibrated per machine (README "Host dispatch"); read from a host profile file given with --host.
#pragma once

#include <string>

namespace simtrain::workload {

// A host profile file (JSON), e.g. calibration/hosts/h200-run-b.json:
//   {"schema": "simtrain-host", "version": 1, "name": "h200-run-b", "dispatch_per_kernel_s": 4.1e-05,
//    "launch_call_s": 1.1e-05, "source": "how it was measured"}
// `launch_call_s` and `source` are optional; every other field is required and unknown fields are errors.
struct HostProfile {
  std::string name;
  double dispatch_per_kernel_s = 0;  // host time per launched kernel, in (0, 0.1] s
  // The launch call alone (cudaLaunchKernel and its kin): what each further kernel costs that one operator's
  // C++ code launches in a loop (Transformer Engine's grouped GEMM, one per local expert) without going
  // back through Python and the dispatcher. 0 = not measured: such kernels cost dispatch_per_kernel_s.
  double launch_call_s = 0;
  std::string source;

  // What a kernel launched from inside an operator's loop costs.
  double looped_launch_s() const { return launch_call_s > 0 ? launch_call_s : dispatch_per_kernel_s; }
};

// How much longer Megatron-Core's host takes per operator dispatch than the eager PyTorch steps a host
// profile is measured on (calibration/hosts: torchvision and Hugging Face models in plain training loops).
// Megatron runs more Python per step of simtrain's kernel list: Transformer Engine's module and
// autograd-Function wrappers, the MoE router's auxiliary-loss and tracking ops, the dispatcher's split-size
// bookkeeping, and per-expert Python loops in the grouped linears (detaches, DDP hooks, gradient
// accumulators: about a hundred host actions per MoE layer that launch nothing). Fitted on the
// Megatron-Bridge table leaving one model family out (tools/fit_host_overhead.py; README "Host dispatch").
constexpr double kMegatronCoreHostOverhead = 4.0;

// What Megatron-Core's pipeline schedule costs the host per pass (one micro-batch's forward or backward
// through one model chunk) beyond its ops' dispatches, in eager dispatches of the host profile: the
// schedule's Python around forward_step and backward_step (the chunk's model call and its context managers,
// autograd's backward call, the pipeline's tensor bookkeeping and send/receive calls). Interleaved schedules
// run a pass per virtual stage, so it weighs on their rows. None by default: fitted on the Megatron-Bridge
// table leaving one model family out (tools/fit_host_overhead.py --pass-grid) it comes out at 100 (3.2 ms on
// the H200 profile), but NeMo 24.07's DGX H100 table, which nothing is fitted to, allows less than 25: its
// Llama 2 70B row at 20 virtual stages of one layer each goes from +1.5% to -15.6% at 25 and -45.3% at 100
// (README "Host dispatch").
constexpr double kMegatronCorePassOverhead = 0.0;

// What Megatron-Core's Python for one MoE layer's forward pass costs the host beyond the dispatches simtrain
// counts, in eager dispatches of the host profile (80 x the H200 profile's 31.9 us = 2.6 ms): the
// dispatcher's split-size bookkeeping after its sync point and the grouped linears' per-expert preparation in
// Python (LayerStep::moe_layer_python). A dropless dispatcher's host has just waited for the GPU there, so
// nothing queued hides it; the backward pass runs in autograd's C++ engine and pays none. Fitted on the
// Megatron-Bridge table leaving one model family out (tools/fit_host_overhead.py --moe-grid): 12.2% held out
// against 14.1% without it, and the same-release pairs of systems, which the fit does not see, go from 6.3%
// to 5.4%; a cost in both passes fits worse (13.3%). Dense layers (NeMo 24.07's table) do not pay it. With
// HybridEP's phases in series across nodes: 11.3% held out, the pairs 4.1% at 80 and 4.3% at 100.
constexpr double kMegatronCoreMoeLayerOverhead = 80.0;

// Reads and checks a host profile; throws Error(path, 0, field, why) naming the offending field.
HostProfile load_host_profile(const std::string& path);
// The same from JSON text, `origin` naming it in errors.
HostProfile parse_host_profile(const std::string& text, const std::string& origin);

}  // namespace simtrain::workload
