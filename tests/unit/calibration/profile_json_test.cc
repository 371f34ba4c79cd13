// Specification of profile_json.h: exact round trips, byte-identical files, validation errors that name the
// file and the field path, syntax errors with line numbers, and writes that never spoil a good file.
#include "calibration/profile_json.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "common/file_io.h"

namespace simtrain::calibration {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("simtrain-json-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::permissions(path, fs::perms::owner_all, ignored);
    fs::remove_all(path, ignored);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

const std::string kExample =
    std::string(SIMTRAIN_SOURCE_DIR) + "/tests/unit/calibration/data/measured_a100_example.json";

// A measured profile with every table filled and values that are awkward in decimal (1/3, 0.1).
CalibrationProfile sample_measured() {
  CalibrationProfile p = *spec_profile("h100-sxm5");
  p.kind = ProfileKind::Measured;
  p.environment = {"550.54.15",
                   "12.4",
                   "12.4.5",
                   "9.1.0",
                   "2.21.5",
                   "2024-05-01T08:00:00Z",
                   "simtrain-calibrate --quick",
                   "measured on dgx-07"};
  p.efficiencies.gemm = 1.0 / 3.0;
  p.efficiencies.kernel_launch_s = 0;
  p.efficiencies.memory_bound_unvectorized = 0.491;
  p.efficiencies.memory_bound_multi_tensor = 0.709;
  p.efficiencies.attention_fixed_tiles = 6.3;
  p.efficiencies.attention_reference_kv_tiles = 64;
  p.efficiencies.gemm_fp8_split_accumulator = 0.87;
  p.efficiencies.moe_flex_dispatch_intra_node = 0.516;
  p.efficiencies.attention_head_dim = 128;
  p.efficiencies.attention_softmax_cost = 1.53;
  p.device.exponentials_per_clock_per_sm = 32;
  p.gemm = {{4096, 4096, 4096, DType::BF16, false, true, 1.0 / 7.0 * 1e-3},
            {1, 50257, 768, DType::FP16, true, false, 0.1e-5},
            {8192, 8192, 8192, DType::FP8, false, false, 1.2e-3}};
  p.kernels = {{"conv_forward", {32, 3, 224, 224, 64, 7, 7, 2, 3}, DType::FP16, 3.3e-4},
               {"softmax", {}, DType::FP32, 1e-6}};
  p.memory = {{"device_copy", 1 << 30, 2.9e12},
              {"h2d", 1e8, 5.1e10},
              {"elementwise_unrolled", 1 << 30, 2.4e12},
              {"elementwise_strided", 1 << 29, 1.6e12},
              {"multi_tensor", 1 << 30, 3.4e12}};
  p.collectives = {{"all_reduce", 268435456, 8, 1, "ring", 1.1e-3, 4.27e11},
                   {"all_gather", 1 << 20, 16, 2, "", 2e-4, 4.9e9}};
  return p;
}

// Checks that `call` throws an Error at exactly `file` and `field`, with `message` in its text.
void check_error(const std::function<void()>& call, const std::string& file, const std::string& field,
                 const std::string& message) {
  try {
    call();
    FAIL("expected an Error at " << field);
  } catch (const Error& error) {
    CHECK(error.file() == file);
    CHECK(error.field() == field);
    CHECK_MESSAGE(error.message().find(message) != std::string::npos, error.what());
  }
}

}  // namespace

TEST_CASE("a measured profile with every table round-trips through JSON exactly") {
  const CalibrationProfile profile = sample_measured();
  CHECK(profile_from_json(to_json(profile), "x") == profile);
  CHECK(profile_from_json(json::parse(to_json(profile).dump(2)), "x") == profile);
}

TEST_CASE("every spec profile round-trips through a file exactly") {
  const TempDir dir;
  for (const std::string& name : spec_profile_names()) {
    CAPTURE(name);
    write_profile_file(*spec_profile(name), dir.file(name + ".json"));
    CHECK(read_profile_file(dir.file(name + ".json")) == *spec_profile(name));
  }
}

TEST_CASE("writing is deterministic: the same profile gives the same bytes, also after a read") {
  const TempDir dir;
  write_profile_file(sample_measured(), dir.file("a.json"));
  write_profile_file(sample_measured(), dir.file("b.json"));
  write_profile_file(read_profile_file(dir.file("a.json")), dir.file("c.json"));
  const std::string a = slurp(dir.file("a.json"));
  CHECK(a == slurp(dir.file("b.json")));
  CHECK(a == slurp(dir.file("c.json")));
  CHECK(a == to_json(sample_measured()).dump(2) + "\n");  // 2-space indent, one trailing newline
  CHECK(a.find("\n  \"schema\": \"simtrain-profile\"") != std::string::npos);
  // Success leaves no temporary file behind.
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 3);
}

