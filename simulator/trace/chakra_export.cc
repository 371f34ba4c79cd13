// Implements the writing half of chakra_trace.h: one Chakra file per rank, as ASTRA-sim replays them.
#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "chakra_et.pb.h"
#include "common/error.h"
#include "common/file_io.h"
#include "simulator/trace/chakra_stream.h"
#include "simulator/trace/chakra_trace.h"

namespace simtrain::trace {
namespace {

namespace pb = simtrain::chakra;

// The Chakra schema version the files declare (chakra_et.proto's source).
constexpr const char* kChakraVersion = "0.0.4";

void add(pb::Node& node, const std::string& name, std::int64_t value, bool as_int32 = false) {
  pb::AttributeProto* a = node.add_attr();
  a->set_name(name);
  // ASTRA-sim's feeder reads comm_src, comm_dst and comm_tag as int32 and the others as int64.
  if (as_int32)
    a->set_int32_val(static_cast<std::int32_t>(value));
  else
    a->set_int64_val(value);
}

void add_string(pb::Node& node, const std::string& name, std::string_view value) {
  pb::AttributeProto* a = node.add_attr();
  a->set_name(name);
  a->set_string_val(std::string(value));
}

void add_bool(pb::Node& node, const std::string& name, bool value) {
  pb::AttributeProto* a = node.add_attr();
  a->set_name(name);
  a->set_bool_val(value);
}

std::int64_t rounded(double value) { return static_cast<std::int64_t>(std::llround(value)); }

pb::CollectiveCommType comm_type_of(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::AllReduce: return pb::ALL_REDUCE;
    case CollectiveKind::AllGather: return pb::ALL_GATHER;
    case CollectiveKind::ReduceScatter: return pb::REDUCE_SCATTER;
    case CollectiveKind::AllToAll: return pb::ALL_TO_ALL;
    case CollectiveKind::Broadcast: return pb::BROADCAST;
    case CollectiveKind::Reduce: return pb::REDUCE;
    // Chakra writes point-to-point as COMM_SEND / COMM_RECV nodes, not as a collective type.
    case CollectiveKind::SendRecv:
      throw Error("Chakra export: a sendrecv collective has no Chakra collective type");
  }
  return pb::ALL_REDUCE;
}

bool is_whole_world(const std::vector<int>& communicator, int world) {
  if (static_cast<int>(communicator.size()) != world) return false;
  for (int i = 0; i < world; ++i)
    if (communicator[i] != i) return false;
  return true;
}

}  // namespace

