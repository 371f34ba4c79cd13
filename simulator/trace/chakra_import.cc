// Implements the reading half of chakra_trace.h: Chakra nodes of every rank's file into ops, communicators
// from the pg_ranks attributes, and programs shared by the ranks whose files say the same.
#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "chakra_et.pb.h"
#include "common/error.h"
#include "common/input_limits.h"
#include "simulator/trace/chakra_stream.h"
#include "simulator/trace/chakra_trace.h"
#include "simulator/trace/dependency_pruning.h"
#include "simulator/trace/gzip.h"

namespace simtrain::trace {
namespace {

namespace pb = simtrain::chakra;

// The attributes of a node that simtrain reads, whatever integer type the writer chose for them.
struct NodeAttributes {
  std::map<std::string, std::int64_t> integers;
  std::map<std::string, double> doubles;
  std::map<std::string, std::string> strings;
  std::map<std::string, std::vector<std::int64_t>> integer_lists;

  std::optional<std::int64_t> integer(const std::string& name) const {
    const auto it = integers.find(name);
    return it == integers.end() ? std::nullopt : std::optional(it->second);
  }
};

NodeAttributes attributes_of(const pb::Node& node) {
  NodeAttributes out;
  for (const pb::AttributeProto& a : node.attr()) {
    using A = pb::AttributeProto;
    switch (a.value_case()) {
      case A::kInt32Val: out.integers[a.name()] = a.int32_val(); break;
      case A::kInt64Val: out.integers[a.name()] = a.int64_val(); break;
      case A::kUint32Val: out.integers[a.name()] = a.uint32_val(); break;
      case A::kUint64Val:
        out.integers[a.name()] = static_cast<std::int64_t>(
            std::min<std::uint64_t>(a.uint64_val(), std::numeric_limits<std::int64_t>::max()));
        break;
      case A::kSint32Val: out.integers[a.name()] = a.sint32_val(); break;
      case A::kSint64Val: out.integers[a.name()] = a.sint64_val(); break;
      case A::kFixed32Val: out.integers[a.name()] = a.fixed32_val(); break;
      case A::kSfixed32Val: out.integers[a.name()] = a.sfixed32_val(); break;
      case A::kSfixed64Val: out.integers[a.name()] = a.sfixed64_val(); break;
      case A::kBoolVal: out.integers[a.name()] = a.bool_val() ? 1 : 0; break;
      case A::kDoubleVal: out.doubles[a.name()] = a.double_val(); break;
      case A::kFloatVal: out.doubles[a.name()] = a.float_val(); break;
      case A::kStringVal: out.strings[a.name()] = a.string_val(); break;
      case A::kInt64List:
        out.integer_lists[a.name()].assign(a.int64_list().values().begin(), a.int64_list().values().end());
        break;
      default: break;
    }
  }
  return out;
}

std::uint8_t stream_index(Program& program, const std::string& name) {
  for (std::size_t i = 0; i < program.streams.size(); ++i)
    if (program.streams[i] == name) return static_cast<std::uint8_t>(i);
  program.streams.push_back(name);
  return static_cast<std::uint8_t>(program.streams.size() - 1);
}

struct RankReader {
  const std::string& origin;
  int rank;
  int world;
  std::map<std::vector<int>, int>& communicator_ids;  // communicator -> id, shared by all ranks
  std::vector<std::pair<std::uint32_t, int>> collective_communicators;  // (op, communicator id)
  bool warned_group_without_ranks = false;
  std::vector<std::string>& warnings;

  [[noreturn]] void fail(const pb::Node& node, const std::string& message) const {
    throw Error(origin, 0, "node " + std::to_string(node.id()) + (node.name().empty() ? "" : " (" + node.name() + ")"),
                message);
  }

  double checked_bytes(const pb::Node& node, std::int64_t value, const char* what) const {
    if (value < 0 || static_cast<double>(value) > kMaxBytes) fail(node, std::string(what) + ": out of range");
    return static_cast<double>(value);
  }

