// The JSON form of calibration profiles: conversion both ways, with strict validation in which every error
// names the file and the exact field path (e.g. "gemm[2].time_s"). File reading and writing: profile_file.cc.
#include "calibration/profile_json.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <utility>

#include "common/error.h"
#include "common/input_limits.h"
#include "common/number_checks.h"
#include "common/suggest.h"

namespace simtrain::calibration {
namespace {

using nlohmann::json;

constexpr std::string_view kSchemaName = "simtrain-profile";

std::string member(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string element(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string describe(const json& value) {
  if (value.is_number()) return "number " + value.dump();
  return std::string(value.type_name());
}

// The limits a number must respect (common/input_limits.h says why each bound is where it is). Durations
// and rates are bounded above and below so that a typo (1e308 s, 1e-300 B/s) is rejected here, naming the
// field, rather than overflowing into an infinite simulated time far from the file.
constexpr NumberRange kDuration{0, false, kMaxDuration_s};
constexpr NumberRange kOptionalDuration{0, true, kMaxDuration_s};
constexpr NumberRange kRate{kMinRate, true, kMaxRate};
constexpr NumberRange kOptionalRate{0, true, kMaxRate};  // 0 = absent (no NVLink)
constexpr NumberRange kBytes{0, false, kMaxBytes};
constexpr NumberRange kClock_MHz{0, false, 1e6};
constexpr NumberRange kOptionalPower_W{0, true, 1e5};         // 0 = unknown
constexpr NumberRange kOptionalPerClock{0, true, 4096, true};  // [0, 4096] per clock per SM, 0 = unknown
constexpr NumberRange kOptionalFlopsPerJoule{0, true, 1e15};  // 0 = not power-limited
// NCCL efficiencies are relative to the ring model; imported tables may beat it (trees), so no cap at 1.
constexpr NumberRange kEfficiency{0, false, 1e3};
constexpr NumberRange kOptionalFraction{0, true, 1, true};  // [0, 1], 0 = not known
constexpr NumberRange kOptionalTiles{0, true, 1024, true};   // [0, 1024] key tiles, 0 = not known
constexpr NumberRange kReferenceTiles{1, true, 1024, true};  // [1, 1024] key tiles
// Exponential-unit slots per score element (Efficiencies::attention_softmax_cost), 0 = not known.
constexpr NumberRange kOptionalSoftmaxCost{0, true, 64, true};

// Reads the fields of one JSON object found at `path`, rejecting unknown keys, and turns every violation into
// an Error that names the field.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string path, const std::string& origin,
               std::initializer_list<std::string_view> keys)
      : object_(object), path_(std::move(path)), origin_(origin) {
    if (!object.is_object()) fail(path_, "expected an object, got " + describe(object));
    for (const auto& item : object.items()) {
      if (std::find(keys.begin(), keys.end(), item.key()) != keys.end()) continue;
      std::string expected;
      std::vector<std::string> names;
      for (std::string_view key : keys) {
        expected += (expected.empty() ? "" : ", ") + std::string(key);
        names.emplace_back(key);
      }
      fail(member(path_, item.key()),
           "unknown key" + did_you_mean(item.key(), names) + " (expected one of: " + expected + ")");
    }
  }

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw Error(origin_, 0, field, message);
  }
  std::string path(std::string_view key) const { return member(path_, key); }
  const std::string& origin() const { return origin_; }

  const json* find(std::string_view key) const {
    const auto found = object_.find(std::string(key));
    return found == object_.end() ? nullptr : &*found;
  }

  const json& need(std::string_view key) const {
    const json* value = find(key);
    if (value == nullptr) fail(path(key), "missing required field");
    return *value;
  }

  std::string text(std::string_view key, bool required = true, bool allow_empty = true) const {
    const json* value = required ? &need(key) : find(key);
    if (value == nullptr) return {};
    if (!value->is_string()) fail(path(key), "expected a string, got " + describe(*value));
    std::string result = value->get<std::string>();
    if (!allow_empty && result.empty()) fail(path(key), "must not be empty");
    return result;
  }

