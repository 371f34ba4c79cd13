// Implements pytorch_et_import.h: parse and check the nodes, walk the call tree for the operators that
// launch kernels, keep the last profiler step, and connect kernels and collectives by tensor data flow.
#include "simulator/trace/pytorch_et_import.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "common/error.h"
#include "simulator/trace/aten_kernels.h"
#include "simulator/trace/dependency_pruning.h"
#include "simulator/trace/trace_file.h"

namespace simtrain::trace {
namespace {

using nlohmann::json;

// The ExecutionTraceObserver schemas whose node layout this reader knows (those Chakra's converter accepts).
constexpr std::string_view kSupportedSchemas[] = {"1.0.2", "1.0.3", "1.1.0", "1.1.1"};

// A tensor's sizes can be large, but not so large that products of a few of them stop being exact doubles.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;

struct EtNode {
  std::int64_t id = 0;
  std::int64_t parent = 0;
  std::string name;
  AtenOperator op;
};

class NodeParser {
 public:
  NodeParser(const std::string& origin, std::int64_t id, const std::string& name)
      : origin_(origin), where_("node " + std::to_string(id) + (name.empty() ? "" : " (" + name + ")")) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw Error(origin_, 0, where_, field + ": " + message);
  }

  std::vector<AtenValue> values(const json& node, const char* key, const std::vector<std::string>& names) const {
    const auto it = node.find(key);
    if (it == node.end()) return {};
    if (!it->is_object()) fail(key, "expected an object with values, shapes and types");
    const json& values = field_array(*it, key, "values");
    const json& shapes = field_array(*it, key, "shapes");
    const json& types = field_array(*it, key, "types");
    if (values.size() != shapes.size() || values.size() != types.size())
      fail(key, "values, shapes and types differ in length (" + std::to_string(values.size()) + ", " +
                    std::to_string(shapes.size()) + ", " + std::to_string(types.size()) + ")");
    std::vector<AtenValue> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::string field = std::string(key) + "[" + std::to_string(i) + "]";
      if (!types[i].is_string()) fail(field, "type is not a string");
      const std::string& type = types[i].get_ref<const std::string&>();
      AtenValue& v = out[i];
      if (i < names.size()) v.name = names[i];
      if (type.starts_with("Tensor(")) {
        v.tensors.push_back(tensor(values[i], shapes[i], type, field));
      } else if (type.starts_with("GenericList[Tensor")) {
        v.is_tensor_list = true;
        if (!values[i].is_array() || !shapes[i].is_array() || values[i].size() != shapes[i].size())
          fail(field, "a tensor list's values and shapes are not lists of equal length");
        for (std::size_t j = 0; j < values[i].size(); ++j)
          v.tensors.push_back(tensor(values[i][j], shapes[i][j], element_type(type, j), field));
      } else {
        scalar(values[i], v);
      }
    }
    return out;
  }

 private:
  const json& field_array(const json& object, const char* key, const char* name) const {
    const auto it = object.find(name);
    if (it == object.end() || !it->is_array()) fail(std::string(key) + "." + name, "expected an array");
    return *it;
  }

  // The i-th element type of "GenericList[Tensor(float),Tensor(c10::Half)]".
  static std::string element_type(const std::string& list_type, std::size_t i) {
    std::size_t pos = list_type.find('[') + 1;
    for (std::size_t k = 0; k < i && pos != std::string::npos; ++k) {
      pos = list_type.find("),", pos);
      if (pos != std::string::npos) pos += 2;
    }
    return pos == std::string::npos ? std::string() : list_type.substr(pos);
  }

  static std::optional<DType> dtype_of(const std::string& type) {
    if (type.starts_with("Tensor(float)")) return DType::FP32;
    if (type.starts_with("Tensor(double)")) return DType::FP32;
    if (type.starts_with("Tensor(c10::Half)")) return DType::FP16;
    if (type.starts_with("Tensor(c10::BFloat16)")) return DType::BF16;
    if (type.starts_with("Tensor(c10::Float8")) return DType::FP8;
    return std::nullopt;
  }

