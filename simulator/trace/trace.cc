// The Trace's invariants (validate), the per-group rank -> communicator index, and the snake_case names of
// its enums shared by every reader and writer.
#include "simulator/trace/trace.h"

#include <array>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "common/error.h"
#include "common/input_limits.h"
#include "common/number_checks.h"

namespace simtrain::trace {
namespace {

template <typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

constexpr NameTable<OpType, 4> kOpTypeNames{{
    {OpType::Compute, "compute"},
    {OpType::Collective, "collective"},
    {OpType::Send, "send"},
    {OpType::Recv, "recv"},
}};

constexpr NameTable<ComputeKind, 13> kComputeKindNames{{
    {ComputeKind::Gemm, "gemm"},
    {ComputeKind::Conv, "conv"},
    {ComputeKind::BatchNorm, "batch_norm"},
    {ComputeKind::LayerNorm, "layer_norm"},
    {ComputeKind::Pool, "pool"},
    {ComputeKind::Activation, "activation"},
    {ComputeKind::Softmax, "softmax"},
    {ComputeKind::Attention, "attention"},
    {ComputeKind::Elementwise, "elementwise"},
    {ComputeKind::Embedding, "embedding"},
    {ComputeKind::Optimizer, "optimizer"},
    {ComputeKind::Other, "other"},
    {ComputeKind::Host, "host"},
}};

constexpr NameTable<Pass, 5> kPassNames{{
    {Pass::Forward, "forward"},
    {Pass::BackwardData, "backward_data"},
    {Pass::BackwardWeight, "backward_weight"},
    {Pass::Update, "update"},
    {Pass::Other, "other"},
}};

constexpr NameTable<AttentionKernel, 3> kAttentionKernelNames{{
    {AttentionKernel::Fused, "fused"},
    {AttentionKernel::FlashAttention2, "flash2"},
    {AttentionKernel::Triton, "triton"},
}};

constexpr NameTable<CollectiveKind, 7> kCollectiveKindNames{{
    {CollectiveKind::AllReduce, "all_reduce"},
    {CollectiveKind::AllGather, "all_gather"},
    {CollectiveKind::ReduceScatter, "reduce_scatter"},
    {CollectiveKind::AllToAll, "all_to_all"},
    {CollectiveKind::Broadcast, "broadcast"},
    {CollectiveKind::Reduce, "reduce"},
    {CollectiveKind::SendRecv, "sendrecv"},
}};

template <typename Enum, std::size_t N>
std::string_view name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "unknown";
}

template <typename Enum, std::size_t N>
bool parse_name(const NameTable<Enum, N>& table, std::string_view text, Enum& out) {
  for (const auto& [e, name] : table) {
    if (name == text) {
      out = e;
      return true;
    }
  }
  return false;
}

std::string at(const std::string& parent, std::string_view member, std::size_t index) {
  std::string path = parent;
  if (!path.empty()) path += '.';
  path += member;
  return path + "[" + std::to_string(index) + "]";
}

// Sizes and counts must be usable as-is by the cost model: a NaN or negative byte count would silently
// produce a nonsense duration far from where it came from.
void check_amount(double value, const std::string& origin, const std::string& field) {
  checked_number(value, kNonNegative, origin, 0, field);
}

void check_group(std::uint16_t group, const Trace& trace, const std::string& origin,
                 const std::string& field) {
  if (group >= trace.groups.size()) {
    throw Error(origin, 0, field,
                "group " + std::to_string(group) + " out of range (trace has " +
                    std::to_string(trace.groups.size()) + " groups)");
  }
}

void validate_op(const Op& op, std::size_t index, const Program& program, const Trace& trace,
                 const std::string& origin, const std::string& path) {
  if (op.stream >= program.streams.size()) {
    throw Error(origin, 0, path + ".stream",
                "stream " + std::to_string(op.stream) + " out of range (program has " +
                    std::to_string(program.streams.size()) + " streams)");
  }
  for (std::size_t d = 0; d < op.deps.size(); ++d) {
    // Pointing only backwards makes every program a DAG in issue order, so replay needs no cycle check.
    if (op.deps[d] >= index) {
      throw Error(origin, 0, at(path, "deps", d),
                  "dependency " + std::to_string(op.deps[d]) + " must name an earlier op (this is op " +
                      std::to_string(index) + ")");
    }
  }
  switch (op.type) {
    case OpType::Compute:
      check_amount(op.compute.flops, origin, path + ".flops");
      check_amount(op.compute.bytes, origin, path + ".bytes");
      if (!std::isfinite(op.compute.duration_s)) {
        throw Error(origin, 0, path + ".duration_s", "must be finite");
      }
      for (std::size_t s = 0; s < op.compute.shape.size(); ++s) {
        if (op.compute.shape[s] < 0) throw Error(origin, 0, at(path, "shape", s), "must be >= 0");
      }
      break;
    case OpType::Collective:
      check_amount(op.collective.bytes, origin, path + ".bytes");
      check_group(op.collective.group, trace, origin, path + ".group");
      break;
    case OpType::Send:
    case OpType::Recv:
      check_amount(op.p2p.bytes, origin, path + ".bytes");
      check_group(op.p2p.group, trace, origin, path + ".group");
      break;
  }
}

void validate_groups(const Trace& trace, const std::string& origin) {
  if (trace.groups.size() > 65536) {
    throw Error(origin, 0, "groups", "at most 65536 groups fit in an op's group index");
  }
  // CommunicatorIndex holds a table of world_size entries per group.
  if (static_cast<std::int64_t>(trace.groups.size()) * trace.world_size > kMaxGroupRankEntries) {
    throw Error(origin, 0, "groups",
                std::to_string(trace.groups.size()) + " groups of " + std::to_string(trace.world_size) +
                    " ranks exceed the limit of " + std::to_string(kMaxGroupRankEntries) +
                    " group-rank entries");
  }
  // One "seen" array reused for all groups keeps this O(world_size + total communicator size).
  std::vector<int> seen_in_group(static_cast<std::size_t>(trace.world_size), -1);
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    const auto& group = trace.groups[g];
    const std::string group_path = at("", "groups", g);
    for (std::size_t c = 0; c < group.communicators.size(); ++c) {
      const auto& comm = group.communicators[c];
      const std::string comm_path = at(group_path, "communicators", c);
      if (comm.empty()) throw Error(origin, 0, comm_path, "communicator is empty");
      for (std::size_t i = 0; i < comm.size(); ++i) {
        const int rank = comm[i];
        if (rank < 0 || rank >= trace.world_size) {
          throw Error(
              origin, 0, comm_path + "[" + std::to_string(i) + "]",
              "rank " + std::to_string(rank) + " outside [0, " + std::to_string(trace.world_size) + ")");
        }
        if (seen_in_group[rank] == static_cast<int>(g)) {
          throw Error(origin, 0, comm_path + "[" + std::to_string(i) + "]",
                      "rank " + std::to_string(rank) + " appears twice in group \"" + group.name + "\"");
        }
        seen_in_group[rank] = static_cast<int>(g);
      }
    }
  }
}