  // A number within `range`; `fallback` makes the field optional.
  double number(std::string_view key, const NumberRange& range,
                std::optional<double> fallback = std::nullopt) const {
    const json* value = fallback ? find(key) : &need(key);
    if (value == nullptr) return *fallback;
    return checked_number(*value, path(key), range);
  }

  double checked_number(const json& value, const std::string& field, const NumberRange& range) const {
    if (!value.is_number()) fail(field, "expected a number, got " + describe(value));
    const double x = value.get<double>();
    if (auto why = range_violation(x, range)) fail(field, *why);
    return x;
  }

  std::int64_t integer(std::string_view key, std::int64_t minimum,
                       std::optional<std::int64_t> fallback = {}) const {
    const json* value = fallback ? find(key) : &need(key);
    if (value == nullptr) return *fallback;
    return checked_integer(*value, path(key), minimum);
  }

  std::int64_t checked_integer(const json& value, const std::string& field, std::int64_t minimum) const {
    if (!value.is_number_integer()) fail(field, "expected an integer, got " + describe(value));
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(field, "integer " + value.dump() + " is too large");
    const std::int64_t x = value.get<std::int64_t>();
    if (x < minimum) fail(field, "must be >= " + std::to_string(minimum) + ", got " + std::to_string(x));
    return x;
  }

  int small_integer(std::string_view key, int minimum, std::optional<int> fallback = {}) const {
    const std::int64_t x = integer(key, minimum, fallback);
    if (x > std::numeric_limits<int>::max())
      fail(path(key), "integer " + std::to_string(x) + " is too large");
    return static_cast<int>(x);
  }

  bool boolean(std::string_view key, bool fallback) const {
    const json* value = find(key);
    if (value == nullptr) return fallback;
    if (!value->is_boolean()) fail(path(key), "expected true or false, got " + describe(*value));
    return value->get<bool>();
  }

  DType dtype_named(const std::string& name, const std::string& field) const {
    if (const auto dtype = parse_dtype(name)) return *dtype;
    fail(field, "unknown dtype '" + name + "' (expected fp32, tf32, fp16, bf16, fp8)");
  }

  DType dtype(std::string_view key) const { return dtype_named(text(key), path(key)); }

  std::string one_of(std::string_view key, std::initializer_list<std::string_view> choices) const {
    std::string value = text(key);
    if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
    std::string expected;
    for (std::string_view choice : choices) expected += (expected.empty() ? "" : ", ") + std::string(choice);
    fail(path(key), "unknown op '" + value + "' (expected one of: " + expected + ")");
  }

