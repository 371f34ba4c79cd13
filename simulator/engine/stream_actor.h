// The SimGrid actor that replays one stream of one simulated rank: its ops in issue order, each waiting for
// the ops of other streams it depends on. Back-to-back compute becomes one sleep; a collective becomes its
// NCCL plan's flows (all of them, a folded replica's analytic stand-in, or a sampled replica's flows to its
// stand-ins) plus the plan's analytic parts; a send or receive becomes one mailbox transfer.
#pragma once

#include "simulator/engine/replay_state.h"

namespace simtrain::engine {

// Creates the actor of (rank, stream) on the rank's GPU host; it runs when the engine does.
void create_stream_actor(ReplayState& state, int rank, int stream);

}  // namespace simtrain::engine
