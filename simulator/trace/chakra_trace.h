// MLCommons Chakra execution traces (the protobuf files ASTRA-sim replays), read into and written from a
// Trace. A Chakra file holds one rank: a GlobalMetadata message, then Node messages in issue order, each
// prefixed by its length as a varint (Chakra's protolib encodeMessage). The messages are chakra_et.proto.
#pragma once

#include <string>
#include <vector>

#include "simulator/trace/trace.h"
#include "simulator/trace/trace_import.h"

namespace simtrain::trace {

// Whether `bytes` (already gunzipped) start as a Chakra file does: a length-prefixed GlobalMetadata with a
// non-empty printable version and nothing else in it that Chakra does not write.
bool looks_like_chakra(const std::string& bytes);

// One Chakra file per rank (rank = position in the list; gzip-compressed files are inflated) as a Trace:
// COMP_NODE -> compute op (duration_micros when > 0, else num_ops FLOPs and tensor_size bytes for the cost
// model; is_cpu_op -> a Host op), COMM_COLL_NODE -> collective (comm_type, comm_size; the communicator from
// the pg_ranks attribute simtrain writes, else all ranks), COMM_SEND_NODE / COMM_RECV_NODE -> send / recv
// to comm_dst / from comm_src with comm_tag. data_deps and ctrl_deps become deps; node order is issue order.
// Ranks whose programs come out equal share one. Throws Error naming the file and node on a truncated or
// oversized message, a dependency on a node not yet seen, an unknown node or collective type, or a peer
// outside the ranks.
Trace import_chakra(const std::vector<std::string>& rank_files_bytes, const std::vector<std::string>& origins,
                    ImportReport& report);

// Writes `<prefix>.<rank>.et` for every rank of `trace` (each through write_file_atomically), as ASTRA-sim
// replays them: compute ops as COMP_NODE with duration_micros (rounded, at least 1 for a non-zero time),
// num_ops and tensor_size; collectives as COMM_COLL_NODE with comm_type and comm_size (and pg_name / pg_ranks
// for a communicator smaller than the world); send / recv as COMM_SEND_NODE / COMM_RECV_NODE with absolute
// comm_src / comm_dst ranks. Each node's data_deps are its deps plus the previous op of its stream, since
// Chakra has no streams. `program_op_durations_s[p][i]` is the duration of op i of program p, as
// cost::ProgramCosts::duration_s holds them; the exact value also goes in a "simtrain_duration_s" attribute
// so that import_chakra gives it back. Also writes `<prefix>.comm_groups.json`, ASTRA-sim's communicator
// group file, when some collective has a pg_name. Throws Error when the durations do not match the programs.
void write_chakra_traces(const Trace& trace, const std::vector<std::vector<double>>& program_op_durations_s,
                         const std::string& prefix);

}  // namespace simtrain::trace