TEST_CASE("the hand-written measured example reads, with absent fields taking their defaults") {
  const CalibrationProfile p = read_profile_file(kExample);
  CHECK(p.kind == ProfileKind::Measured);
  CHECK(p.device.memory_bytes == 80.0 * (1 << 30));
  CHECK(p.peak_flops(DType::BF16) == 312e12);
  CHECK(p.efficiencies.gemm == 0.75);
  CHECK(p.efficiencies.conv == Efficiencies{}.conv);
  REQUIRE(p.gemm.size() == 2);
  CHECK(p.gemm[0].trans_b);
  CHECK_FALSE(p.gemm[1].trans_a);  // absent transposes are false
  CHECK(p.kernels.at(0).shape.size() == 9);
  CHECK(p.collectives.at(0).bus_bandwidth_Bps == 230e9);
  CHECK(profile_from_json(to_json(p), "x") == p);
}

TEST_CASE("tables and optional sections may be absent") {
  json document = to_json(*spec_profile("b200"));
  for (const char* key : {"gemm", "kernels", "memory", "collectives", "environment", "efficiencies"})
    document.erase(key);
  document["device"].erase("nvlink_bandwidth_Bps");
  const CalibrationProfile p = profile_from_json(document, "x");
  CHECK(p.gemm.empty());
  CHECK(p.collectives.empty());
  CHECK(p.efficiencies == Efficiencies{});
  CHECK(p.device.nvlink_bandwidth_Bps == 0);
}

TEST_CASE("boundary values are accepted: efficiency 1, zero latencies, empty kernel shape") {
  json document = to_json(sample_measured());
  document["efficiencies"]["gemm"] = 1;
  document["efficiencies"]["nccl_step_latency_s"] = 0;
  document["kernels"][0]["shape"] = json::array();
  CHECK_NOTHROW(profile_from_json(document, "x"));
}

