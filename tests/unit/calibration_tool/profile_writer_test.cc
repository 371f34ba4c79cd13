// The profile writer of simtrain-calibrate (calibration/tool/profile_writer.h, json_writer.h): its output
// must be exactly what the simulator's reader accepts, and a failed write must never cost a good profile.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "calibration/profile_json.h"
#include "calibration/tool/json_writer.h"
#include "calibration/tool/profile_writer.h"
#include "common/error.h"
#include "common/file_io.h"

using namespace simtrain;
using namespace simtrain::calibration;
using namespace simtrain::calibration::tool;

namespace {

// A profile with every field set and numbers that do not print exactly in few digits.
CalibrationProfile sample_profile() {
  CalibrationProfile p;
  p.kind = ProfileKind::Measured;
  p.device.name = "NVIDIA H200 \"SXM\"\\test";
  p.device.sm_count = 132;
  p.device.clock_mhz = 1980;
  p.device.memory_bytes = 150754820096.0;
  p.device.memory_bandwidth_Bps = 4.9152e12;
  p.device.peak_flops_per_s = {{DType::FP32, 6.690816e13}, {DType::FP16, 1.0705305600000001e15}};
  p.device.pcie_bandwidth_Bps = 5.3e10 / 3;
  p.environment = {"570.86.15 (CUDA 13.0)",
                   "13.0",
                   "13.0.0",
                   "9.19.0",
                   "2.28.3",
                   "2025-06-01T12:00:00Z",
                   "simtrain-calibrate --quick -o 'a b.json'",
                   "line1\nline2\ttab"};
  p.efficiencies.gemm = 0.1 + 0.2;  // 0.30000000000000004
  p.efficiencies.memory_bound = 0.9;
  p.gemm.push_back({4096, 4096, 4096, DType::FP16, false, true, 1.2345678901234567e-4});
  p.gemm.push_back({128, 8192, 512, DType::TF32, true, false, 3e-6});
  p.kernels.push_back({"conv_forward", {128, 64, 56, 56, 64, 3, 3, 1, 1}, DType::BF16, 7.77e-4});
  p.kernels.push_back({"softmax_backward_data", {4096, 32000}, DType::FP16, 2e-4});
  p.memory.push_back({"device_copy", 1073741824.0, 4.1e12});
  p.collectives.push_back({"broadcast", 8, 1, 1, "", 5.5e-6, 8 / 5.5e-6});
  p.collectives.push_back({"all_reduce", 1 << 30, 8, 1, "Ring", 2.5e-3, 7.5e11});
  return p;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a written profile parses as JSON and reads back equal to the profile written") {
  const CalibrationProfile profile = sample_profile();
  const std::string text = profile_json_text(profile);
  const nlohmann::json document = nlohmann::json::parse(text);
  CHECK(profile_from_json(document, "written.json") == profile);
}

TEST_CASE("the writer emits the same document as the simulator's own to_json") {
  const CalibrationProfile profile = sample_profile();
  CHECK(nlohmann::json::parse(profile_json_text(profile)) == to_json(profile));
}

TEST_CASE("an empty measured profile still names its schema, version and kind") {
  CalibrationProfile profile = sample_profile();
  profile.gemm.clear();
  profile.kernels.clear();
  profile.memory.clear();
  profile.collectives.clear();
  const nlohmann::json document = nlohmann::json::parse(profile_json_text(profile));
  CHECK(document["schema"] == "simtrain-profile");
  CHECK(document["version"] == kProfileSchemaVersion);
  CHECK(document["kind"] == "measured");
  CHECK(document["gemm"].is_array());
  CHECK(document["gemm"].empty());
  CHECK(profile_from_json(document, "empty.json") == profile);
}

TEST_CASE("table rows are written one per line") {
  const std::string text = profile_json_text(sample_profile());
  CHECK(text.find("{\"m\": 4096, \"n\": 4096, \"k\": 4096, \"dtype\": \"fp16\", \"trans_a\": false, "
                  "\"trans_b\": true, \"time_s\": 0.00012345678901234567}") != std::string::npos);
  CHECK(text.find("\"shape\": [128, 64, 56, 56, 64, 3, 3, 1, 1]") != std::string::npos);
}

TEST_CASE("NaN and infinite times cannot be written") {
  CalibrationProfile profile = sample_profile();
  profile.gemm[0].time_s = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(profile_json_text(profile), doctest::Contains("non-finite"), Error);
  profile.gemm[0].time_s = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(profile_json_text(profile), Error);
}

TEST_CASE("strings are escaped: quotes, backslashes and control characters") {
  CHECK(json_quoted("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_quoted("x\ny\tz\x01") == "\"x\\ny\\tz\\u0001\"");
  CHECK(json_quoted("H200 µs") == "\"H200 µs\"");  // UTF-8 unchanged
  CHECK(nlohmann::json::parse(json_quoted("\x1f\r\"")).get<std::string>() == "\x1f\r\"");
}

TEST_CASE("numbers are written with 17 significant digits and read back exactly") {
  for (const double x : {0.1, 1.0 / 3, 6.02214076e23, 5e-324, 123456789.0, -2.5})
    CHECK(nlohmann::json::parse(json_number(x)).get<double>() == x);
  CHECK(json_number(0.5) == "0.5");
}

TEST_CASE("the JSON writer rejects misuse") {
  JsonWriter w;
  w.begin_object();
  CHECK_THROWS_AS(w.value(1), Error);  // a value without a key
  w.key("a");
  CHECK_THROWS_AS(w.key("b"), Error);  // two keys in a row
  CHECK_THROWS_AS(w.end_array(), Error);
  w.value(true);
  CHECK_THROWS_AS(w.text(), Error);  // still open
  w.end_object();
  CHECK(w.text() == "{\n  \"a\": true\n}");
}

TEST_CASE("a profile is written through a temporary file that replaces the old one only when complete") {
  const auto dir = std::filesystem::temp_directory_path() / "simtrain_profile_writer_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "gpu.json").string();
  simtrain::write_file_atomically(path, "old");
  simtrain::write_file_atomically(path, "new");
  CHECK(read_all(path) == "new");
  // Nothing is left beside it.
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("an unwritable output is reported with its path before anything is measured") {
  CHECK_THROWS_WITH_AS(check_output_writable("/nonexistent-dir/profile.json"),
                       doctest::Contains("/nonexistent-dir/profile.json: cannot write"), Error);
  CHECK_THROWS_WITH_AS(simtrain::write_file_atomically("/nonexistent-dir/profile.json", "x"),
                       doctest::Contains("cannot write"), Error);
  const auto dir = std::filesystem::temp_directory_path();
  CHECK_THROWS_WITH_AS(check_output_writable(dir.string()), doctest::Contains("is a directory"), Error);
}

TEST_CASE("a failed write leaves the previous profile in place") {
  const auto dir = std::filesystem::temp_directory_path() / "simtrain_profile_writer_keep";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "gpu.json").string();
  simtrain::write_file_atomically(path, "good");
  // A directory where the temporary file would go makes the write fail.
  std::filesystem::create_directory(simtrain::temporary_path_beside(path));
  CHECK_THROWS_AS(simtrain::write_file_atomically(path, "broken"), Error);
  CHECK(read_all(path) == "good");
  std::filesystem::remove_all(dir);
}