 private:
  const json& object_;
  std::string path_;
  const std::string& origin_;
};

DeviceFacts read_device(const ObjectReader& top) {
  const ObjectReader in(
      top.need("device"), "device", top.origin(),
      {"name", "sm_count", "clock_mhz", "memory_bytes", "memory_bandwidth_Bps", "peak_flops_per_s",
       "nvlink_bandwidth_Bps", "pcie_bandwidth_Bps", "power_limit_w", "exponentials_per_clock_per_sm"});
  DeviceFacts device;
  device.name = in.text("name", true, false);
  device.sm_count = in.small_integer("sm_count", 1);
  device.clock_mhz = in.number("clock_mhz", kClock_MHz);
  device.memory_bytes = in.number("memory_bytes", kBytes);
  device.memory_bandwidth_Bps = in.number("memory_bandwidth_Bps", kRate);
  // 0 means "no NVLink"; a GPU without PCIe figures (spec unknown) reads as 0 too.
  device.nvlink_bandwidth_Bps = in.number("nvlink_bandwidth_Bps", kOptionalRate, 0.0);
  device.pcie_bandwidth_Bps = in.number("pcie_bandwidth_Bps", kOptionalRate, 0.0);
  device.power_limit_w = in.number("power_limit_w", kOptionalPower_W, 0.0);
  device.exponentials_per_clock_per_sm = in.number("exponentials_per_clock_per_sm", kOptionalPerClock, 0.0);

  const std::string peaks_path = in.path("peak_flops_per_s");
  const json& peaks = in.need("peak_flops_per_s");
  if (!peaks.is_object()) in.fail(peaks_path, "expected an object, got " + describe(peaks));
  // Without a single peak rate the roofline fallback has nothing to scale.
  if (peaks.empty()) in.fail(peaks_path, "must name at least one dtype");
  for (const auto& item : peaks.items()) {
    const std::string field = member(peaks_path, item.key());
    device.peak_flops_per_s[in.dtype_named(item.key(), field)] =
        in.checked_number(item.value(), field, kRate);
  }
  return device;
}

MeasurementEnvironment read_environment(const ObjectReader& top) {
  MeasurementEnvironment env;
  const json* value = top.find("environment");
  if (value == nullptr) return env;
  const ObjectReader in(*value, "environment", top.origin(),
                        {"driver", "cuda", "cublas", "cudnn", "nccl", "date", "command", "source"});
  env.driver = in.text("driver", false);
  env.cuda = in.text("cuda", false);
  env.cublas = in.text("cublas", false);
  env.cudnn = in.text("cudnn", false);
  env.nccl = in.text("nccl", false);
  env.date = in.text("date", false);
  env.command = in.text("command", false);
  env.source = in.text("source", false);
  return env;
}

// Absent fields keep the defaults of Efficiencies, so hand-written measured profiles need not repeat them.
Efficiencies read_efficiencies(const ObjectReader& top) {
  Efficiencies eff;
  const json* value = top.find("efficiencies");
  if (value == nullptr) return eff;
  const ObjectReader in(*value, "efficiencies", top.origin(),
                        {"gemm",
                         "gemm_fp8",
                         "gemm_fp4",
                         "gemm_flops_per_joule",
                         "gemm_fp8_flops_per_joule",
                         "gemm_fp4_flops_per_joule",
                         "gemm_fp8_split_accumulator",
                         "gemm_tile_m",
                         "gemm_tile_n",
                         "gemm_misaligned_4_byte",
                         "gemm_misaligned_2_byte",
                         "conv",
                         "gemm_tf32",
                         "conv_tf32",
                         "gemm_fp32",
                         "conv_fp32",
                         "attention",
                         "attention_reference_kv_tiles",
                         "attention_fixed_tiles",
                         "attention_head_dim",
                         "attention_softmax_cost",
                         "attention_flash2",
                         "memory_bound",
                         "memory_bound_unvectorized",
                         "memory_bound_multi_tensor",
                         "kernel_launch_s",
                         "nccl_intra_node",
                         "nccl_inter_node",
                         "nccl_step_latency_s",
                         "moe_flex_dispatch_intra_node",
                         "moe_flex_dispatch_row_s"});
  eff.gemm = in.number("gemm", kFraction, eff.gemm);
  // Profiles written before the 8- and 4-bit figures had one tensor-core GEMM efficiency for all widths.
  eff.gemm_fp8 = in.number("gemm_fp8", kFraction, eff.gemm);
  eff.gemm_fp4 = in.number("gemm_fp4", kFraction, eff.gemm_fp8);
  eff.gemm_flops_per_joule = in.number("gemm_flops_per_joule", kOptionalFlopsPerJoule, 0.0);
  eff.gemm_fp8_flops_per_joule = in.number("gemm_fp8_flops_per_joule", kOptionalFlopsPerJoule, 0.0);
  eff.gemm_fp4_flops_per_joule = in.number("gemm_fp4_flops_per_joule", kOptionalFlopsPerJoule, 0.0);
  eff.gemm_fp8_split_accumulator = in.number("gemm_fp8_split_accumulator", kOptionalFraction, 0.0);
  eff.gemm_tile_m = static_cast<int>(in.integer("gemm_tile_m", 0, eff.gemm_tile_m));
  eff.gemm_tile_n = static_cast<int>(in.integer("gemm_tile_n", 0, eff.gemm_tile_n));
  eff.gemm_misaligned_4_byte = in.number("gemm_misaligned_4_byte", kOptionalFraction, 0.0);
  eff.gemm_misaligned_2_byte = in.number("gemm_misaligned_2_byte", kOptionalFraction, 0.0);
  eff.conv = in.number("conv", kFraction, eff.conv);
  eff.gemm_tf32 = in.number("gemm_tf32", kFraction, eff.gemm_tf32);
  eff.conv_tf32 = in.number("conv_tf32", kFraction, eff.conv_tf32);
  eff.gemm_fp32 = in.number("gemm_fp32", kFraction, eff.gemm_fp32);
  eff.conv_fp32 = in.number("conv_fp32", kFraction, eff.conv_fp32);
  eff.attention = in.number("attention", kFraction, eff.attention);
  eff.attention_reference_kv_tiles =
      in.number("attention_reference_kv_tiles", kReferenceTiles, eff.attention_reference_kv_tiles);
  eff.attention_fixed_tiles = in.number("attention_fixed_tiles", kOptionalTiles, eff.attention_fixed_tiles);
  eff.attention_head_dim = in.small_integer("attention_head_dim", 0, eff.attention_head_dim);
  eff.attention_softmax_cost =
      in.number("attention_softmax_cost", kOptionalSoftmaxCost, eff.attention_softmax_cost);
  eff.attention_flash2 = in.number("attention_flash2", kOptionalFraction, eff.attention_flash2);
  eff.memory_bound = in.number("memory_bound", kFraction, eff.memory_bound);
  eff.memory_bound_unvectorized =
      in.number("memory_bound_unvectorized", kOptionalFraction, eff.memory_bound_unvectorized);
  eff.memory_bound_multi_tensor =
      in.number("memory_bound_multi_tensor", kOptionalFraction, eff.memory_bound_multi_tensor);
  eff.kernel_launch_s = in.number("kernel_launch_s", kOptionalDuration, eff.kernel_launch_s);
  eff.nccl_intra_node = in.number("nccl_intra_node", kEfficiency, eff.nccl_intra_node);
  eff.nccl_inter_node = in.number("nccl_inter_node", kEfficiency, eff.nccl_inter_node);
  eff.nccl_step_latency_s = in.number("nccl_step_latency_s", kOptionalDuration, eff.nccl_step_latency_s);
  eff.moe_flex_dispatch_intra_node = in.number("moe_flex_dispatch_intra_node", kOptionalFraction, 0.0);
  eff.moe_flex_dispatch_row_s = in.number("moe_flex_dispatch_row_s", kOptionalDuration, 0.0);
  return eff;
}

GemmMeasurement read_gemm(const ObjectReader& in) {
  GemmMeasurement g;
  g.m = in.integer("m", 1);
  g.n = in.integer("n", 1);
  g.k = in.integer("k", 1);
  g.dtype = in.dtype("dtype");
  g.trans_a = in.boolean("trans_a", false);
  g.trans_b = in.boolean("trans_b", false);
  g.time_s = in.number("time_s", kDuration);
  return g;
}

KernelMeasurement read_kernel(const ObjectReader& in) {
  KernelMeasurement k;
  k.op = in.text("op", true, false);
  const json& shape = in.need("shape");
  if (!shape.is_array()) in.fail(in.path("shape"), "expected an array of integers, got " + describe(shape));
  for (std::size_t i = 0; i < shape.size(); ++i)
    k.shape.push_back(in.checked_integer(shape[i], element(in.path("shape"), i), 0));
  k.dtype = in.dtype("dtype");
  k.time_s = in.number("time_s", kDuration);
  return k;
}

MemoryBandwidthMeasurement read_memory(const ObjectReader& in) {
  MemoryBandwidthMeasurement m;
  m.op = in.one_of("op", {"device_copy", "elementwise", "reduction", "h2d", "d2h", "elementwise_vectorized",
                          "elementwise_unrolled", "elementwise_strided", "multi_tensor"});
  m.bytes = in.number("bytes", kBytes);
  m.bandwidth_Bps = in.number("bandwidth_Bps", kRate);
  return m;
}

CollectiveMeasurement read_collective(const ObjectReader& in) {
  CollectiveMeasurement c;
  c.op =
      in.one_of("op", {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "send_recv"});
  c.bytes = in.number("bytes", kBytes);
  c.ranks = in.small_integer("ranks", 1);
  c.nodes = in.small_integer("nodes", 1, 1);
  if (c.nodes > c.ranks)
    in.fail(in.path("nodes"),
            "must not exceed ranks (" + std::to_string(c.ranks) + "), got " + std::to_string(c.nodes));
  c.algorithm = in.text("algorithm", false);
  c.time_s = in.number("time_s", kDuration);
  c.bus_bandwidth_Bps = in.number("bus_bandwidth_Bps", kRate);
  return c;
}

// An optional array of objects; absent means no measurements of that kind.
template <typename Row>
std::vector<Row> read_table(const ObjectReader& top, std::string_view key,
                            std::initializer_list<std::string_view> keys,
                            Row (*read_row)(const ObjectReader&)) {
  std::vector<Row> rows;
  const json* table = top.find(key);
  if (table == nullptr) return rows;
  if (!table->is_array()) top.fail(top.path(key), "expected an array, got " + describe(*table));
  for (std::size_t i = 0; i < table->size(); ++i)
    rows.push_back(read_row(ObjectReader((*table)[i], element(top.path(key), i), top.origin(), keys)));
  return rows;
}

}  // namespace

