// Conversion between a Trace and its native JSON document (trace_to_json / trace_from_json of
// trace_file.h). Reading is strict: every field is required unless documented optional, and unknown fields
// are errors, so that a misspelt key in a hand-written trace cannot silently fall back to a default.
#include <cstdint>
#include <limits>
#include <unordered_set>

#include "common/error.h"
#include "common/input_limits.h"
#include "simulator/trace/trace_file.h"

namespace simtrain::trace {
namespace {

using nlohmann::json;

// ---- writing ----

// Ranks running `program`, as inclusive [first, last] ranges in rank order.
json rank_ranges(const Trace& trace, std::uint32_t program) {
  json ranges = json::array();
  const int world = static_cast<int>(trace.rank_program.size());
  for (int r = 0; r < world;) {
    if (trace.rank_program[r] != program) {
      ++r;
      continue;
    }
    int last = r;
    while (last + 1 < world && trace.rank_program[last + 1] == program) ++last;
    ranges.push_back(json::array({r, last}));
    r = last + 1;
  }
  return ranges;
}

json op_to_json(const Op& op) {
  json j = {{"name", op.name}, {"type", to_string(op.type)}, {"stream", op.stream}, {"deps", op.deps}};
  switch (op.type) {
    case OpType::Compute:
      j["kind"] = to_string(op.compute.kind);
      j["pass"] = to_string(op.compute.pass);
      j["dtype"] = to_string(op.compute.dtype);
      j["flops"] = op.compute.flops;
      j["bytes"] = op.compute.bytes;
      j["shape"] = op.compute.shape;
      if (op.compute.duration_s >= 0) j["duration_s"] = op.compute.duration_s;
      if (op.compute.unvectorized) j["unvectorized"] = true;
      if (op.compute.kv_tiles > 0) j["kv_tiles"] = op.compute.kv_tiles;
      if (op.compute.attention_kernel != AttentionKernel::Fused)
        j["attention_kernel"] = to_string(op.compute.attention_kernel);
      if (op.compute.split_accumulator) j["split_accumulator"] = true;
      if (op.compute.host_copy) j["host_copy"] = true;
      break;
    case OpType::Collective:
      j["op"] = to_string(op.collective.kind);
      j["dtype"] = to_string(op.collective.dtype);
      j["bytes"] = op.collective.bytes;
      j["group"] = op.collective.group;
      if (op.collective.node_dedup.top_k > 0) {
        j["node_dedup_top_k"] = op.collective.node_dedup.top_k;
        j["node_dedup_experts"] = op.collective.node_dedup.experts;
        if (op.collective.node_dedup.row_bytes > 0)
          j["node_dedup_row_bytes"] = op.collective.node_dedup.row_bytes;
        if (op.collective.node_dedup.phases_in_series) j["node_dedup_phases_in_series"] = true;
      }
      break;
    case OpType::Send:
    case OpType::Recv:
      j["group"] = op.p2p.group;
      j["peer_offset"] = op.p2p.peer_offset;
      j["bytes"] = op.p2p.bytes;
      j["tag"] = op.p2p.tag;
      break;
  }
  return j;
}

// ---- reading ----

// The members of one JSON object, consumed one by one; finish() rejects whatever was not asked for.
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string path, const std::string& origin)
      : j_(j), path_(std::move(path)), origin_(origin) {
    if (!j.is_object()) fail(path_, "expected an object, got " + std::string(j.type_name()));
  }

  const json& required(const std::string& key) {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(path(key), "missing field");
    seen_.insert(key);
    return *it;
  }

  const json* optional(const std::string& key) {
    const auto it = j_.find(key);
    if (it == j_.end()) return nullptr;
    seen_.insert(key);
    return &*it;
  }

  void finish() const {
    for (const auto& [key, value] : j_.items()) {
      if (!seen_.contains(key)) fail(path(key), "unknown field");
    }
  }

  std::string path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw Error(origin_, 0, field, message);
  }

 private:
  const json& j_;
  std::string path_;
  const std::string& origin_;
  std::unordered_set<std::string> seen_;
};

