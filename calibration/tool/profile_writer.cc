// The profile's JSON form, field by field in the order and spelling of calibration/profile_json.cc, and the
// atomic file write.
#include "calibration/tool/profile_writer.h"

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "calibration/tool/json_writer.h"
#include "common/error.h"
#include "common/file_io.h"

namespace simtrain::calibration::tool {
namespace {

void write_device(JsonWriter& w, const DeviceFacts& d) {
  w.begin_object();
  w.field("name", d.name);
  w.field("sm_count", d.sm_count);
  w.field("clock_mhz", d.clock_mhz);
  w.field("memory_bytes", d.memory_bytes);
  w.field("memory_bandwidth_Bps", d.memory_bandwidth_Bps);
  w.key("peak_flops_per_s");
  w.begin_object(true);
  for (const auto& [dtype, flops] : d.peak_flops_per_s) w.field(to_string(dtype), flops);
  w.end_object();
  w.field("nvlink_bandwidth_Bps", d.nvlink_bandwidth_Bps);
  w.field("pcie_bandwidth_Bps", d.pcie_bandwidth_Bps);
  w.field("power_limit_w", d.power_limit_w);
  w.field("exponentials_per_clock_per_sm", d.exponentials_per_clock_per_sm);
  w.end_object();
}

void write_environment(JsonWriter& w, const MeasurementEnvironment& e) {
  w.begin_object();
  w.field("driver", e.driver);
  w.field("cuda", e.cuda);
  w.field("cublas", e.cublas);
  w.field("cudnn", e.cudnn);
  w.field("nccl", e.nccl);
  w.field("date", e.date);
  w.field("command", e.command);
  w.field("source", e.source);
  w.end_object();
}

void write_efficiencies(JsonWriter& w, const Efficiencies& e) {
  w.begin_object();
  w.field("gemm", e.gemm);
  w.field("conv", e.conv);
  w.field("gemm_fp8", e.gemm_fp8);
  w.field("gemm_fp4", e.gemm_fp4);
  w.field("gemm_flops_per_joule", e.gemm_flops_per_joule);
  w.field("gemm_fp8_flops_per_joule", e.gemm_fp8_flops_per_joule);
  w.field("gemm_fp4_flops_per_joule", e.gemm_fp4_flops_per_joule);
  w.field("gemm_fp8_split_accumulator", e.gemm_fp8_split_accumulator);
  w.field("gemm_tile_m", e.gemm_tile_m);
  w.field("gemm_tile_n", e.gemm_tile_n);
  w.field("gemm_misaligned_4_byte", e.gemm_misaligned_4_byte);
  w.field("gemm_misaligned_2_byte", e.gemm_misaligned_2_byte);
  w.field("gemm_tf32", e.gemm_tf32);
  w.field("conv_tf32", e.conv_tf32);
  w.field("gemm_fp32", e.gemm_fp32);
  w.field("conv_fp32", e.conv_fp32);
  w.field("attention", e.attention);
  w.field("attention_reference_kv_tiles", e.attention_reference_kv_tiles);
  w.field("attention_fixed_tiles", e.attention_fixed_tiles);
  w.field("attention_head_dim", e.attention_head_dim);
  w.field("attention_softmax_cost", e.attention_softmax_cost);
  w.field("attention_flash2", e.attention_flash2);
  w.field("memory_bound", e.memory_bound);
  w.field("memory_bound_unvectorized", e.memory_bound_unvectorized);
  w.field("memory_bound_multi_tensor", e.memory_bound_multi_tensor);
  w.field("kernel_launch_s", e.kernel_launch_s);
  w.field("nccl_intra_node", e.nccl_intra_node);
  w.field("nccl_inter_node", e.nccl_inter_node);
  w.field("nccl_step_latency_s", e.nccl_step_latency_s);
  w.field("moe_flex_dispatch_intra_node", e.moe_flex_dispatch_intra_node);
  w.field("moe_flex_dispatch_row_s", e.moe_flex_dispatch_row_s);
  w.end_object();
}

// Tables have one row per line: thousands of rows stay readable and diff well.
void write_tables(JsonWriter& w, const CalibrationProfile& p) {
  w.key("gemm");
  w.begin_array();
  for (const GemmMeasurement& g : p.gemm) {
    w.begin_object(true);
    w.field("m", g.m);
    w.field("n", g.n);
    w.field("k", g.k);
    w.field("dtype", to_string(g.dtype));
    w.field("trans_a", g.trans_a);
    w.field("trans_b", g.trans_b);
    w.field("time_s", g.time_s);
    w.end_object();
  }
  w.end_array();
  w.key("kernels");
  w.begin_array();
  for (const KernelMeasurement& k : p.kernels) {
    w.begin_object(true);
    w.field("op", k.op);
    w.key("shape");
    w.begin_array(true);
    for (std::int64_t dim : k.shape) w.value(dim);
    w.end_array();
    w.field("dtype", to_string(k.dtype));
    w.field("time_s", k.time_s);
    w.end_object();
  }
  w.end_array();
  w.key("memory");
  w.begin_array();
  for (const MemoryBandwidthMeasurement& m : p.memory) {
    w.begin_object(true);
    w.field("op", m.op);
    w.field("bytes", m.bytes);
    w.field("bandwidth_Bps", m.bandwidth_Bps);
    w.end_object();
  }
  w.end_array();
  w.key("collectives");
  w.begin_array();
  for (const CollectiveMeasurement& c : p.collectives) {
    w.begin_object(true);
    w.field("op", c.op);
    w.field("bytes", c.bytes);
    w.field("ranks", c.ranks);
    w.field("nodes", c.nodes);
    w.field("algorithm", c.algorithm);
    w.field("time_s", c.time_s);
    w.field("bus_bandwidth_Bps", c.bus_bandwidth_Bps);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string profile_json_text(const CalibrationProfile& profile) {
  JsonWriter w;
  w.begin_object();
  w.field("schema", "simtrain-profile");
  w.field("version", kProfileSchemaVersion);
  w.field("kind", to_string(profile.kind));
  w.key("device");
  write_device(w, profile.device);
  w.key("environment");
  write_environment(w, profile.environment);
  w.key("efficiencies");
  write_efficiencies(w, profile.efficiencies);
  write_tables(w, profile);
  w.end_object();
  return w.text() + "\n";
}

void check_output_writable(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw Error(path, 0, "", "cannot write: is a directory");
  // Created exclusively: a link planted at the probe's name must not lead us to truncate its target.
  const std::string probe = temporary_path_beside(path);
  try {
    create_exclusively(probe);
  } catch (const Error& error) {
    throw Error(path, 0, "", std::string("cannot write: ") + error.message());
  }
  std::remove(probe.c_str());
}

}  // namespace simtrain::calibration::tool