json to_json(const CalibrationProfile& profile) {
  const DeviceFacts& d = profile.device;
  json peaks = json::object();
  for (const auto& [dtype, flops] : d.peak_flops_per_s) peaks[std::string(to_string(dtype))] = flops;
  const MeasurementEnvironment& env = profile.environment;
  const Efficiencies& eff = profile.efficiencies;

  json gemm = json::array();
  for (const GemmMeasurement& g : profile.gemm)
    gemm.push_back({{"m", g.m},
                    {"n", g.n},
                    {"k", g.k},
                    {"dtype", to_string(g.dtype)},
                    {"trans_a", g.trans_a},
                    {"trans_b", g.trans_b},
                    {"time_s", g.time_s}});
  json kernels = json::array();
  for (const KernelMeasurement& k : profile.kernels)
    kernels.push_back(
        {{"op", k.op}, {"shape", k.shape}, {"dtype", to_string(k.dtype)}, {"time_s", k.time_s}});
  json memory = json::array();
  for (const MemoryBandwidthMeasurement& m : profile.memory)
    memory.push_back({{"op", m.op}, {"bytes", m.bytes}, {"bandwidth_Bps", m.bandwidth_Bps}});
  json collectives = json::array();
  for (const CollectiveMeasurement& c : profile.collectives)
    collectives.push_back({{"op", c.op},
                           {"bytes", c.bytes},
                           {"ranks", c.ranks},
                           {"nodes", c.nodes},
                           {"algorithm", c.algorithm},
                           {"time_s", c.time_s},
                           {"bus_bandwidth_Bps", c.bus_bandwidth_Bps}});

  return {
      {"schema", kSchemaName},
      {"version", kProfileSchemaVersion},
      {"kind", to_string(profile.kind)},
      {"device",
       {{"name", d.name},
        {"sm_count", d.sm_count},
        {"clock_mhz", d.clock_mhz},
        {"memory_bytes", d.memory_bytes},
        {"memory_bandwidth_Bps", d.memory_bandwidth_Bps},
        {"peak_flops_per_s", peaks},
        {"nvlink_bandwidth_Bps", d.nvlink_bandwidth_Bps},
        {"pcie_bandwidth_Bps", d.pcie_bandwidth_Bps},
        {"power_limit_w", d.power_limit_w},
        {"exponentials_per_clock_per_sm", d.exponentials_per_clock_per_sm}}},
      {"environment",
       {{"driver", env.driver},
        {"cuda", env.cuda},
        {"cublas", env.cublas},
        {"cudnn", env.cudnn},
        {"nccl", env.nccl},
        {"date", env.date},
        {"command", env.command},
        {"source", env.source}}},
      {"efficiencies",
       {{"gemm", eff.gemm},
        {"gemm_fp8", eff.gemm_fp8},
        {"gemm_fp4", eff.gemm_fp4},
        {"gemm_flops_per_joule", eff.gemm_flops_per_joule},
        {"gemm_fp8_flops_per_joule", eff.gemm_fp8_flops_per_joule},
        {"gemm_fp4_flops_per_joule", eff.gemm_fp4_flops_per_joule},
        {"gemm_fp8_split_accumulator", eff.gemm_fp8_split_accumulator},
        {"gemm_tile_m", eff.gemm_tile_m},
        {"gemm_tile_n", eff.gemm_tile_n},
        {"gemm_misaligned_4_byte", eff.gemm_misaligned_4_byte},
        {"gemm_misaligned_2_byte", eff.gemm_misaligned_2_byte},
        {"conv", eff.conv},
        {"gemm_tf32", eff.gemm_tf32},
        {"conv_tf32", eff.conv_tf32},
        {"gemm_fp32", eff.gemm_fp32},
        {"conv_fp32", eff.conv_fp32},
        {"attention", eff.attention},
        {"attention_reference_kv_tiles", eff.attention_reference_kv_tiles},
        {"attention_fixed_tiles", eff.attention_fixed_tiles},
        {"attention_head_dim", eff.attention_head_dim},
        {"attention_softmax_cost", eff.attention_softmax_cost},
        {"attention_flash2", eff.attention_flash2},
        {"memory_bound", eff.memory_bound},
        {"memory_bound_unvectorized", eff.memory_bound_unvectorized},
        {"memory_bound_multi_tensor", eff.memory_bound_multi_tensor},
        {"kernel_launch_s", eff.kernel_launch_s},
        {"nccl_intra_node", eff.nccl_intra_node},
        {"nccl_inter_node", eff.nccl_inter_node},
        {"nccl_step_latency_s", eff.nccl_step_latency_s},
        {"moe_flex_dispatch_intra_node", eff.moe_flex_dispatch_intra_node},
        {"moe_flex_dispatch_row_s", eff.moe_flex_dispatch_row_s}}},
      {"gemm", gemm},
      {"kernels", kernels},
      {"memory", memory},
      {"collectives", collectives},
  };
}