TEST_CASE("every validation error names the file and the exact field path") {
  struct Case {
    std::string field;
    std::string message;
    std::function<void(json&)> spoil;
  };
  const std::vector<Case> cases = {
      {"", "expected an object", [](json& d) { d = json::array(); }},
      {"extra", "unknown key", [](json& d) { d["extra"] = 1; }},
      {"schema", "expected \"simtrain-profile\"", [](json& d) { d["schema"] = "simtrain-trace"; }},
      {"schema", "missing required field", [](json& d) { d.erase("schema"); }},
      {"version", "unsupported version 2", [](json& d) { d["version"] = 2; }},
      {"version", "expected an integer", [](json& d) { d["version"] = "1"; }},
      {"kind", "expected \"spec\" or \"measured\"", [](json& d) { d["kind"] = "guess"; }},
      {"device", "missing required field", [](json& d) { d.erase("device"); }},
      {"device.name", "missing required field", [](json& d) { d["device"].erase("name"); }},
      {"device.name", "must not be empty", [](json& d) { d["device"]["name"] = ""; }},
      {"device.sm_count", "missing required field", [](json& d) { d["device"].erase("sm_count"); }},
      {"device.sm_count", "expected an integer", [](json& d) { d["device"]["sm_count"] = 80.5; }},
      {"device.clock_mhz", "expected a number, got string",
       [](json& d) { d["device"]["clock_mhz"] = "fast"; }},
      {"device.memory_bytes", "missing required field", [](json& d) { d["device"].erase("memory_bytes"); }},
      {"device.memory_bytes", "> 0, got -1", [](json& d) { d["device"]["memory_bytes"] = -1; }},
      {"device.memory_bandwidth_Bps", ">= 1, got 0",
       [](json& d) { d["device"]["memory_bandwidth_Bps"] = 0; }},
      {"device.peak_flops_per_s", "missing required field",
       [](json& d) { d["device"].erase("peak_flops_per_s"); }},
      {"device.peak_flops_per_s", "at least one dtype",
       [](json& d) { d["device"]["peak_flops_per_s"] = json::object(); }},
      {"device.peak_flops_per_s.fp64", "unknown dtype 'fp64'",
       [](json& d) { d["device"]["peak_flops_per_s"]["fp64"] = 1e12; }},
      {"device.peak_flops_per_s.fp16", ">= 1, got 0",
       [](json& d) { d["device"]["peak_flops_per_s"]["fp16"] = 0; }},
      {"device.nvlink_bandwidth_Bps", ">= 0", [](json& d) { d["device"]["nvlink_bandwidth_Bps"] = -1; }},
      {"device.power_limit_w", ">= 0", [](json& d) { d["device"]["power_limit_w"] = -700; }},
      {"device.power_limit_w", "got 1e+09", [](json& d) { d["device"]["power_limit_w"] = 1e9; }},
      {"device.exponentials_per_clock_per_sm", "got -16",
       [](json& d) { d["device"]["exponentials_per_clock_per_sm"] = -16; }},
      {"efficiencies.gemm_fp8_flops_per_joule", ">= 0",
       [](json& d) { d["efficiencies"]["gemm_fp8_flops_per_joule"] = -1; }},
      {"device.color", "unknown key", [](json& d) { d["device"]["color"] = "green"; }},
      {"environment.driver", "expected a string", [](json& d) { d["environment"]["driver"] = 535; }},
      {"environment.gpus", "unknown key", [](json& d) { d["environment"]["gpus"] = 8; }},
      {"efficiencies.gemm", "(0, 1], got 1.5", [](json& d) { d["efficiencies"]["gemm"] = 1.5; }},
      {"efficiencies.conv", "(0, 1], got 0", [](json& d) { d["efficiencies"]["conv"] = 0; }},
      // 0 says the GPU's unvectorized elementwise bandwidth is not known; above 1 is a typo.
      {"efficiencies.memory_bound_unvectorized", "got 1.5",
       [](json& d) { d["efficiencies"]["memory_bound_unvectorized"] = 1.5; }},
      {"efficiencies.gemm_fp8_split_accumulator", "got 1.15",
       [](json& d) { d["efficiencies"]["gemm_fp8_split_accumulator"] = 1.15; }},
      {"efficiencies.moe_flex_dispatch_intra_node", "got -0.5",
       [](json& d) { d["efficiencies"]["moe_flex_dispatch_intra_node"] = -0.5; }},
      {"efficiencies.attention_fixed_tiles", "got 5000",
       [](json& d) { d["efficiencies"]["attention_fixed_tiles"] = 5000; }},
      {"efficiencies.attention_reference_kv_tiles", "got 0",
       [](json& d) { d["efficiencies"]["attention_reference_kv_tiles"] = 0; }},
      {"efficiencies.attention_head_dim", "got -64",
       [](json& d) { d["efficiencies"]["attention_head_dim"] = -64; }},
      {"efficiencies.attention_softmax_cost", "got 100",
       [](json& d) { d["efficiencies"]["attention_softmax_cost"] = 100; }},
      {"efficiencies.memory_bound_multi_tensor", "got -0.2",
       [](json& d) { d["efficiencies"]["memory_bound_multi_tensor"] = -0.2; }},
      // NCCL efficiencies may exceed 1 (imported trees beat the ring model) but must stay positive.
      {"efficiencies.nccl_inter_node", "> 0, got -0.5",
       [](json& d) { d["efficiencies"]["nccl_inter_node"] = -0.5; }},
      {"efficiencies.kernel_launch_s", ">= 0", [](json& d) { d["efficiencies"]["kernel_launch_s"] = -1e-6; }},
      {"efficiencies.nccl_step_latency_s", ">= 0",
       [](json& d) { d["efficiencies"]["nccl_step_latency_s"] = -1; }},
      {"efficiencies.mfu", "unknown key", [](json& d) { d["efficiencies"]["mfu"] = 0.4; }},
      {"gemm", "expected an array", [](json& d) { d["gemm"] = json::object(); }},
      {"gemm[0]", "expected an object", [](json& d) { d["gemm"][0] = 5; }},
      {"gemm[2].time_s", "> 0, got 0", [](json& d) { d["gemm"][2]["time_s"] = 0; }},
      {"gemm[1].dtype", "unknown dtype 'fp64'", [](json& d) { d["gemm"][1]["dtype"] = "fp64"; }},
      {"gemm[0].m", ">= 1, got 0", [](json& d) { d["gemm"][0]["m"] = 0; }},
      {"gemm[0].k", "missing required field", [](json& d) { d["gemm"][0].erase("k"); }},
      {"gemm[0].trans_a", "expected true or false", [](json& d) { d["gemm"][0]["trans_a"] = "yes"; }},
      {"gemm[0].flops", "unknown key", [](json& d) { d["gemm"][0]["flops"] = 1; }},
      {"kernels[0].shape[1]", ">= 0, got -3", [](json& d) { d["kernels"][0]["shape"][1] = -3; }},
      {"kernels[0].shape", "expected an array", [](json& d) { d["kernels"][0]["shape"] = "1x2"; }},
      {"kernels[1].op", "must not be empty", [](json& d) { d["kernels"][1]["op"] = ""; }},
      {"memory[0].op", "unknown op 'texture'", [](json& d) { d["memory"][0]["op"] = "texture"; }},
      {"memory[1].bandwidth_Bps", ">= 1, got -5", [](json& d) { d["memory"][1]["bandwidth_Bps"] = -5; }},
      {"collectives[1].bus_bandwidth_Bps", ">= 1, got 0",
       [](json& d) { d["collectives"][1]["bus_bandwidth_Bps"] = 0; }},
      {"collectives[0].op", "unknown op 'allreduce'",
       [](json& d) { d["collectives"][0]["op"] = "allreduce"; }},
      {"collectives[0].ranks", ">= 1", [](json& d) { d["collectives"][0]["ranks"] = 0; }},
      {"collectives[0].nodes", "must not exceed ranks (8)",
       [](json& d) { d["collectives"][0]["nodes"] = 9; }},
      {"collectives[1].time_s", "expected a number, got null",
       [](json& d) { d["collectives"][1]["time_s"] = nullptr; }},
      // Absurd values that are finite here but overflow the simulated time later (a SIGABRT "duration is
      // not finite" before these bounds existed): durations above 10^6 s, rates below 1/s.
      {"gemm[0].time_s", "at most 1e+06, got 1e+308", [](json& d) { d["gemm"][0]["time_s"] = 1e308; }},
      {"kernels[0].time_s", "at most 1e+06, got 2e+06", [](json& d) { d["kernels"][0]["time_s"] = 2e6; }},
      {"collectives[0].time_s", "> 0, got -1", [](json& d) { d["collectives"][0]["time_s"] = -1; }},
      {"efficiencies.kernel_launch_s", "at most 1e+06",
       [](json& d) { d["efficiencies"]["kernel_launch_s"] = 1e300; }},
      {"memory[0].bandwidth_Bps", ">= 1, got 1e-300",
       [](json& d) { d["memory"][0]["bandwidth_Bps"] = 1e-300; }},
      {"memory[0].bytes", "at most 1e+18", [](json& d) { d["memory"][0]["bytes"] = 1e300; }},
  };
  const TempDir dir;
  const std::string path = dir.file("case.json");
  for (const Case& c : cases) {
    CAPTURE(c.field);
    json document = to_json(sample_measured());
    c.spoil(document);
    spit(path, document.dump(2));
    check_error([&] { read_profile_file(path); }, path, c.field, c.message);
  }
}