void write_chakra_traces(const Trace& trace, const std::vector<std::vector<double>>& program_op_durations_s,
                         const std::string& prefix) {
  validate(trace, prefix);
  if (program_op_durations_s.size() != trace.programs.size())
    throw Error("Chakra export: durations for " + std::to_string(program_op_durations_s.size()) +
                " programs, the trace has " + std::to_string(trace.programs.size()));
  for (std::size_t p = 0; p < trace.programs.size(); ++p)
    if (program_op_durations_s[p].size() != trace.programs[p].ops.size())
      throw Error("Chakra export: durations for " + std::to_string(program_op_durations_s[p].size()) +
                  " ops of program " + std::to_string(p) + ", which has " +
                  std::to_string(trace.programs[p].ops.size()));
  const CommunicatorIndex communicators(trace);
  std::map<std::vector<int>, int> group_ids;  // communicators smaller than the world, as ASTRA-sim numbers them

  for (int rank = 0; rank < trace.world_size; ++rank) {
    const Program& program = trace.program_of(rank);
    const std::vector<double>& durations = program_op_durations_s[trace.rank_program[rank]];
    std::string file;
    pb::GlobalMetadata metadata;
    metadata.set_version(kChakraVersion);
    append_chakra_message(file, metadata.SerializeAsString());
    std::vector<std::int64_t> last_on_stream(program.streams.size(), -1);
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      const Op& op = program.ops[i];
      pb::Node node;
      node.set_id(i);
      node.set_name(op.name);
      // Chakra has no streams: a node runs once its dependencies have, so the stream's order becomes one.
      std::vector<std::uint32_t> deps = op.deps;
      if (last_on_stream[op.stream] >= 0) deps.push_back(static_cast<std::uint32_t>(last_on_stream[op.stream]));
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      for (std::uint32_t d : deps) node.add_data_deps(d);
      last_on_stream[op.stream] = static_cast<std::int64_t>(i);
      switch (op.type) {
        case OpType::Compute: {
          const double duration_s = durations[i];
          node.set_type(pb::COMP_NODE);
          node.set_duration_micros(duration_s > 0 ? std::max<std::int64_t>(1, rounded(duration_s * 1e6)) : 0);
          add_bool(node, "is_cpu_op", op.compute.kind == ComputeKind::Host);
          add(node, "num_ops", rounded(op.compute.flops));
          pb::AttributeProto* size = node.add_attr();
          size->set_name("tensor_size");
          size->set_uint64_val(static_cast<std::uint64_t>(rounded(op.compute.bytes)));
          pb::AttributeProto* exact = node.add_attr();
          exact->set_name("simtrain_duration_s");
          exact->set_double_val(duration_s);
          add_string(node, "simtrain_kind", to_string(op.compute.kind));
          add_string(node, "simtrain_pass", to_string(op.compute.pass));
          add_string(node, "simtrain_dtype", to_string(op.compute.dtype));
          pb::AttributeProto* shape = node.add_attr();
          shape->set_name("simtrain_shape");
          for (std::int64_t d : op.compute.shape) shape->mutable_int64_list()->add_values(d);
          break;
        }
        case OpType::Collective: {
          node.set_type(pb::COMM_COLL_NODE);
          add_bool(node, "is_cpu_op", false);
          add(node, "comm_type", comm_type_of(op.collective.kind));
          add(node, "comm_size", rounded(op.collective.bytes));
          add_string(node, "simtrain_dtype", to_string(op.collective.dtype));
          const std::vector<int>& communicator = communicators.communicator(op.collective.group, rank);
          if (!is_whole_world(communicator, trace.world_size)) {
            const int id = group_ids.emplace(communicator, static_cast<int>(group_ids.size()) + 1).first->second;
            add_string(node, "pg_name", std::to_string(id));
            pb::AttributeProto* ranks = node.add_attr();
            ranks->set_name("pg_ranks");
            for (int r : communicator) ranks->mutable_int64_list()->add_values(r);
          }
          break;
        }
        case OpType::Send:
        case OpType::Recv: {
          const std::vector<int>& communicator = communicators.communicator(op.p2p.group, rank);
          const auto size = static_cast<std::int64_t>(communicator.size());
          const std::int64_t position = communicators.position(op.p2p.group, rank);
          const int peer = communicator[static_cast<std::size_t>(((position + op.p2p.peer_offset) % size + size) % size)];
          const bool send = op.type == OpType::Send;
          node.set_type(send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
          add_bool(node, "is_cpu_op", false);
          add(node, "comm_src", send ? rank : peer, true);
          add(node, "comm_dst", send ? peer : rank, true);
          add(node, "comm_tag", op.p2p.tag, true);
          add(node, "comm_size", rounded(op.p2p.bytes));
          break;
        }
      }
      append_chakra_message(file, node.SerializeAsString());
    }
    write_file_atomically(prefix + "." + std::to_string(rank) + ".et", file);
  }

  if (!group_ids.empty()) {
    // ASTRA-sim's --comm-group-configuration: communicator id -> its ranks.
    nlohmann::json groups = nlohmann::json::object();
    for (const auto& [ranks, id] : group_ids) groups[std::to_string(id)] = ranks;
    write_file_atomically(prefix + ".comm_groups.json", groups.dump(2) + "\n");
  }
}

}  // namespace simtrain::trace
