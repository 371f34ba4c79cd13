// Transformer Engine's activation offloading as Megatron-Core runs it (--cpu-offloading-num-layers N of a
// model's L decoder layers; cpu_offload.py's DefaultOffloadSynchronizer, which Megatron-Core uses from TE
// 2.10): layers 0 .. N-1 copy what they saved for backward to pinned host memory on a stream of their own,
// each copy starting once its layer's forward has run. Layer i's copy must have ended before layer L-N+i's
// forward starts (the GPU frees its tensors there), so the GPU never holds more than L-N layers'
// activations. In the backward pass layer i's copy back starts before layer L-1-N+i's backward, after the
// kernels issued so far, and layer i's backward waits for it. Copies that take longer than the layers they
// overlap hold the compute stream back; that, and the activation memory, is what offloading costs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "simulator/trace/trace.h"

namespace simtrain::workload::megatron {

// One layer's saved activations copied to the host (pass Forward) or back (BackwardData) on `stream`, after
// `deps`: a host copy (trace::ComputeSpec::host_copy) of `bytes`.
inline trace::Op activation_copy(std::string name, std::uint8_t stream, trace::Pass pass, DType dtype,
                                 double bytes, std::vector<std::uint32_t> deps) {
  trace::Op op;
  op.name = std::move(name);
  op.stream = stream;
  op.deps = std::move(deps);
  op.compute.kind = trace::ComputeKind::Other;
  op.compute.pass = pass;
  op.compute.dtype = dtype;
  op.compute.bytes = bytes;
  op.compute.host_copy = true;
  return op;
}

// Which copies each decoder layer starts and waits for, and the copy ops issued, per micro-batch.
class ActivationOffload {
 public:
  ActivationOffload(int layers, int offloaded) : layers_(layers), offloaded_(offloaded) {}

  bool enabled() const { return offloaded_ > 0; }
  // Whether `layer`'s activations go to the host after its forward pass.
  bool offloads(int layer) const { return layer >= 0 && layer < offloaded_; }
  // The offloaded layer whose copy the forward of `layer` waits for, if any.
  std::optional<int> offload_awaited_by(int layer) const { return offloaded(layer - (layers_ - offloaded_)); }
  // The offloaded layer whose copy back starts before the backward of `layer`, if any.
  std::optional<int> reload_started_by(int layer) const {
    return offloaded(layer - (layers_ - 1 - offloaded_));
  }

  void record_offload(int micro_batch, int layer, std::uint32_t op) { offloads_[{micro_batch, layer}] = op; }
  void record_reload(int micro_batch, int layer, std::uint32_t op) { reloads_[{micro_batch, layer}] = op; }
  std::optional<std::uint32_t> offload_op(int micro_batch, int layer) const {
    return find(offloads_, micro_batch, layer);
  }
  std::optional<std::uint32_t> reload_op(int micro_batch, int layer) const {
    return find(reloads_, micro_batch, layer);
  }

 private:
  std::optional<int> offloaded(int layer) const {
    return offloads(layer) ? std::optional<int>(layer) : std::nullopt;
  }
  using Ops = std::map<std::pair<int, int>, std::uint32_t>;
  static std::optional<std::uint32_t> find(const Ops& ops, int micro_batch, int layer) {
    const auto it = ops.find({micro_batch, layer});
    return it == ops.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
  }

  int layers_ = 0, offloaded_ = 0;
  Ops offloads_, reloads_;
};

}  // namespace simtrain::workload::megatron