TEST_CASE("non-finite values in a profile built in code are rejected before writing") {
  CalibrationProfile p = sample_measured();
  p.gemm[2].time_s = std::numeric_limits<double>::quiet_NaN();
  check_error([&] { validate_profile(p, "tool"); }, "tool", "gemm[2].time_s", "got nan");
  p = sample_measured();
  p.device.peak_flops_per_s[DType::FP32] = std::numeric_limits<double>::infinity();
  check_error([&] { validate_profile(p, "tool"); }, "tool", "device.peak_flops_per_s.fp32", "got inf");
}

TEST_CASE("syntax errors give the line where the parser stopped") {
  const TempDir dir;
  const std::string path = dir.file("bad.json");
  struct Case {
    const char* text;
    int line;
  };
  const Case cases[] = {
      {"{\n  \"schema\": \"simtrain-profile\",\n  \"version\": 1,\n  \"kind\": \"spec\"\n  \"device\": "
       "{}\n}\n",
       5},
      {"{\n  \"schema\": \"simtrain-profile\",\n  \"kind\": \"spe\n", 3},  // unterminated string
      {"{\n  \"version\": 1,\n\n  \"bytes\": 1e999\n}\n", 4},              // number out of range
      {"", 1},
      {"{\n  \"a\": [1, 2,]\n}", 2},
      {"{\n  \"gemm\": [{\"time_s\": 1e999}]\n}\n", 2},  // inf: out of range, also inside arrays
      {"\n\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", 3},  // nesting
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    spit(path, c.text);
    try {
      read_profile_file(path);
      FAIL("expected an Error");
    } catch (const Error& error) {
      CHECK(error.file() == path);
      CHECK(error.line() == c.line);
      CHECK(error.message().starts_with("invalid JSON: "));
      CHECK(std::string(error.what()).starts_with(path + ":" + std::to_string(c.line) + ": "));
    }
  }
}