  void compute(const pb::Node& node, const NodeAttributes& attrs, Program& program, Op& op) const {
    op.type = OpType::Compute;
    ComputeSpec& c = op.compute;
    const bool cpu = attrs.integer("is_cpu_op").value_or(0) != 0;
    c.kind = cpu ? ComputeKind::Host : ComputeKind::Other;
    if (auto it = attrs.strings.find("simtrain_kind"); it != attrs.strings.end() && !parse(it->second, c.kind))
      fail(node, "simtrain_kind: unknown kind \"" + it->second + "\"");
    if (auto it = attrs.strings.find("simtrain_pass"); it != attrs.strings.end() && !parse(it->second, c.pass))
      fail(node, "simtrain_pass: unknown pass \"" + it->second + "\"");
    if (auto it = attrs.strings.find("simtrain_dtype"); it != attrs.strings.end()) {
      const auto dtype = parse_dtype(it->second);
      if (!dtype) fail(node, "simtrain_dtype: unknown dtype \"" + it->second + "\"");
      c.dtype = *dtype;
    }
    if (auto it = attrs.integer_lists.find("simtrain_shape"); it != attrs.integer_lists.end()) {
      if (it->second.size() > 16) fail(node, "simtrain_shape: more than 16 dimensions");
      c.shape = it->second;
    }
    c.flops = checked_bytes(node, attrs.integer("num_ops").value_or(0), "num_ops");
    c.bytes = checked_bytes(node, attrs.integer("tensor_size").value_or(0), "tensor_size");
    if (auto it = attrs.doubles.find("simtrain_duration_s"); it != attrs.doubles.end())
      c.duration_s = it->second;
    else if (node.duration_micros() > 0)
      c.duration_s = static_cast<double>(node.duration_micros()) * 1e-6;
    else if (c.flops == 0 && c.bytes == 0)
      c.duration_s = 0;  // nothing to cost: a node kept for its dependencies
    if (!(c.duration_s == -1 || (c.duration_s >= 0 && c.duration_s <= kMaxDuration_s)))
      fail(node, "duration out of range [0, 1e6] s");
    op.stream = stream_index(program, cpu ? "host" : "compute");
  }

  void collective(const pb::Node& node, const NodeAttributes& attrs, Program& program, Op& op) {
    op.type = OpType::Collective;
    const auto type = attrs.integer("comm_type");
    if (!type) fail(node, "comm_type: missing on a COMM_COLL_NODE");
    switch (*type) {
      case pb::ALL_REDUCE: op.collective.kind = CollectiveKind::AllReduce; break;
      case pb::REDUCE: op.collective.kind = CollectiveKind::Reduce; break;
      case pb::ALL_GATHER: op.collective.kind = CollectiveKind::AllGather; break;
      case pb::BROADCAST: op.collective.kind = CollectiveKind::Broadcast; break;
      case pb::ALL_TO_ALL: op.collective.kind = CollectiveKind::AllToAll; break;
      case pb::REDUCE_SCATTER:
      case pb::REDUCE_SCATTER_BLOCK: op.collective.kind = CollectiveKind::ReduceScatter; break;
      case pb::BARRIER: op.collective.kind = CollectiveKind::AllReduce; break;  // NCCL's barrier: one element
      default: fail(node, "comm_type: " + std::to_string(*type) + " is no collective simtrain models (gather, scatter)");
    }
    // A barrier or an empty buffer still synchronises the ranks: one element's worth.
    op.collective.bytes = std::max(4.0, checked_bytes(node, attrs.integer("comm_size").value_or(0), "comm_size"));
    if (auto it = attrs.strings.find("simtrain_dtype"); it != attrs.strings.end())
      if (auto dtype = parse_dtype(it->second)) op.collective.dtype = *dtype;
    std::vector<int> communicator;
    if (auto it = attrs.integer_lists.find("pg_ranks"); it != attrs.integer_lists.end()) {
      if (it->second.empty() || it->second.size() > static_cast<std::size_t>(world))
        fail(node, "pg_ranks: between 1 and " + std::to_string(world) + " ranks expected");
      std::vector<bool> seen(world, false);
      for (std::int64_t r : it->second) {
        if (r < 0 || r >= world || seen[r]) fail(node, "pg_ranks: rank " + std::to_string(r) + " out of range or repeated");
        seen[r] = true;
        communicator.push_back(static_cast<int>(r));
      }
      if (!seen[rank]) fail(node, "pg_ranks: does not hold this file's rank " + std::to_string(rank));
    } else {
      if (attrs.strings.contains("pg_name") && !warned_group_without_ranks) {
        warned_group_without_ranks = true;
        warnings.push_back(origin + ": collectives name a process group (pg_name) without its ranks; they are "
                                    "taken to span all ranks");
      }
      for (int r = 0; r < world; ++r) communicator.push_back(r);
    }
    const int id = communicator_ids.emplace(communicator, static_cast<int>(communicator_ids.size())).first->second;
    collective_communicators.emplace_back(static_cast<std::uint32_t>(program.ops.size()), id);
    op.stream = stream_index(program, "comm");
  }