  static bool is_integer(const json& j) { return j.is_number_integer(); }

  AtenTensor tensor(const json& value, const json& shape, const std::string& type, const std::string& field) const {
    if (!value.is_array() || value.size() != 6 || !is_integer(value[0]) || !is_integer(value[1]) ||
        !is_integer(value[2]) || !is_integer(value[3]) || !is_integer(value[4]) || !value[5].is_string())
      fail(field, "a tensor is [tensor_id, storage_id, offset, numel, element_bytes, device]");
    AtenTensor t;
    t.id = value[0].get<std::int64_t>();
    t.storage = value[1].get<std::int64_t>();
    const std::int64_t element_bytes = value[4].get<std::int64_t>();
    if (element_bytes < 0 || element_bytes > 64) fail(field, "element_bytes out of range [0, 64]");
    t.element_bytes = static_cast<int>(element_bytes);
    t.on_gpu = value[5].get_ref<const std::string&>().starts_with("cuda");
    t.dtype = dtype_of(type);
    if (!shape.is_array()) fail(field, "a tensor's shape is not a list of sizes");
    for (const json& d : shape) {
      if (!is_integer(d) || d.get<std::int64_t>() < 0 || d.get<std::int64_t>() > kMaxDimension)
        fail(field, "a tensor's shape is not a list of sizes in [0, 2^40]");
      t.shape.push_back(d.get<std::int64_t>());
    }
    return t;
  }

  static void scalar(const json& value, AtenValue& v) {
    auto add = [&](const json& x) {
      if (x.is_boolean()) v.ints.push_back(x.get<bool>() ? 1 : 0);
      if (x.is_number_integer()) v.ints.push_back(x.get<std::int64_t>());
    };
    if (value.is_string()) v.text = value.get<std::string>();
    if (value.is_array())
      for (const json& x : value) add(x);
    else
      add(value);
  }

  const std::string& origin_;
  std::string where_;
};

std::string attribute_string(const json& node, std::string_view name) {
  const auto attrs = node.find("attrs");
  if (attrs == node.end() || !attrs->is_array()) return {};
  for (const json& a : *attrs)
    if (a.is_object() && a.value("name", "") == name && a.contains("value") && a["value"].is_string())
      return a["value"].get<std::string>();
  return {};
}

EtNode parse_node(const json& node, std::size_t index, const std::string& origin) {
  if (!node.is_object()) throw Error(origin, 0, "nodes[" + std::to_string(index) + "]", "expected an object");
  const auto id = node.find("id");
  if (id == node.end() || !id->is_number_integer())
    throw Error(origin, 0, "nodes[" + std::to_string(index) + "]", "id: expected an integer");
  EtNode out;
  out.id = id->get<std::int64_t>();
  if (const auto name = node.find("name"); name != node.end() && name->is_string()) out.name = *name;
  const NodeParser parser(origin, out.id, out.name);
  const auto parent = node.contains("ctrl_deps") ? node.find("ctrl_deps") : node.find("parent");
  if (parent == node.end() || !parent->is_number_integer())
    parser.fail("ctrl_deps", "expected the parent node's id");
  out.parent = parent->get<std::int64_t>();
  out.op.name = out.name;
  const auto names = schema_argument_names(attribute_string(node, "op_schema"));
  out.op.inputs = parser.values(node, "inputs", names);
  out.op.outputs = parser.values(node, "outputs", {});
  return out;
}

void check_schema(const json& doc, const std::string& origin) {
  const auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string()) throw Error(origin, 0, "schema", "expected a string");
  const std::string& text = schema->get_ref<const std::string&>();
  const std::string version = text.substr(0, text.find('-'));
  for (std::string_view known : kSupportedSchemas)
    if (version == known) return;
  throw Error(origin, 0, "schema",
              "unsupported execution trace schema \"" + text + "\" (expected 1.0.2, 1.0.3, 1.1.0 or 1.1.1)");
}