// One collective as the ranks of a communicator must agree on it, and where it is.
struct CollectiveCall {
  CollectiveKind kind;
  double bytes;
  std::size_t op;  // index in its program
};

// Each program's collectives on each group, in issue order, keyed by (program, group): a map, so that its
// size follows the ops rather than programs x groups.
using CollectivesByGroup = std::map<std::pair<std::uint32_t, std::size_t>, std::vector<CollectiveCall>>;

CollectivesByGroup collectives_by_group(const Trace& trace) {
  CollectivesByGroup calls;
  for (std::uint32_t p = 0; p < trace.programs.size(); ++p) {
    const auto& ops = trace.programs[p].ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].type != OpType::Collective) continue;
      calls[{p, ops[i].collective.group}].push_back({ops[i].collective.kind, ops[i].collective.bytes, i});
    }
  }
  return calls;
}

std::string describe(const std::vector<CollectiveCall>& calls, std::size_t position) {
  if (position >= calls.size()) return "nothing";
  return std::string(to_string(calls[position].kind)) + " of " + shortest_text(calls[position].bytes) +
         " bytes";
}

// The ranks of one communicator issue its collectives in the same order with the same kind and size: NCCL
// (and the replay) match the n-th call of each rank, so a mismatch is a hang or garbage on a real cluster and
// a meaningless prediction here. Ranks running the same program agree by construction; each pair of
// different programs meeting in a communicator is compared once.
void validate_collective_agreement(const Trace& trace, const std::string& origin) {
  if (trace.programs.size() < 2) return;
  auto calls = collectives_by_group(trace);
  std::set<std::tuple<std::size_t, std::uint32_t, std::uint32_t>> compared;
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    const auto& group = trace.groups[g];
    for (std::size_t c = 0; c < group.communicators.size(); ++c) {
      const auto& comm = group.communicators[c];
      const int first = comm.front();
      const std::uint32_t first_program = trace.rank_program[first];
      for (const int rank : comm) {
        const std::uint32_t program = trace.rank_program[rank];
        if (program == first_program || !compared.emplace(g, first_program, program).second) continue;
        const auto& a = calls[{first_program, g}];
        const auto& b = calls[{program, g}];
        for (std::size_t k = 0; k < std::max(a.size(), b.size()); ++k) {
          if (k < a.size() && k < b.size() && a[k].kind == b[k].kind && a[k].bytes == b[k].bytes) continue;
          const std::size_t op = k < b.size() ? b[k].op : a[k].op;
          const std::uint32_t in_program = k < b.size() ? program : first_program;
          throw Error(origin, 0, at(at("", "programs", in_program), "ops", op),
                      "ranks " + std::to_string(first) + " and " + std::to_string(rank) +
                          " of communicator " + std::to_string(c) + " of group \"" + group.name +
                          "\" disagree on their collective #" + std::to_string(k) + ": " + describe(a, k) +
                          " (program " + std::to_string(first_program) + ") vs " + describe(b, k) +
                          " (program " + std::to_string(program) + ")");
        }
      }
    }
  }
}

}  // namespace