CalibrationProfile profile_from_json(const json& document, const std::string& origin) {
  const ObjectReader top(document, "", origin,
                         {"schema", "version", "kind", "device", "environment", "efficiencies", "gemm",
                          "kernels", "memory", "collectives"});
  if (const std::string schema = top.text("schema"); schema != kSchemaName)
    top.fail("schema", "expected \"" + std::string(kSchemaName) + "\", got \"" + schema + "\"");
  if (const std::int64_t version = top.integer("version", 0); version != kProfileSchemaVersion)
    top.fail("version", "unsupported version " + std::to_string(version) + " (this build reads version " +
                            std::to_string(kProfileSchemaVersion) + ")");

  CalibrationProfile profile;
  const std::string kind = top.text("kind");
  const auto parsed_kind = parse_profile_kind(kind);
  if (!parsed_kind) top.fail("kind", "expected \"spec\" or \"measured\", got \"" + kind + "\"");
  profile.kind = *parsed_kind;
  profile.device = read_device(top);
  profile.environment = read_environment(top);
  profile.efficiencies = read_efficiencies(top);
  profile.gemm = read_table(top, "gemm", {"m", "n", "k", "dtype", "trans_a", "trans_b", "time_s"}, read_gemm);
  profile.kernels = read_table(top, "kernels", {"op", "shape", "dtype", "time_s"}, read_kernel);
  profile.memory = read_table(top, "memory", {"op", "bytes", "bandwidth_Bps"}, read_memory);
  profile.collectives = read_table(
      top, "collectives", {"op", "bytes", "ranks", "nodes", "algorithm", "time_s", "bus_bandwidth_Bps"},
      read_collective);
  return profile;
}

// to_json keeps NaN and infinities as numbers (only dump() turns them into null), so the file rules catch
// them.
void validate_profile(const CalibrationProfile& profile, const std::string& origin) {
  profile_from_json(to_json(profile), origin);
}

}  // namespace simtrain::calibration