  void point_to_point(const pb::Node& node, const NodeAttributes& attrs, Program& program, Op& op) const {
    const bool send = node.type() == pb::COMM_SEND_NODE;
    op.type = send ? OpType::Send : OpType::Recv;
    const char* peer_name = send ? "comm_dst" : "comm_src";
    const auto peer = attrs.integer(peer_name);
    if (!peer || *peer < 0 || *peer >= world || *peer == rank)
      fail(node, std::string(peer_name) + ": missing, or not another rank in [0, " + std::to_string(world) + ")");
    op.p2p.group = 0;  // the world communicator, in rank order
    op.p2p.peer_offset = static_cast<std::int32_t>(*peer - rank);
    op.p2p.bytes = std::max(1.0, checked_bytes(node, attrs.integer("comm_size").value_or(0), "comm_size"));
    const std::int64_t tag = attrs.integer("comm_tag").value_or(0);
    if (tag < std::numeric_limits<std::int32_t>::min() || tag > std::numeric_limits<std::int32_t>::max())
      fail(node, "comm_tag: out of range");
    op.p2p.tag = static_cast<std::int32_t>(tag);
    op.stream = stream_index(program, send ? "send" : "recv");
  }

  Program read(const std::string& bytes) {
    ChakraMessageReader reader(bytes, origin);
    const auto header = reader.next();
    pb::GlobalMetadata metadata;
    if (!header || !metadata.ParseFromArray(header->data(), static_cast<int>(header->size())))
      throw Error(origin, 0, "", "does not start with a Chakra GlobalMetadata message");
    Program program;
    program.name = "rank" + std::to_string(rank);
    std::unordered_map<std::uint64_t, std::uint32_t> index_of;
    while (const auto message = reader.next()) {
      pb::Node node;
      if (!node.ParseFromArray(message->data(), static_cast<int>(message->size())))
        throw Error(origin, 0, "", "the message ending at byte " + std::to_string(reader.offset()) +
                                       " is not a Chakra Node");
      const NodeAttributes attrs = attributes_of(node);
      Op op;
      op.name = node.name().empty() ? "node " + std::to_string(node.id()) : node.name();
      std::vector<std::uint32_t> deps;
      for (const auto* list : {&node.data_deps(), &node.ctrl_deps()})
        for (std::uint64_t d : *list) {
          const auto it = index_of.find(d);
          if (it == index_of.end())
            fail(node, "depends on node " + std::to_string(d) + ", which is not an earlier node of the file");
          deps.push_back(it->second);
        }
      switch (node.type()) {
        case pb::COMP_NODE: compute(node, attrs, program, op); break;
        case pb::COMM_COLL_NODE: collective(node, attrs, program, op); break;
        case pb::COMM_SEND_NODE:
        case pb::COMM_RECV_NODE: point_to_point(node, attrs, program, op); break;
        case pb::METADATA_NODE:
        case pb::MEM_LOAD_NODE:
        case pb::MEM_STORE_NODE:
          // Kept as an instant op so that the dependencies through it hold; memory traffic is not modelled.
          op.type = OpType::Compute;
          op.compute.duration_s = 0;
          op.stream = stream_index(program, "compute");
          break;
        default: fail(node, "type: unknown node type " + std::to_string(node.type()));
      }
      op.deps = minimal_dependencies(program, op.stream, deps);
      const std::uint32_t index = append(program, std::move(op));
      if (!index_of.emplace(node.id(), index).second) fail(node, "id: appears twice in the file");
    }
    return program;
  }
};

std::string trace_stem(const std::string& origin) {
  std::string stem = origin.substr(origin.find_last_of('/') + 1);
  for (const char* suffix : {".gz", ".et"})
    if (stem.ends_with(suffix)) stem.resize(stem.size() - std::string_view(suffix).size());
  // "<prefix>.<rank>" as ASTRA-sim's workload names them.
  if (const auto dot = stem.find_last_of('.'); dot != std::string::npos &&
                                               stem.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    stem.resize(dot);
  return stem.empty() ? "chakra" : stem;
}

}  // namespace

bool looks_like_chakra(const std::string& bytes) {
  try {
    ChakraMessageReader reader(bytes, "");
    const auto header = reader.next();
    pb::GlobalMetadata metadata;
    if (!header || header->empty() || static_cast<unsigned char>((*header)[0]) != 0x0a) return false;
    if (!metadata.ParseFromArray(header->data(), static_cast<int>(header->size()))) return false;
    if (metadata.version().empty() || !metadata.GetReflection()->GetUnknownFields(metadata).empty()) return false;
    return std::all_of(metadata.version().begin(), metadata.version().end(),
                       [](char c) { return c >= 0x20 && c < 0x7f; });
  } catch (const Error&) {
    return false;
  }
}

Trace import_chakra(const std::vector<std::string>& rank_files_bytes, const std::vector<std::string>& origins,
                    ImportReport& report) {
  report.format = TraceFormat::ChakraProtobuf;
  if (rank_files_bytes.empty() || rank_files_bytes.size() != origins.size())
    throw Error("Chakra import: one file per rank expected, with a name for each");
  if (static_cast<std::int64_t>(rank_files_bytes.size()) > kMaxRanks)
    throw Error(origins[0], 0, "", "more than 2^20 rank files");
  const int world = static_cast<int>(rank_files_bytes.size());

  Trace trace;
  trace.world_size = world;
  std::map<std::vector<int>, int> communicator_ids;
  std::vector<int> world_ranks(world);
  for (int r = 0; r < world; ++r) world_ranks[r] = r;
  communicator_ids.emplace(world_ranks, 0);
  std::vector<Program> programs(world);
  std::vector<std::vector<std::pair<std::uint32_t, int>>> collectives(world);
  for (int r = 0; r < world; ++r) {
    const std::string& raw = rank_files_bytes[r];
    const std::string bytes = has_gzip_magic(raw) ? gunzip(raw, origins[r], kMaxDecompressedBytes) : std::string();
    RankReader reader{origins[r], r, world, communicator_ids, {}, false, report.warnings};
    programs[r] = reader.read(has_gzip_magic(raw) ? bytes : raw);
    collectives[r] = std::move(reader.collective_communicators);
  }

  // Communicators into groups: the world is group 0; the others go, in order of first use, into the first
  // group none of whose communicators shares a rank with them (all data-parallel groups become one family).
  std::vector<std::vector<int>> by_id(communicator_ids.size());
  for (const auto& [ranks, id] : communicator_ids) by_id[id] = ranks;
  std::vector<std::uint16_t> group_of(by_id.size(), 0);
  std::vector<std::vector<bool>> group_ranks;
  trace.groups.push_back({"world", {world_ranks}});
  group_ranks.push_back(std::vector<bool>(world, true));
  for (std::size_t id = 1; id < by_id.size(); ++id) {
    std::size_t g = 1;
    for (; g < trace.groups.size(); ++g)
      if (std::none_of(by_id[id].begin(), by_id[id].end(), [&](int r) { return group_ranks[g][r]; })) break;
    if (g == trace.groups.size()) {
      if (g > std::numeric_limits<std::uint16_t>::max())
        throw Error(origins[0], 0, "", "more than 65,535 communicator groups");
      trace.groups.push_back({"pg" + std::to_string(g), {}});
      group_ranks.emplace_back(world, false);
    }
    trace.groups[g].communicators.push_back(by_id[id]);
    for (int r : by_id[id]) group_ranks[g][r] = true;
    group_of[id] = static_cast<std::uint16_t>(g);
  }
  for (int r = 0; r < world; ++r)
    for (const auto& [op, id] : collectives[r]) programs[r].ops[op].collective.group = group_of[id];

  // Ranks whose files describe the same program share one.
  trace.rank_program.resize(world);
  for (int r = 0; r < world; ++r) {
    std::size_t p = 0;
    for (; p < trace.programs.size(); ++p)
      if (trace.programs[p].streams == programs[r].streams && trace.programs[p].ops == programs[r].ops) break;
    if (p == trace.programs.size()) trace.programs.push_back(std::move(programs[r]));
    trace.rank_program[r] = static_cast<std::uint32_t>(p);
  }

  trace.metadata.model = trace_stem(origins[0]);
  trace.metadata.generator = "chakra import";
  trace.metadata.parallelism = "as recorded";
  validate(trace, origins[0]);
  return trace;
}

}  // namespace simtrain::trace