TEST_CASE("unreadable profile files are reported with their path") {
  const TempDir dir;
  check_error([&] { read_profile_file(dir.file("missing.json")); }, dir.file("missing.json"), "",
              "cannot read");
  check_error([&] { read_profile_file(dir.path.string()); }, dir.path.string(), "", "is a directory");
}

TEST_CASE("a failed write leaves an existing good profile untouched and no temporary file behind") {
  const TempDir dir;
  const std::string path = dir.file("good.json");
  write_profile_file(sample_measured(), path);
  const std::string good = slurp(path);
  const auto only_the_good_file = [&] {
    CHECK(slurp(path) == good);
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
  };

  SUBCASE("the profile is invalid") {
    CalibrationProfile bad = sample_measured();
    bad.collectives[0].time_s = -1;
    check_error([&] { write_profile_file(bad, path); }, path, "collectives[0].time_s", "> 0");
    only_the_good_file();
  }
  SUBCASE("serialization fails on a string that is not UTF-8") {
    CalibrationProfile bad = sample_measured();
    bad.device.name = "H100\xff";
    check_error([&] { write_profile_file(bad, path); }, path, "", "cannot serialize profile");
    only_the_good_file();
  }
  SUBCASE("the temporary file cannot be created") {
    const std::string temporary = temporary_path_beside(path);
    fs::create_directory(temporary);  // stands in for an unwritable directory, which root could still write
    check_error([&] { write_profile_file(sample_measured(), path); }, path, "", "cannot write");
    fs::remove(temporary);
    only_the_good_file();
  }
  SUBCASE("the directory is read-only") {
    if (::geteuid() == 0) {
      MESSAGE("skipped: permissions do not stop root");
    } else {
      fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec);
      check_error([&] { write_profile_file(sample_measured(), path); }, path, "", "cannot write");
      fs::permissions(dir.path, fs::perms::owner_all);
      only_the_good_file();
    }
  }
}

TEST_CASE("a write into a missing directory or over a directory fails naming the path") {
  const TempDir dir;
  const std::string missing = dir.file("no/such/dir/p.json");
  check_error([&] { write_profile_file(sample_measured(), missing); }, missing, "", "cannot write");
  fs::create_directories(dir.path / "occupied" / "child");
  const std::string occupied = dir.file("occupied");
  check_error([&] { write_profile_file(sample_measured(), occupied); }, occupied, "",
              "cannot write: is a directory");
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);  // no temporary left
}

}  // namespace simtrain::calibration
