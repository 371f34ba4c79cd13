// The smallest set of dependencies that orders an op as a longer list would: the engine already runs the ops
// of one stream in issue order, so a dependency on an op of the new op's own stream says nothing, and of
// several ops of another stream only the latest matters. Importers of dependency graphs (execution traces,
// Chakra) use it so that a trace of thousands of kernels does not carry a dependency per tensor.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/trace/trace.h"

namespace simtrain::trace {

// `deps` (indices of earlier ops of `program`) reduced for a new op on `stream`, sorted ascending.
std::vector<std::uint32_t> minimal_dependencies(const Program& program, std::uint8_t stream,
                                                const std::vector<std::uint32_t>& deps);

}  // namespace simtrain::trace