std::uint32_t append(Program& program, Op op) {
  if (program.ops.size() >= kMaxOpsPerProgram)
    throw Error("program " + program.name + ": more than " + std::to_string(kMaxOpsPerProgram) +
                " operations per rank, more than one process can simulate (fewer micro-batches or layers)");
  program.ops.push_back(std::move(op));
  return static_cast<std::uint32_t>(program.ops.size() - 1);
}

Trace single_program_trace(Program program, int world_size, std::string group_name) {
  if (world_size < 1 || world_size > kMaxRanks)
    throw Error("--gpus: must be from 1 to " + std::to_string(kMaxRanks) + " ranks, got " +
                std::to_string(world_size));
  Trace trace;
  trace.world_size = world_size;
  trace.programs.push_back(std::move(program));
  trace.rank_program.assign(static_cast<std::size_t>(world_size), 0);
  CommunicatorGroup group;
  group.name = std::move(group_name);
  group.communicators.emplace_back(static_cast<std::size_t>(world_size));
  for (int rank = 0; rank < world_size; ++rank) group.communicators.back()[rank] = rank;
  trace.groups.push_back(std::move(group));
  return trace;
}

std::string_view to_string(OpType type) { return name_of(kOpTypeNames, type); }
std::string_view to_string(ComputeKind kind) { return name_of(kComputeKindNames, kind); }
std::string_view to_string(Pass pass) { return name_of(kPassNames, pass); }
std::string_view to_string(AttentionKernel kernel) { return name_of(kAttentionKernelNames, kernel); }
std::string_view to_string(CollectiveKind kind) { return name_of(kCollectiveKindNames, kind); }
bool parse(std::string_view text, OpType& out) { return parse_name(kOpTypeNames, text, out); }
bool parse(std::string_view text, ComputeKind& out) { return parse_name(kComputeKindNames, text, out); }
bool parse(std::string_view text, Pass& out) { return parse_name(kPassNames, text, out); }
bool parse(std::string_view text, AttentionKernel& out) {
  return parse_name(kAttentionKernelNames, text, out);
}
bool parse(std::string_view text, CollectiveKind& out) { return parse_name(kCollectiveKindNames, text, out); }

CommunicatorIndex::CommunicatorIndex(const Trace& trace) : trace_(&trace) {
  const auto world = static_cast<std::size_t>(trace.world_size > 0 ? trace.world_size : 0);
  comm_of_rank_.assign(trace.groups.size(), std::vector<int>(world, -1));
  position_of_rank_.assign(trace.groups.size(), std::vector<int>(world, -1));
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    const auto& comms = trace.groups[g].communicators;
    for (std::size_t c = 0; c < comms.size(); ++c) {
      for (std::size_t i = 0; i < comms[c].size(); ++i) {
        const int rank = comms[c][i];
        if (rank < 0 || static_cast<std::size_t>(rank) >= world) {
          throw Error("", 0, at(at("", "groups", g), "communicators", c) + "[" + std::to_string(i) + "]",
                      "rank " + std::to_string(rank) + " outside the world");
        }
        comm_of_rank_[g][rank] = static_cast<int>(c);
        position_of_rank_[g][rank] = static_cast<int>(i);
      }
    }
  }
}

