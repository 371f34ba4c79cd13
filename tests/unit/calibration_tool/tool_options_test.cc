// The command line of simtrain-calibrate (calibration/tool/tool_options.h).
#include <doctest/doctest.h>

#include "calibration/tool/tool_options.h"
#include "common/error.h"

using namespace simtrain;
using namespace simtrain::calibration::tool;

namespace {

ToolOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "simtrain-calibrate");
  return parse_tool_options(args);
}

}  // namespace

TEST_CASE("without a family option every family is measured") {
  const ToolOptions o = parse({});
  CHECK((o.gemm && o.conv && o.attention && o.memory && o.nccl));
  CHECK(!o.quick);
  CHECK(o.dtypes.empty());
  CHECK(o.output.empty());
  CHECK(o.device == 0);
}

TEST_CASE("family options select only those families") {
  const ToolOptions o = parse({"--gemm", "--nccl", "--quick"});
  CHECK(o.gemm);
  CHECK(o.nccl);
  CHECK(!o.conv);
  CHECK(!o.attention);
  CHECK(!o.memory);
  CHECK(o.quick);
  const ToolOptions all = parse({"--all"});
  CHECK((all.gemm && all.conv && all.attention && all.memory && all.nccl));
}

TEST_CASE("values: model, batch, shapes, dtypes, output and device") {
  const ToolOptions o =
      parse({"--model", "resnet50", "--batch", "256", "--shapes", "s.txt", "--dtypes", "fp16,bf16,fp16", "-o",
             "calibration/profiles/h200-sxm.json", "--device", "1"});
  CHECK(o.models == std::vector<ModelBatches>{{"resnet50", {}}});
  CHECK(o.batch == 256);
  CHECK(!o.grid);
  CHECK(o.shapes_file == "s.txt");
  CHECK(o.dtypes == std::vector<DType>{DType::FP16, DType::BF16});  // repeats dropped
  CHECK(o.output == "calibration/profiles/h200-sxm.json");
  CHECK(o.device == 1);
}

TEST_CASE("--model repeats and names its own micro-batches") {
  const ToolOptions o = parse({"--model", "resnet50:128,256,128", "--model", "llama2-7b", "--grid"});
  CHECK(o.models ==
        std::vector<ModelBatches>{{"resnet50", {128, 256}}, {"llama2-7b", {}}});  // repeats dropped
  CHECK(o.grid);
  CHECK_THROWS_WITH_AS(parse({"--model", "resnet50:"}), "--model: expected an integer, got ''", Error);
  CHECK_THROWS_WITH_AS(parse({"--model", "resnet50:64,x"}), "--model: expected an integer, got 'x'", Error);
  CHECK_THROWS_WITH_AS(parse({"--model", "resnet50:0"}), doctest::Contains("at least 1"), Error);
  CHECK_THROWS_WITH_AS(parse({"--model", "alexnet:8"}), doctest::Contains("unknown model 'alexnet'"), Error);
}

TEST_CASE("the exact command line is kept, quoted for a shell where needed") {
  CHECK(parse({"--quick", "-o", "my profile.json"}).command_line ==
        "simtrain-calibrate --quick -o 'my profile.json'");
  CHECK(shell_command_line({"a", "it's"}) == "a 'it'\\''s'");
  CHECK(shell_command_line({"x", ""}) == "x ''");
}

TEST_CASE("argument errors name the option") {
  CHECK_THROWS_WITH_AS(parse({"--frobnicate"}), "--frobnicate: unknown option (see --help)", Error);
  CHECK_THROWS_WITH_AS(parse({"--batch"}), "--batch: missing value", Error);
  CHECK_THROWS_WITH_AS(parse({"--model", "resnet50", "--batch", "x"}),
                       "--batch: expected an integer, got 'x'", Error);
  CHECK_THROWS_WITH_AS(parse({"--model", "resnet50", "--batch", "0"}), doctest::Contains("at least 1"),
                       Error);
  CHECK_THROWS_WITH_AS(parse({"--batch", "8"}), "--batch: needs --model", Error);
  CHECK_THROWS_WITH_AS(parse({"--dtypes", "fp16,int8"}), doctest::Contains("unknown dtype 'int8'"), Error);
  CHECK_THROWS_WITH_AS(parse({"--dtypes", ""}), doctest::Contains("unknown dtype ''"), Error);
  CHECK_THROWS_WITH_AS(parse({"--model", "alexnet"}), doctest::Contains("unknown model 'alexnet'"), Error);
  CHECK_THROWS_WITH_AS(parse({"--device", "-1"}), doctest::Contains("at least 0"), Error);
  CHECK_THROWS_WITH_AS(parse({"-o", ""}), "-o: empty path", Error);
}

TEST_CASE("help is an option, not an error") {
  CHECK(parse({"--help"}).help);
  CHECK(usage_text().find("--dtypes") != std::string::npos);
}

TEST_CASE("the default output is named after the GPU") {
  CHECK(default_output_path("NVIDIA H200") == "calibration/profiles/h200.json");
  CHECK(default_output_path("NVIDIA A100-SXM4-80GB") == "calibration/profiles/a100-sxm4-80gb.json");
  CHECK(default_output_path("Tesla V100 (PCIe)") == "calibration/profiles/tesla-v100-pcie.json");
  CHECK(default_output_path("") == "calibration/profiles/gpu.json");
}