std::optional<CollectiveKind> collective_kind(std::string text) {
  std::string s;
  for (char c : text)
    if (c != '_') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.find("allreduce") != std::string::npos) return CollectiveKind::AllReduce;
  if (s.find("allgather") != std::string::npos) return CollectiveKind::AllGather;
  if (s.find("reducescatter") != std::string::npos) return CollectiveKind::ReduceScatter;
  if (s.find("alltoall") != std::string::npos) return CollectiveKind::AllToAll;
  if (s.find("broadcast") != std::string::npos) return CollectiveKind::Broadcast;
  if (s.find("reduce") != std::string::npos) return CollectiveKind::Reduce;
  return std::nullopt;
}

bool is_collective_node(const std::string& name) {
  return name.starts_with("c10d::") || name.find("record_param_comms") != std::string::npos;
}

// The collective a c10d:: or record_param_comms node runs (nullopt for barriers, send/recv and the like):
// the kind from the c10d operator's name or record_param_comms' collective-name argument, the bytes of its
// first tensor argument (the input buffer; a list of tensors counts whole).
std::optional<CollectiveSpec> collective_of(const AtenOperator& op) {
  std::optional<CollectiveKind> kind;
  if (op.name.starts_with("c10d::")) {
    kind = collective_kind(op.name.substr(6));
  } else {
    for (const AtenValue& v : op.inputs)
      if (!v.text.empty() && (kind = collective_kind(v.text))) break;
  }
  if (!kind) return std::nullopt;
  for (const AtenValue& v : op.inputs) {
    if (v.tensors.empty()) continue;
    CollectiveSpec spec;
    spec.kind = *kind;
    for (const AtenTensor& t : v.tensors) {
      spec.bytes += t.bytes();
      if (t.dtype) spec.dtype = *t.dtype;
    }
    if (spec.bytes <= 0) return std::nullopt;
    return spec;
  }
  return std::nullopt;
}

// What the tree walk keeps: kernels (one or two specs) or a collective, by the node that issued them.
struct Issued {
  std::size_t node = 0;
  std::vector<ComputeSpec> kernels;
  std::optional<CollectiveSpec> collective;
};

Pass pass_below(const std::string& name, Pass inherited) {
  if (name.starts_with("autograd::engine::evaluate_function")) return Pass::BackwardData;
  if (name.starts_with("Optimizer.step") || name.starts_with("Optimizer.zero_grad")) return Pass::Update;
  return inherited;
}

// Depth-first over the call tree from its roots, iteratively (a hostile file can nest a node per line).
// A Kernel operator is kept whole; a Composite one is kept only when nothing below it was.
std::vector<Issued> walk(const std::vector<EtNode>& nodes, const std::vector<std::vector<std::size_t>>& children,
                         const std::vector<std::size_t>& roots, int& skipped_comms) {
  std::vector<Issued> issued;
  struct Frame {
    std::size_t node;
    std::size_t next_child = 0;
    Pass pass;
    std::size_t issued_before = 0;
  };
  std::vector<Frame> stack;
  auto enter = [&](std::size_t n, Pass inherited) {
    const EtNode& node = nodes[n];
    const Pass pass = pass_below(node.name, inherited);
    if (is_collective_node(node.name)) {
      if (auto c = collective_of(node.op))
        issued.push_back({n, {}, c});
      else
        ++skipped_comms;
      return;  // its children (record_param_comms under c10d::, nccl:* markers) are the same collective
    }
    if (node.name.starts_with("aten::") && aten_role(node.name) == AtenRole::Kernel && node.op.touches_gpu()) {
      auto kernels = aten_kernels(node.op, pass);
      if (!kernels.empty()) issued.push_back({n, std::move(kernels), std::nullopt});
      return;
    }
    stack.push_back({n, 0, pass, issued.size()});
  };
  for (std::size_t root : roots) {
    enter(root, Pass::Forward);
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next_child < children[f.node].size()) {
        const std::size_t child = children[f.node][f.next_child++];
        enter(child, f.pass);
        continue;
      }
      const Frame done = f;
      stack.pop_back();
      const EtNode& node = nodes[done.node];
      if (done.issued_before == issued.size() && node.name.starts_with("aten::") &&
          aten_role(node.name) == AtenRole::Composite) {
        auto kernels = aten_kernels(node.op, done.pass);
        if (!kernels.empty()) issued.push_back({done.node, std::move(kernels), std::nullopt});
      }
    }
  }
  return issued;
}

