// Implements fsdp_micro_step.h.
#include "simulator/workload/fsdp_micro_step.h"

#include <utility>

#include "common/dtype.h"

namespace simtrain::workload {

FsdpMicroStep::FsdpMicroStep(const Model& model, const FsdpWrap& wrap, FsdpDtypes dtypes, FsdpStreams streams,
                             std::string prefix, std::optional<std::uint32_t> previous_step_end,
                             trace::Program& program)
    : model_(model),
      wrap_(wrap),
      dtypes_(dtypes),
      streams_(streams),
      prefix_(std::move(prefix)),
      program_(program),
      forward_gather_(wrap.units.size()),
      backward_gather_(wrap.units.size()),
      forward_end_(wrap.units.size()),
      backward_end_(wrap.units.size()) {
  if (wrap_.root_parameters <= 0) return;
  std::vector<std::uint32_t> deps;
  if (previous_step_end) deps.push_back(*previous_step_end);
  root_gather_ = gather(prefix_ + "root.all_gather.fwd", wrap_.root_parameters, std::move(deps));
}

std::string FsdpMicroStep::unit_name(std::size_t unit) const {
  return std::string(block_of(model_.layers[wrap_.units[unit].first_layer].name));
}

namespace {

trace::Op collective(const std::string& name, trace::CollectiveKind kind, DType dtype, double parameters,
                     std::vector<std::uint32_t> deps, std::uint8_t stream, std::uint16_t group) {
  trace::Op op;
  op.name = name;
  op.type = trace::OpType::Collective;
  op.stream = stream;
  op.deps = std::move(deps);
  op.collective.kind = kind;
  op.collective.dtype = dtype;
  op.collective.bytes = parameters * bytes_per_element(dtype);
  op.collective.group = group;
  return op;
}

}  // namespace

std::uint32_t FsdpMicroStep::gather(const std::string& name, double parameters,
                                    std::vector<std::uint32_t> deps) {
  return trace::append(program_,
                       collective(name, trace::CollectiveKind::AllGather, dtypes_.gather, parameters,
                                  std::move(deps), streams_.gather, streams_.shard_group));
}

void FsdpMicroStep::reduce(const std::string& unit, double parameters, std::uint32_t after) {
  gradient_reductions_.push_back(trace::append(
      program_,
      collective(prefix_ + unit + ".reduce_scatter", trace::CollectiveKind::ReduceScatter, dtypes_.reduce,
                 parameters, {after}, streams_.reduce_scatter, streams_.shard_group)));
  if (!streams_.replicate_group) return;
  gradient_reductions_.push_back(trace::append(
      program_, collective(prefix_ + unit + ".all_reduce", trace::CollectiveKind::AllReduce, dtypes_.reduce,
                           parameters / streams_.shard_size, {gradient_reductions_.back()},
                           streams_.reduce_scatter, *streams_.replicate_group)));
}

void FsdpMicroStep::gather_forward(std::size_t unit, std::vector<std::uint32_t> deps) {
  if (forward_gather_[unit]) return;
  forward_gather_[unit] =
      gather(prefix_ + unit_name(unit) + ".all_gather.fwd", wrap_.units[unit].parameters, std::move(deps));
}

void FsdpMicroStep::gather_backward(std::size_t unit, std::vector<std::uint32_t> deps) {
  if (backward_gather_[unit]) return;
  backward_gather_[unit] =
      gather(prefix_ + unit_name(unit) + ".all_gather.bwd", wrap_.units[unit].parameters, std::move(deps));
}

std::vector<std::uint32_t> FsdpMicroStep::before_forward(std::size_t layer) {
  const int unit = wrap_.unit_of_layer[layer];
  if (unit == FsdpWrap::kRootUnit) {
    if (!root_gather_ || root_gather_awaited_) return {};
    root_gather_awaited_ = true;
    return {*root_gather_};
  }
  const auto u = static_cast<std::size_t>(unit);
  if (layer != wrap_.units[u].first_layer) return {};
  gather_forward(u, {});
  // The next block's gather may start once the block before this one has freed its parameters.
  if (u + 1 < wrap_.units.size()) {
    std::vector<std::uint32_t> freed;
    if (u > 0 && forward_end_[u - 1]) freed.push_back(*forward_end_[u - 1]);
    gather_forward(u + 1, std::move(freed));
  }
  return {*forward_gather_[u]};
}

void FsdpMicroStep::after_forward(std::size_t layer, std::uint32_t last_kernel) {
  const int unit = wrap_.unit_of_layer[layer];
  if (unit == FsdpWrap::kRootUnit) return;
  const auto u = static_cast<std::size_t>(unit);
  if (layer + 1 == wrap_.units[u].end_layer) forward_end_[u] = last_kernel;
}

std::vector<std::uint32_t> FsdpMicroStep::before_backward(std::size_t layer, std::uint32_t end_of_forward) {
  const int unit = wrap_.unit_of_layer[layer];
  if (unit == FsdpWrap::kRootUnit) return {};  // the root's parameters were kept
  const auto u = static_cast<std::size_t>(unit);
  if (layer + 1 != wrap_.units[u].end_layer) return {};
  gather_backward(u, {end_of_forward});
  // Prefetch the block backward reaches next, once the block before this one (in backward order) is done.
  if (u > 0) {
    const bool last = u + 1 == wrap_.units.size();
    const std::optional<std::uint32_t> freed = last ? end_of_forward : backward_end_[u + 1];
    gather_backward(u - 1, freed ? std::vector<std::uint32_t>{*freed} : std::vector<std::uint32_t>{});
  }
  return {*backward_gather_[u]};
}

void FsdpMicroStep::after_backward(std::size_t layer, std::uint32_t last_kernel) {
  const int unit = wrap_.unit_of_layer[layer];
  if (unit == FsdpWrap::kRootUnit) return;
  const auto u = static_cast<std::size_t>(unit);
  if (layer != wrap_.units[u].first_layer) return;
  backward_end_[u] = last_kernel;
  reduce(unit_name(u), wrap_.units[u].parameters, last_kernel);
}

std::vector<std::uint32_t> FsdpMicroStep::finish(std::uint32_t end_of_backward) {
  if (wrap_.root_parameters > 0) reduce("root", wrap_.root_parameters, end_of_backward);
  return std::move(gradient_reductions_);
}

}  // namespace simtrain::workload
