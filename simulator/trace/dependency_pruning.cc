// Implements dependency_pruning.h.
#include "simulator/trace/dependency_pruning.h"

#include <algorithm>
#include <map>

namespace simtrain::trace {

std::vector<std::uint32_t> minimal_dependencies(const Program& program, std::uint8_t stream,
                                                const std::vector<std::uint32_t>& deps) {
  std::map<std::uint8_t, std::uint32_t> latest_per_stream;
  for (std::uint32_t dep : deps) {
    const std::uint8_t dep_stream = program.ops.at(dep).stream;
    if (dep_stream == stream) continue;
    auto [it, inserted] = latest_per_stream.emplace(dep_stream, dep);
    if (!inserted) it->second = std::max(it->second, dep);
  }
  std::vector<std::uint32_t> out;
  for (const auto& [s, dep] : latest_per_stream) out.push_back(dep);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace simtrain::trace