std::string file_stem(const std::string& origin) {
  std::string stem = origin.substr(origin.find_last_of('/') + 1);
  for (const char* suffix : {".gz", ".json", ".et"})
    if (stem.ends_with(suffix)) stem.resize(stem.size() - std::string_view(suffix).size());
  return stem.empty() ? "pytorch-et" : stem;
}

}  // namespace

bool looks_like_pytorch_et(const nlohmann::json& doc) {
  if (!doc.is_object()) return false;
  const auto schema = doc.find("schema");
  const auto nodes = doc.find("nodes");
  return schema != doc.end() && schema->is_string() && *schema != kTraceSchemaName && nodes != doc.end() &&
         nodes->is_array();
}

Trace import_pytorch_et(const nlohmann::json& doc, const std::string& origin, ImportReport& report) {
  report.format = TraceFormat::PytorchExecutionTrace;
  if (!doc.is_object()) throw Error(origin, 0, "", "an execution trace is a JSON object");
  check_schema(doc, origin);
  const auto nodes_it = doc.find("nodes");
  if (nodes_it == doc.end() || !nodes_it->is_array()) throw Error(origin, 0, "nodes", "expected an array");

  std::vector<EtNode> nodes;
  nodes.reserve(nodes_it->size());
  std::unordered_map<std::int64_t, std::size_t> index_of;
  for (const json& n : *nodes_it) {
    nodes.push_back(parse_node(n, nodes.size(), origin));
    if (!index_of.emplace(nodes.back().id, nodes.size() - 1).second)
      throw Error(origin, 0, "node " + std::to_string(nodes.back().id), "id: appears twice");
  }

  // The call tree: a node names its parent; the root names itself (or 0, in older traces).
  std::vector<std::vector<std::size_t>> children(nodes.size());
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const EtNode& n = nodes[i];
    if (n.parent == n.id || (n.parent == 0 && !index_of.contains(0))) {
      roots.push_back(i);
      continue;
    }
    const auto parent = index_of.find(n.parent);
    if (parent == index_of.end())
      throw Error(origin, 0, "node " + std::to_string(n.id) + " (" + n.name + ")",
                  "ctrl_deps: names node " + std::to_string(n.parent) + ", which is not in the trace");
    children[parent->second].push_back(i);
  }
  // Ids are handed out as operators start, so id order is issue order, across the main and autograd threads.
  for (auto& c : children)
    std::sort(c.begin(), c.end(), [&](std::size_t a, std::size_t b) { return nodes[a].id < nodes[b].id; });

  // A node that does not reach a root sits on a cycle of parents (or below one).
  std::vector<bool> reached(nodes.size(), false);
  std::vector<std::size_t> pending = roots;
  for (std::size_t r : roots) reached[r] = true;
  while (!pending.empty()) {
    const std::size_t n = pending.back();
    pending.pop_back();
    for (std::size_t c : children[n])
      if (!reached[c]) reached[c] = true, pending.push_back(c);
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!reached[i])
      throw Error(origin, 0, "node " + std::to_string(nodes[i].id) + " (" + nodes[i].name + ")",
                  "ctrl_deps: its chain of parents never reaches the root (a cycle)");
  int skipped_comms = 0;
  std::vector<Issued> issued = walk(nodes, children, roots, skipped_comms);
  std::stable_sort(issued.begin(), issued.end(),
                   [&](const Issued& a, const Issued& b) { return nodes[a.node].id < nodes[b.node].id; });

  // One iteration: from the last ProfilerStep#N on (the autograd thread's nodes are not below it, but their
  // ids fall after it).
  std::optional<std::int64_t> window_start;
  int steps = 0;
  for (const EtNode& n : nodes)
    if (n.name.starts_with("ProfilerStep#")) {
      ++steps;
      if (!window_start || n.id > *window_start) window_start = n.id;
    }
  if (!window_start)
    report.warnings.push_back(origin + ": no ProfilerStep#N node; the whole trace is taken as one iteration");
  else if (steps > 1)
    report.warnings.push_back(origin + ": " + std::to_string(steps) +
                              " profiler steps; the last one is taken as the iteration");
  if (skipped_comms > 0)
    report.warnings.push_back(origin + ": " + std::to_string(skipped_comms) +
                              " communication node(s) that are no collective simtrain models (barrier, "
                              "send/recv) were left out");

  Program program;
  program.name = "rank0";
  program.streams = {"compute", "comm"};
  constexpr std::uint8_t kCompute = 0, kComm = 1;
  std::unordered_map<std::int64_t, std::uint32_t> last_writer;  // storage id -> op index
  std::map<DType, double> flops_by_dtype;
  for (const Issued& item : issued) {
    const EtNode& node = nodes[item.node];
    if (window_start && node.id < *window_start) continue;
    const std::uint8_t stream = item.collective ? kComm : kCompute;
    std::vector<std::uint32_t> deps;
    for (const AtenValue& v : node.op.inputs)
      for (const AtenTensor& t : v.tensors)
        if (t.on_gpu)
          if (auto w = last_writer.find(t.storage); w != last_writer.end()) deps.push_back(w->second);
    deps = minimal_dependencies(program, stream, deps);
    std::vector<std::uint32_t> appended;
    if (item.collective) {
      Op op;
      op.name = node.name;
      op.type = OpType::Collective;
      op.stream = stream;
      op.deps = deps;
      op.collective = *item.collective;
      appended.push_back(append(program, std::move(op)));
    }
    for (const ComputeSpec& kernel : item.kernels) {
      Op op;
      op.name = item.kernels.size() > 1 ? node.name + "." + std::string(to_string(kernel.pass)) : node.name;
      op.type = OpType::Compute;
      op.stream = stream;
      op.deps = deps;
      op.compute = kernel;
      if (kernel.kind == ComputeKind::Gemm || kernel.kind == ComputeKind::Conv ||
          kernel.kind == ComputeKind::Attention)
        flops_by_dtype[kernel.dtype] += kernel.flops;
      appended.push_back(append(program, std::move(op)));
    }
    for (const AtenValue& v : node.op.outputs)
      for (const AtenTensor& t : v.tensors)
        if (t.on_gpu) last_writer[t.storage] = appended.back();
    // In-place operators and collectives write their tensor arguments too.
    if (item.collective || node.name.ends_with("_"))
      for (const AtenValue& v : node.op.inputs)
        for (const AtenTensor& t : v.tensors)
          if (t.on_gpu) last_writer[t.storage] = appended.back();
  }
  if (program.ops.empty()) report.warnings.push_back(origin + ": no operator in the iteration runs on a GPU");

  Trace trace = single_program_trace(std::move(program), 1, "world");
  trace.metadata.model = file_stem(origin);
  trace.metadata.generator = "pytorch execution trace import";
  trace.metadata.parallelism = "as recorded";
  trace.metadata.compute_dtype = DType::FP32;
  double most = 0;
  for (const auto& [dtype, flops] : flops_by_dtype)
    if (flops > most) most = flops, trace.metadata.compute_dtype = dtype;
  validate(trace, origin);
  return trace;
}

}  // namespace simtrain::trace