const std::vector<int>& CommunicatorIndex::communicator(std::uint16_t group, int rank) const {
  const int comm = (group < comm_of_rank_.size() && rank >= 0 &&
                    static_cast<std::size_t>(rank) < comm_of_rank_[group].size())
                       ? comm_of_rank_[group][rank]
                       : -1;
  if (comm < 0) {
    const std::string name =
        group < trace_->groups.size() ? "\"" + trace_->groups[group].name + "\"" : std::to_string(group);
    throw Error("rank " + std::to_string(rank) + " is in no communicator of group " + name);
  }
  return trace_->groups[group].communicators[comm];
}

int CommunicatorIndex::position(std::uint16_t group, int rank) const {
  communicator(group, rank);  // throws with a clear message when the rank has no communicator
  return position_of_rank_[group][rank];
}

void validate(const Trace& trace, const std::string& origin) {
  if (trace.world_size < 1) {
    throw Error(origin, 0, "world_size", "must be >= 1, got " + std::to_string(trace.world_size));
  }
  if (trace.world_size > kMaxRanks) {
    throw Error(origin, 0, "world_size",
                std::to_string(trace.world_size) + " ranks exceed the limit of " + std::to_string(kMaxRanks));
  }
  if (trace.rank_program.size() != static_cast<std::size_t>(trace.world_size)) {
    throw Error(origin, 0, "rank_program",
                "has " + std::to_string(trace.rank_program.size()) + " entries, world_size is " +
                    std::to_string(trace.world_size));
  }
  for (std::size_t r = 0; r < trace.rank_program.size(); ++r) {
    if (trace.rank_program[r] >= trace.programs.size()) {
      throw Error(origin, 0, at("", "rank_program", r),
                  "program " + std::to_string(trace.rank_program[r]) + " out of range (trace has " +
                      std::to_string(trace.programs.size()) + " programs)");
    }
  }
  const auto& m = trace.metadata;
  check_amount(m.samples_per_iteration, origin, "metadata.samples_per_iteration");
  check_amount(m.tokens_per_iteration, origin, "metadata.tokens_per_iteration");
  check_amount(m.model_flops_per_iteration, origin, "metadata.model_flops_per_iteration");
  check_amount(m.peak_memory_bytes, origin, "metadata.peak_memory_bytes");
  check_amount(m.peak_allocated_bytes, origin, "metadata.peak_allocated_bytes");
  check_amount(m.peak_reserved_bytes, origin, "metadata.peak_reserved_bytes");

  validate_groups(trace, origin);

  // Which groups each program uses (first op naming it), so that every rank running it can be checked
  // for membership once per group rather than once per op.
  std::vector<std::vector<std::pair<std::uint16_t, std::size_t>>> groups_used(trace.programs.size());
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    const auto& program = trace.programs[p];
    const std::string program_path = at("", "programs", p);
    std::vector<bool> used(trace.groups.size(), false);
    for (std::size_t i = 0; i < program.ops.size(); ++i) {
      const Op& op = program.ops[i];
      validate_op(op, i, program, trace, origin, at(program_path, "ops", i));
      if (op.type == OpType::Compute) continue;
      const std::uint16_t g = op.type == OpType::Collective ? op.collective.group : op.p2p.group;
      if (!used[g]) {
        used[g] = true;
        groups_used[p].emplace_back(g, i);
      }
    }
  }

  const CommunicatorIndex index(trace);
  for (std::size_t r = 0; r < trace.rank_program.size(); ++r) {
    const std::uint32_t p = trace.rank_program[r];
    for (const auto& [g, op] : groups_used[p]) {
      try {
        index.communicator(g, static_cast<int>(r));
      } catch (const Error&) {
        throw Error(origin, 0, at(at("", "programs", p), "ops", op) + ".group",
                    "rank " + std::to_string(r) + " runs this program but is in no communicator of group \"" +
                        trace.groups[g].name + "\"");
      }
    }
  }
  validate_collective_agreement(trace, origin);
}

}  // namespace simtrain::trace