std::string index_path(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string get_string(const json& j, const std::string& origin, const std::string& path) {
  if (!j.is_string()) throw Error(origin, 0, path, "expected a string, got " + std::string(j.type_name()));
  return j.get<std::string>();
}

double get_number(const json& j, const std::string& origin, const std::string& path) {
  if (!j.is_number()) throw Error(origin, 0, path, "expected a number, got " + std::string(j.type_name()));
  return j.get<double>();
}

std::int64_t get_integer(const json& j, const std::string& origin, const std::string& path, std::int64_t lo,
                         std::int64_t hi) {
  if (!j.is_number_integer()) {
    throw Error(origin, 0, path, "expected an integer, got " + std::string(j.dump()));
  }
  const bool too_big = j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
  const std::int64_t value = too_big ? hi : j.get<std::int64_t>();
  if (too_big || value < lo || value > hi) {
    throw Error(origin, 0, path,
                j.dump() + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return value;
}

const json& get_array(const json& j, const std::string& origin, const std::string& path) {
  if (!j.is_array()) throw Error(origin, 0, path, "expected an array, got " + std::string(j.type_name()));
  return j;
}

// Names of every value of an enum whose to_string answers "unknown" past its last value.
template <typename Enum>
std::string names_of() {
  std::string names;
  for (int i = 0;; ++i) {
    const std::string_view name = to_string(static_cast<Enum>(i));
    if (name == "unknown") break;
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  return names;
}

template <typename Enum>
Enum get_enum(const json& j, const std::string& origin, const std::string& path) {
  const std::string text = get_string(j, origin, path);
  Enum value{};
  if (!parse(text, value)) {
    throw Error(origin, 0, path, "unknown name \"" + text + "\" (expected one of " + names_of<Enum>() + ")");
  }
  return value;
}

DType get_dtype(const json& j, const std::string& origin, const std::string& path) {
  const std::string text = get_string(j, origin, path);
  if (const auto dtype = parse_dtype(text)) return *dtype;
  std::string names;
  for (const DType d : kAllDTypes) names += (names.empty() ? "" : ", ") + std::string(to_string(d));
  throw Error(origin, 0, path, "unknown dtype \"" + text + "\" (expected one of " + names + ")");
}

template <typename Int>
std::vector<Int> get_integers(const json& j, const std::string& origin, const std::string& path) {
  std::vector<Int> values;
  for (std::size_t i = 0; i < get_array(j, origin, path).size(); ++i) {
    values.push_back(
        static_cast<Int>(get_integer(j[i], origin, index_path(path, i), std::numeric_limits<Int>::min(),
                                     std::numeric_limits<Int>::max())));
  }
  return values;
}

TraceMetadata read_metadata(const json& j, const std::string& origin) {
  ObjectReader in(j, "metadata", origin);
  TraceMetadata m;
  m.model = get_string(in.required("model"), origin, in.path("model"));
  m.generator = get_string(in.required("generator"), origin, in.path("generator"));
  m.parallelism = get_string(in.required("parallelism"), origin, in.path("parallelism"));
  const auto number = [&](const char* key) { return get_number(in.required(key), origin, in.path(key)); };
  m.samples_per_iteration = number("samples_per_iteration");
  m.tokens_per_iteration = number("tokens_per_iteration");
  m.model_flops_per_iteration = number("model_flops_per_iteration");
  m.peak_memory_bytes = number("peak_memory_bytes");
  m.compute_dtype = get_dtype(in.required("compute_dtype"), origin, in.path("compute_dtype"));
  if (const json* gpu = in.optional("recorded_gpu"))
    m.recorded_gpu = get_string(*gpu, origin, in.path("recorded_gpu"));
  if (const json* a = in.optional("peak_allocated_bytes"))
    m.peak_allocated_bytes = get_number(*a, origin, in.path("peak_allocated_bytes"));
  if (const json* r = in.optional("peak_reserved_bytes"))
    m.peak_reserved_bytes = get_number(*r, origin, in.path("peak_reserved_bytes"));
  if (const json* parts = in.optional("memory_breakdown_bytes")) {
    if (!parts->is_object() || parts->size() > 16)
      throw Error(origin, 0, in.path("memory_breakdown_bytes"),
                  "expected an object of at most 16 byte counts");
    for (const auto& [key, value] : parts->items())
      m.memory_breakdown_bytes[key] =
          get_number(value, origin, in.path("memory_breakdown_bytes") + "." + key);
  }
  in.finish();
  return m;
}

Op read_op(const json& j, const std::string& origin, const std::string& path) {
  ObjectReader in(j, path, origin);
  Op op;
  op.name = get_string(in.required("name"), origin, in.path("name"));
  op.type = get_enum<OpType>(in.required("type"), origin, in.path("type"));
  op.stream =
      static_cast<std::uint8_t>(get_integer(in.required("stream"), origin, in.path("stream"), 0, 255));
  op.deps = get_integers<std::uint32_t>(in.required("deps"), origin, in.path("deps"));
  const auto number = [&](const char* key) { return get_number(in.required(key), origin, in.path(key)); };
  const auto group = [&] {
    return static_cast<std::uint16_t>(get_integer(in.required("group"), origin, in.path("group"), 0, 65535));
  };
  switch (op.type) {
    case OpType::Compute:
      op.compute.kind = get_enum<ComputeKind>(in.required("kind"), origin, in.path("kind"));
      op.compute.pass = get_enum<Pass>(in.required("pass"), origin, in.path("pass"));
      op.compute.dtype = get_dtype(in.required("dtype"), origin, in.path("dtype"));
      op.compute.flops = number("flops");
      op.compute.bytes = number("bytes");
      op.compute.shape = get_integers<std::int64_t>(in.required("shape"), origin, in.path("shape"));
      if (const json* duration = in.optional("duration_s")) {
        op.compute.duration_s = get_number(*duration, origin, in.path("duration_s"));
        if (op.compute.duration_s < 0) in.fail(in.path("duration_s"), "must be >= 0 (omit it when unknown)");
      }
      if (const json* unvectorized = in.optional("unvectorized")) {
        if (!unvectorized->is_boolean()) in.fail(in.path("unvectorized"), "expected true or false");
        op.compute.unvectorized = unvectorized->get<bool>();
      }
      if (const json* kv_tiles = in.optional("kv_tiles")) {
        op.compute.kv_tiles = get_number(*kv_tiles, origin, in.path("kv_tiles"));
        if (!(op.compute.kv_tiles >= 1 && op.compute.kv_tiles <= 1e7))
          in.fail(in.path("kv_tiles"), "must be in [1, 1e7] (omit it when unknown)");
      }
      if (const json* attention = in.optional("attention_kernel")) {
        if (op.compute.kind != ComputeKind::Attention)
          in.fail(in.path("attention_kernel"), "only an attention kernel has an attention implementation");
        op.compute.attention_kernel =
            get_enum<AttentionKernel>(*attention, origin, in.path("attention_kernel"));
      }
      if (const json* split = in.optional("split_accumulator")) {
        if (!split->is_boolean()) in.fail(in.path("split_accumulator"), "expected true or false");
        if (op.compute.kind != ComputeKind::Gemm)
          in.fail(in.path("split_accumulator"), "only a GEMM accumulates in split precision");
        op.compute.split_accumulator = split->get<bool>();
      }
      if (const json* host_copy = in.optional("host_copy")) {
        if (!host_copy->is_boolean()) in.fail(in.path("host_copy"), "expected true or false");
        op.compute.host_copy = host_copy->get<bool>();
      }
      break;
    case OpType::Collective:
      op.collective.kind = get_enum<CollectiveKind>(in.required("op"), origin, in.path("op"));
      op.collective.dtype = get_dtype(in.required("dtype"), origin, in.path("dtype"));
      op.collective.bytes = number("bytes");
      op.collective.group = group();
      if (const json* top_k = in.optional("node_dedup_top_k")) {
        if (op.collective.kind != CollectiveKind::AllToAll)
          in.fail(in.path("node_dedup_top_k"), "only an all_to_all is routed per node");
        op.collective.node_dedup.top_k =
            static_cast<std::uint16_t>(get_integer(*top_k, origin, in.path("node_dedup_top_k"), 1, 1024));
        op.collective.node_dedup.experts = static_cast<std::uint32_t>(
            get_integer(in.required("node_dedup_experts"), origin, in.path("node_dedup_experts"),
                        op.collective.node_dedup.top_k, 1 << 20));
        if (const json* row_bytes = in.optional("node_dedup_row_bytes"))
          op.collective.node_dedup.row_bytes = static_cast<std::uint32_t>(
              get_integer(*row_bytes, origin, in.path("node_dedup_row_bytes"), 1, 1 << 24));
        if (const json* series = in.optional("node_dedup_phases_in_series")) {
          if (!series->is_boolean())
            in.fail(in.path("node_dedup_phases_in_series"), "expected true or false");
          op.collective.node_dedup.phases_in_series = series->get<bool>();
        }
      } else if (in.optional("node_dedup_phases_in_series")) {
        in.fail(in.path("node_dedup_phases_in_series"), "needs node_dedup_top_k");
      }
      break;
    case OpType::Send:
    case OpType::Recv:
      op.p2p.group = group();
      op.p2p.peer_offset = static_cast<std::int32_t>(
          get_integer(in.required("peer_offset"), origin, in.path("peer_offset"), INT32_MIN, INT32_MAX));
      op.p2p.bytes = number("bytes");
      op.p2p.tag = static_cast<std::int32_t>(
          get_integer(in.required("tag"), origin, in.path("tag"), INT32_MIN, INT32_MAX));
      break;
  }
  in.finish();
  return op;
}

Program read_program(const json& j, const std::string& origin, const std::string& path) {
  ObjectReader in(j, path, origin);
  Program program;
  program.name = get_string(in.required("name"), origin, in.path("name"));
  const json& streams = get_array(in.required("streams"), origin, in.path("streams"));
  for (std::size_t i = 0; i < streams.size(); ++i) {
    program.streams.push_back(get_string(streams[i], origin, index_path(in.path("streams"), i)));
  }
  const json& ops = get_array(in.required("ops"), origin, in.path("ops"));
  program.ops.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    program.ops.push_back(read_op(ops[i], origin, index_path(in.path("ops"), i)));
  }
  in.finish();
  return program;
}

CommunicatorGroup read_group(const json& j, const std::string& origin, const std::string& path) {
  ObjectReader in(j, path, origin);
  CommunicatorGroup group;
  group.name = get_string(in.required("name"), origin, in.path("name"));
  const json& comms = get_array(in.required("communicators"), origin, in.path("communicators"));
  for (std::size_t c = 0; c < comms.size(); ++c) {
    group.communicators.push_back(
        get_integers<int>(comms[c], origin, index_path(in.path("communicators"), c)));
  }
  in.finish();
  return group;
}

// Expands the inclusive rank ranges into Trace::rank_program, insisting that every rank gets exactly one.
void read_rank_programs(const json& j, const std::string& origin, Trace& trace) {
  constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();
  trace.rank_program.assign(static_cast<std::size_t>(trace.world_size), kUnset);
  get_array(j, origin, "rank_programs");
  for (std::size_t e = 0; e < j.size(); ++e) {
    ObjectReader in(j[e], index_path("rank_programs", e), origin);
    const auto program =
        static_cast<std::uint32_t>(get_integer(in.required("program"), origin, in.path("program"), 0,
                                               static_cast<std::int64_t>(trace.programs.size()) - 1));
    const json& ranges = get_array(in.required("ranks"), origin, in.path("ranks"));
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const std::string path = index_path(in.path("ranks"), i);
      const auto bounds = get_integers<int>(ranges[i], origin, path);
      if (bounds.size() != 2 || bounds[0] > bounds[1] || bounds[0] < 0 || bounds[1] >= trace.world_size) {
        in.fail(path, "expected [first, last] with 0 <= first <= last < world_size (" +
                          std::to_string(trace.world_size) + "), got " + ranges[i].dump());
      }
      for (int r = bounds[0]; r <= bounds[1]; ++r) {
        if (trace.rank_program[r] != kUnset)
          in.fail(path, "rank " + std::to_string(r) + " already has a program");
        trace.rank_program[r] = program;
      }
    }
    in.finish();
  }
  for (std::size_t r = 0; r < trace.rank_program.size(); ++r) {
    if (trace.rank_program[r] == kUnset) {
      throw Error(origin, 0, "rank_programs", "rank " + std::to_string(r) + " has no program");
    }
  }
}

}  // namespace

json trace_to_json(const Trace& trace) {
  const auto& m = trace.metadata;
  json doc = {
      {"schema", kTraceSchemaName},
      {"version", Trace::kSchemaVersion},
      {"world_size", trace.world_size},
      {"metadata",
       {{"model", m.model},
        {"generator", m.generator},
        {"parallelism", m.parallelism},
        {"samples_per_iteration", m.samples_per_iteration},
        {"tokens_per_iteration", m.tokens_per_iteration},
        {"model_flops_per_iteration", m.model_flops_per_iteration},
        {"peak_memory_bytes", m.peak_memory_bytes},
        {"compute_dtype", to_string(m.compute_dtype)}}},
  };
  if (!m.recorded_gpu.empty()) doc["metadata"]["recorded_gpu"] = m.recorded_gpu;
  // Optional, so that traces written before these estimates existed read back byte-identical.
  if (m.peak_allocated_bytes > 0) doc["metadata"]["peak_allocated_bytes"] = m.peak_allocated_bytes;
  if (m.peak_reserved_bytes > 0) doc["metadata"]["peak_reserved_bytes"] = m.peak_reserved_bytes;
  if (!m.memory_breakdown_bytes.empty()) doc["metadata"]["memory_breakdown_bytes"] = m.memory_breakdown_bytes;
  json& groups = doc["groups"] = json::array();
  for (const auto& group : trace.groups) {
    groups.push_back({{"name", group.name}, {"communicators", group.communicators}});
  }
  json& programs = doc["programs"] = json::array();
  for (const auto& program : trace.programs) {
    json ops = json::array();
    for (const auto& op : program.ops) ops.push_back(op_to_json(op));
    programs.push_back({{"name", program.name}, {"streams", program.streams}, {"ops", std::move(ops)}});
  }
  json& rank_programs = doc["rank_programs"] = json::array();
  for (std::uint32_t p = 0; p < trace.programs.size(); ++p) {
    json ranges = rank_ranges(trace, p);
    if (!ranges.empty()) rank_programs.push_back({{"program", p}, {"ranks", std::move(ranges)}});
  }
  return doc;
}

Trace trace_from_json(const json& document, const std::string& origin) {
  ObjectReader in(document, "", origin);
  // Schema and version first: a document of another kind should say so, not list its fields as unknown.
  const json& schema = in.required("schema");
  if (!schema.is_string() || schema.get<std::string>() != kTraceSchemaName) {
    in.fail("schema", "expected \"" + std::string(kTraceSchemaName) + "\", got " + schema.dump());
  }
  const json& version = in.required("version");
  if (!version.is_number_integer() || version.get<std::int64_t>() != Trace::kSchemaVersion) {
    in.fail("version", "unsupported version " + version.dump() + " (this simtrain reads version " +
                           std::to_string(Trace::kSchemaVersion) + ")");
  }
  Trace trace;
  // Bounded before anything is sized by it (common/input_limits.h).
  trace.world_size =
      static_cast<int>(get_integer(in.required("world_size"), origin, "world_size", 1, kMaxRanks));
  trace.metadata = read_metadata(in.required("metadata"), origin);
  const json& groups = get_array(in.required("groups"), origin, "groups");
  for (std::size_t g = 0; g < groups.size(); ++g) {
    trace.groups.push_back(read_group(groups[g], origin, index_path("groups", g)));
  }
  const json& programs = get_array(in.required("programs"), origin, "programs");
  for (std::size_t p = 0; p < programs.size(); ++p) {
    trace.programs.push_back(read_program(programs[p], origin, index_path("programs", p)));
  }
  read_rank_programs(in.required("rank_programs"), origin, trace);
  in.finish();
  validate(trace, origin);
  return trace;
}

}  // namespace simtrain::trace
