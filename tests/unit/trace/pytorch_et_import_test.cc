// Specification of the PyTorch execution-trace importer (simulator/trace/pytorch_et_import.h): which
// operators become kernels, their shapes and FLOPs, the step window, data-flow dependencies between kernels
// and collectives, and one-line errors naming the file and node of bad input.
#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "common/file_io.h"
#include "common/input_limits.h"
#include "simulator/trace/gzip.h"
#include "simulator/trace/pytorch_et_import.h"

namespace simtrain::trace {
namespace {

using nlohmann::json;

json tensor(int id, int storage, int numel, int element_bytes, const char* device = "cuda:0") {
  return json::array({id, storage, 0, numel, element_bytes, device});
}

json io(json values, json shapes, json types) {
  return {{"values", std::move(values)}, {"shapes", std::move(shapes)}, {"types", std::move(types)}};
}

json node(int id, int parent, const std::string& name, json inputs = io(json::array(), json::array(), json::array()),
          json outputs = io(json::array(), json::array(), json::array()), const std::string& schema = "") {
  json attrs = json::array({{{"name", "op_schema"}, {"type", "string"}, {"value", schema}}});
  return {{"id", id}, {"name", name}, {"ctrl_deps", parent}, {"inputs", std::move(inputs)},
          {"outputs", std::move(outputs)}, {"attrs", std::move(attrs)}};
}

// A root, a thread, one profiler step holding: aten::linear -> (aten::t view, aten::mm kernel), then an
// all-reduce of the mm's output, then an in-place add reading the all-reduced tensor.
json small_trace() {
  json nodes = json::array();
  nodes.push_back(node(1, 1, "[pytorch|profiler|execution_trace|process]"));
  nodes.push_back(node(2, 1, "[pytorch|profiler|execution_trace|thread]"));
  nodes.push_back(node(3, 2, "ProfilerStep#1"));
  const json x = tensor(10, 100, 64 * 32, 2), w = tensor(11, 101, 32 * 16, 2), wt = tensor(12, 101, 32 * 16, 2);
  const json y = tensor(13, 102, 64 * 16, 2);
  const char* bf16 = "Tensor(c10::BFloat16)";
  nodes.push_back(node(4, 3, "aten::linear", io({x, w}, {{64, 32}, {16, 32}}, {bf16, bf16}), io({y}, {{64, 16}}, {bf16})));
  nodes.push_back(node(5, 4, "aten::t", io({w}, {{16, 32}}, {bf16}), io({wt}, {{32, 16}}, {bf16})));
  nodes.push_back(node(6, 4, "aten::mm", io({x, wt}, {{64, 32}, {32, 16}}, {bf16, bf16}), io({y}, {{64, 16}}, {bf16})));
  nodes.push_back(node(7, 3, "c10d::allreduce_", io({json::array({y})}, {json::array({{64, 16}})}, {"GenericList[Tensor(c10::BFloat16)]"})));
  nodes.push_back(node(8, 7, "record_param_comms", io({y, "allreduce"}, {{64, 16}, json::array()}, {bf16, "String"})));
  nodes.push_back(node(9, 3, "aten::add_", io({y, 1}, {{64, 16}, json::array()}, {bf16, "Int"}), io({y}, {{64, 16}}, {bf16})));
  return {{"schema", "1.1.1-chakra.0.0.4"}, {"pid", 1}, {"nodes", nodes}};
}

std::string error_of(const json& doc) {
  ImportReport report;
  try {
    import_pytorch_et(doc, "step.et.json", report);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("an execution trace becomes one rank's kernels and collectives, linked by tensor data flow") {
  ImportReport report;
  const Trace trace = import_pytorch_et(small_trace(), "dir/step.et.json.gz", report);
  CHECK(report.format == TraceFormat::PytorchExecutionTrace);
  CHECK(trace.world_size == 1);
  CHECK(trace.metadata.model == "step");
  CHECK(trace.metadata.generator == "pytorch execution trace import");
  CHECK(trace.metadata.compute_dtype == DType::BF16);
  const Program& p = trace.programs.at(0);
  REQUIRE(p.ops.size() == 3);
  CHECK(p.ops[0].name == "aten::mm");
  CHECK(p.ops[0].compute.kind == ComputeKind::Gemm);
  CHECK(p.ops[0].compute.shape == std::vector<std::int64_t>{64, 16, 32});
  CHECK(p.ops[0].compute.flops == 2.0 * 64 * 16 * 32);
  CHECK(p.ops[0].compute.bytes == (64 * 32 + 32 * 16 + 64 * 16) * 2.0);
  CHECK(p.ops[0].compute.duration_s == -1);
  CHECK(p.ops[1].type == OpType::Collective);
  CHECK(p.ops[1].collective.kind == CollectiveKind::AllReduce);
  CHECK(p.ops[1].collective.bytes == 64 * 16 * 2.0);
  CHECK(p.ops[1].deps == std::vector<std::uint32_t>{0});  // the mm wrote the buffer
  CHECK(p.ops[2].compute.kind == ComputeKind::Elementwise);
  CHECK(p.ops[2].deps == std::vector<std::uint32_t>{1});  // the all-reduce wrote it next
}

TEST_CASE("only the last profiler step is kept, autograd-thread nodes included by id") {
  json doc = small_trace();
  doc["nodes"].push_back(node(20, 2, "ProfilerStep#2"));
  const json a = tensor(30, 300, 8, 4);
  doc["nodes"].push_back(node(21, 20, "aten::relu", io({a}, {{8}}, {"Tensor(float)"}), io({a}, {{8}}, {"Tensor(float)"})));
  doc["nodes"].push_back(node(40, 1, "[pytorch|profiler|execution_trace|thread]"));
  doc["nodes"].push_back(node(41, 40, "autograd::engine::evaluate_function: ReluBackward0"));
  doc["nodes"].push_back(node(42, 41, "aten::threshold_backward", io({a, a}, {{8}, {8}}, {"Tensor(float)", "Tensor(float)"}),
                              io({a}, {{8}}, {"Tensor(float)"})));
  ImportReport report;
  const Trace trace = import_pytorch_et(doc, "x.json", report);
  const auto& ops = trace.programs[0].ops;
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].compute.kind == ComputeKind::Activation);
  CHECK(ops[0].compute.pass == Pass::Forward);
  CHECK(ops[1].compute.pass == Pass::BackwardData);
  CHECK(report.warnings.size() == 1);
}

TEST_CASE("a convolution's backward is a data-gradient and a weight-gradient kernel") {
  json doc = small_trace();
  const char* half = "Tensor(c10::Half)";
  const json dy = tensor(50, 500, 32 * 64 * 56 * 56, 2), x = tensor(51, 501, 32 * 64 * 56 * 56, 2);
  const json w = tensor(52, 502, 64 * 64 * 9, 2);
  const std::string schema =
      "aten::convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, "
      "SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
      "SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)";
  doc["nodes"].push_back(node(60, 3, "aten::convolution_backward",
                              io({dy, x, w, {0}, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1, {true, true, false}},
                                 {{32, 64, 56, 56}, {32, 64, 56, 56}, {64, 64, 3, 3}, {json::array()}, {json::array(), json::array()},
                                  {json::array(), json::array()}, {json::array(), json::array()}, json::array(),
                                  {json::array(), json::array()}, json::array(), {json::array(), json::array(), json::array()}},
                                 {half, half, half, "GenericList[Int]", "GenericList[Int,Int]", "GenericList[Int,Int]",
                                  "GenericList[Int,Int]", "Bool", "GenericList[Int,Int]", "Int", "GenericList[Bool,Bool,Bool]"}),
                              io(json::array(), json::array(), json::array()), schema));
  ImportReport report;
  const Trace trace = import_pytorch_et(doc, "x.json", report);
  const auto& ops = trace.programs[0].ops;
  REQUIRE(ops.size() == 5);
  CHECK(ops[3].compute.kind == ComputeKind::Conv);
  CHECK(ops[3].compute.pass == Pass::BackwardData);
  CHECK(ops[4].compute.pass == Pass::BackwardWeight);
  CHECK(ops[3].compute.shape == std::vector<std::int64_t>{32, 64, 56, 56, 64, 3, 3, 1, 1});
  CHECK(ops[3].compute.flops == 2.0 * 32 * 64 * 64 * 9 * 56 * 56);
  CHECK(ops[3].compute.dtype == DType::FP16);
}

TEST_CASE("bad execution traces are refused with the file and the node") {
  json doc = small_trace();
  doc["schema"] = "2.0.0";
  CHECK(error_of(doc).find("step.et.json: schema: unsupported execution trace schema \"2.0.0\"") == 0);

  doc = small_trace();
  doc["nodes"][5]["ctrl_deps"] = 77;
  CHECK(error_of(doc) == "step.et.json: node 6 (aten::mm): ctrl_deps: names node 77, which is not in the trace");

  doc = small_trace();
  doc["nodes"][5]["inputs"]["values"][0] = json::array({1, 2, 3});
  CHECK(error_of(doc).find("node 6 (aten::mm): inputs[0]: a tensor is [tensor_id, storage_id") != std::string::npos);

  doc = small_trace();
  doc["nodes"][5]["inputs"]["shapes"].erase(0);
  CHECK(error_of(doc).find("node 6 (aten::mm): inputs: values, shapes and types differ in length") !=
        std::string::npos);

  doc = small_trace();
  doc["nodes"][5]["inputs"]["shapes"][0] = json::array({-1, 3});
  CHECK(error_of(doc).find("node 6 (aten::mm): inputs[0]: a tensor's shape") != std::string::npos);

  doc = small_trace();
  doc["nodes"][5]["id"] = 5;
  CHECK(error_of(doc).find("node 5: id: appears twice") != std::string::npos);

  doc = small_trace();
  doc["nodes"][3]["ctrl_deps"] = 6;  // linear under mm under linear
  CHECK(error_of(doc).find("never reaches the root") != std::string::npos);

  doc = small_trace();
  doc["nodes"][2].erase("ctrl_deps");
  CHECK(error_of(doc).find("node 3 (ProfilerStep#1): ctrl_deps: expected the parent node's id") != std::string::npos);
}

TEST_CASE("looks_like_pytorch_et tells an execution trace from other JSON") {
  CHECK(looks_like_pytorch_et(small_trace()));
  CHECK_FALSE(looks_like_pytorch_et(json{{"schema", "simtrain-trace"}, {"nodes", json::array()}}));
  CHECK_FALSE(looks_like_pytorch_et(json{{"traceEvents", json::array()}}));
  CHECK_FALSE(looks_like_pytorch_et(json::array()));
}

TEST_CASE("the recorded Llama-2 execution trace imports as one step of kernels to be costed") {
  const std::string path = std::string(SIMTRAIN_SOURCE_DIR) + "/traces/pytorch/llama2-7b_2_layers_seq4096_b1_bf16_adamw.et.json.gz";
  const json doc = json::parse(gunzip(read_file(path), path, kMaxDecompressedBytes));
  REQUIRE(looks_like_pytorch_et(doc));
  ImportReport report;
  const Trace trace = import_pytorch_et(doc, path, report);
  CHECK(trace.metadata.model == "llama2-7b_2_layers_seq4096_b1_bf16_adamw");
  CHECK(trace.metadata.compute_dtype == DType::BF16);
  int gemms = 0, attention = 0, optimizer = 0;
  for (const Op& op : trace.programs[0].ops) {
    CHECK(op.compute.duration_s == -1);
    gemms += op.compute.kind == ComputeKind::Gemm;
    attention += op.compute.kind == ComputeKind::Attention;
    optimizer += op.compute.kind == ComputeKind::Optimizer;
  }
  // One step of 2 layers: 7 projections each forward and 14 backward plus the LM head's 3, RoPE's bmm.
  CHECK(gemms == 46);
  CHECK(attention == 4);  // forward and backward of 2 layers
  CHECK(optimizer >= 1);
}

}  // namespace
}  // namespace simtrain::trace
