// Implements fsdp_wrap.h.
#include "simulator/workload/fsdp_wrap.h"

#include <algorithm>

namespace simtrain::workload {
namespace {

bool is_number(std::string_view part) {
  return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

double FsdpWrap::largest_unit_parameters() const {
  double largest = 0;
  for (const FsdpUnit& unit : units) largest = std::max(largest, unit.parameters);
  return largest;
}

std::string_view block_of(std::string_view layer_name) {
  std::size_t start = 0;
  while (start < layer_name.size()) {
    const std::size_t dot = std::min(layer_name.find('.', start), layer_name.size());
    if (is_number(layer_name.substr(start, dot - start))) return layer_name.substr(0, dot);
    start = dot + 1;
  }
  return {};
}

FsdpWrap wrap_repeated_blocks(const Model& model) {
  FsdpWrap wrap;
  wrap.unit_of_layer.assign(model.layers.size(), FsdpWrap::kRootUnit);
  std::size_t first = 0;
  while (first < model.layers.size()) {
    const std::string_view block = block_of(model.layers[first].name);
    std::size_t end = first + 1;
    while (end < model.layers.size() && !block.empty() && block_of(model.layers[end].name) == block) ++end;
    double parameters = 0;
    for (std::size_t i = first; i < end; ++i) parameters += model.layers[i].parameters;
    if (block.empty() || parameters <= 0) {
      wrap.root_parameters += parameters;
    } else {
      for (std::size_t i = first; i < end; ++i) wrap.unit_of_layer[i] = static_cast<int>(wrap.units.size());
      wrap.units.push_back({first, end, parameters});
    }
    first = end;
  }
  return wrap;
}

}  // namespace simtrain::workload
