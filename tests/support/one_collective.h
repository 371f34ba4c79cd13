// A trace of one collective over every rank, the same program on each: what the engine tests replay to time a
// collective alone.
#pragma once

#include <string>

#include "simulator/trace/trace.h"

namespace simtrain::testing {

inline trace::Trace one_collective(int ranks, const trace::CollectiveSpec& collective) {
  trace::Trace t;
  t.world_size = ranks;
  trace::Program program;
  program.name = std::string(trace::to_string(collective.kind));
  program.streams = {"comm"};
  trace::Op op;
  op.name = program.name;
  op.type = trace::OpType::Collective;
  op.collective = collective;
  op.collective.group = 0;
  program.ops.push_back(op);
  t.programs.push_back(program);
  t.rank_program.assign(ranks, 0);
  trace::CommunicatorGroup world{"world", {{}}};
  for (int r = 0; r < ranks; ++r) world.communicators[0].push_back(r);
  t.groups.push_back(world);
  return t;
}

}  // namespace simtrain::testing
