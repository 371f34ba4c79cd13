// simtrain-calibrate: measures this machine's GPUs and writes a calibration profile. Parsing, shapes, timing
// statistics and the profile writer live in the tool's library; this file only sequences them.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "calibration/tool/benches.h"
#include "calibration/tool/efficiency_fit.h"
#include "calibration/tool/gpu_status.h"
#include "calibration/tool/model_shapes.h"
#include "calibration/tool/profile_writer.h"
#include "calibration/tool/shape_grid.h"
#include "calibration/tool/shapes_file.h"
#include "calibration/tool/tool_options.h"
#include "calibration/tool/workload_shapes.h"
#include "common/error.h"
#include "common/file_io.h"

namespace simtrain::calibration::tool {
namespace {

// --model, --trace and --shapes give exactly those shapes (and the GEMM grid with --grid); without them, the
// GEMM grid plus every built-in model at its default batch.
ShapeSet shapes_to_measure(const ToolOptions& options) {
  ShapeSet shapes;
  for (const ModelBatches& model : options.models) {
    std::vector<int> batches = model.batches;
    if (batches.empty())
      batches.push_back(options.batch > 0 ? options.batch : default_batch_of_model(model.name));
    for (int batch : batches) shapes.append(shapes_of_model(model.name, batch));
  }
  for (const std::string& trace : options.trace_files) shapes.append(shapes_of_trace(trace));
  if (!options.shapes_file.empty()) shapes.append(read_shapes_file(options.shapes_file));
  const bool named = !options.models.empty() || !options.trace_files.empty() || !options.shapes_file.empty();
  if (!named || options.grid) {
    std::vector<GemmShape> grid = default_gemm_grid(options.quick);
    shapes.gemms.insert(shapes.gemms.end(), grid.begin(), grid.end());
  }
  if (!named)
    for (const std::string& model : builtin_model_names())
      shapes.append(shapes_of_model(model, default_batch(model)));
  add_pointwise_conv_gemms(shapes);
  shapes.deduplicate();
  return shapes;
}

// Where a run keeps what it has measured so far: after every family the profile is written here, so a run
// that is killed, or whose later family fails, keeps its finished measurements without replacing the
// previous good profile at the output path.
std::string partial_path(const std::string& output) { return output + ".partial"; }

// Peak rates from the architecture table when it knows the GPU; otherwise the fastest GEMM measured per
// dtype.
std::string set_peaks(CalibrationProfile& profile, const DeviceInfo& device) {
  profile.device.peak_flops_per_s = peak_flops_per_s(device.capability, device.sm_count, device.clock_mhz);
  if (!profile.device.peak_flops_per_s.empty())
    return "peak_flops_per_s = SM count x max clock x per-SM rate of " + device.capability.text() +
           " (calibration/tool/gpu_architecture.cc)";
  for (const GemmMeasurement& g : profile.gemm) {
    double& peak = profile.device.peak_flops_per_s[g.dtype];
    peak = std::max(peak, 2.0 * g.m * g.n * g.k / g.time_s);
  }
  if (!profile.device.peak_flops_per_s.empty())
    return "peak_flops_per_s = fastest measured GEMM per dtype (" + device.capability.text() +
           " not in the table)";
  // The CUDA cores' fp32 rate of every generation since Volta is at least 128 FLOPs per clock per SM.
  profile.device.peak_flops_per_s[DType::FP32] = device.sm_count * device.clock_mhz * 1e6 * 128;
  return "peak_flops_per_s = fp32 lower bound SM count x clock x 128 (no GEMM measured, " +
         device.capability.text() + " not in the table)";
}

int run(const std::vector<std::string>& args) {
  const ToolOptions options = parse_tool_options(args);
  if (options.help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  // Shapes first: a bad --model, --trace or --shapes is reported before any GPU is touched.
  const ShapeSet shapes = shapes_to_measure(options);
  Progress progress = Progress::for_stderr();
  const DeviceInfo device = open_device(options.device);
  const std::string output = options.output.empty() ? default_output_path(device.name) : options.output;
  check_output_writable(output);
  std::vector<std::string> warnings;
  const std::vector<DType> dtypes =
      dtypes_to_measure(device.capability, device.name, options.dtypes, warnings);
  for (const std::string& warning : warnings) progress.warn(warning);
  progress.note("calibrating " + device.name + " (" + device.capability.text() + ", " +
                std::to_string(device.sm_count) + " SMs, device " + std::to_string(device.index) + ") into " +
                output);

  CalibrationProfile profile;
  profile.kind = ProfileKind::Measured;
  profile.device.name = device.name;
  profile.device.sm_count = device.sm_count;
  profile.device.clock_mhz = device.clock_mhz;
  profile.device.memory_bytes = device.memory_bytes;
  profile.device.memory_bandwidth_Bps = device.memory_bandwidth_Bps;
  profile.device.exponentials_per_clock_per_sm = exponentials_per_clock_per_sm(device.capability);

  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  RandomSource random;
  const BenchContext ctx{device,
                         stream,
                         options.quick ? TimingPlan::quick() : TimingPlan::standard(),
                         progress,
                         random,
                         dtypes,
                         measurement_budget_bytes(),
                         options.quick};

  // Fills in what a profile records besides its tables (peaks, environment); repeated before every write.
  // A partial profile lacks the efficiencies fitted at the end, and the measured memory bandwidth where the
  // driver reports no memory clock: it keeps the measurements, it is not a finished profile.
  auto complete = [&] {
    const std::string peaks = set_peaks(profile, device);
    profile.environment = measurement_environment(options.command_line);
    profile.environment.source = "simtrain-calibrate on " + device.name + "; " + peaks;
  };
  // One family's failure (a cuDNN error on an unusual shape, a driver refusing NCCL) must not cost the
  // others: it is reported, the run goes on, and the profile stays partial.
  std::vector<std::string> failed;
  auto measure_family = [&](const char* family, const std::function<void()>& measure) {
    try {
      measure();
    } catch (const std::exception& error) {
      progress.warn(std::string(family) + " failed: " + error.what());
      failed.push_back(family);
    }
    complete();
    simtrain::write_file_atomically(partial_path(output), profile_json_text(profile));
  };
  // NCCL first: an init failure then shows before the long measurements.
  if (options.nccl) measure_family("nccl", [&] { measure_nccl(ctx, profile); });
  if (options.gemm && !shapes.gemms.empty())
    measure_family("gemm", [&] { measure_gemm(ctx, shapes.gemms, profile); });
  if (options.memory) measure_family("memory", [&] { measure_memory(ctx, profile); });
  if (options.memory) measure_family("framework", [&] { measure_framework_kernels(ctx, profile); });
  if (options.conv && !shapes.convs.empty())
    measure_family("conv", [&] { measure_conv(ctx, shapes.convs, profile); });
  if (options.conv) measure_family("cudnn", [&] { measure_cudnn_ops(ctx, shapes, profile); });
  if (options.attention && !shapes.attentions.empty())
    measure_family("attention", [&] { measure_attention(ctx, shapes.attentions, profile); });

  complete();
  std::string source = profile.environment.source;
  if (profile.device.memory_bandwidth_Bps <= 0) {
    // No memory clock from the driver: the measured copy rate stands in for the datasheet figure.
    profile.device.memory_bandwidth_Bps = measure_copy_bandwidth(ctx);
    source += "; memory_bandwidth_Bps = measured device copy (driver reports no memory clock)";
  } else {
    source += "; memory_bandwidth_Bps = 2 x memory clock x bus width";
  }
  source += "; nvlink_bandwidth_Bps not measured (0)";
  for (const std::string& line : fit_efficiencies(profile)) progress.note(line);
  profile.environment.source = source;
  cudaStreamDestroy(stream);

  const std::string rows = std::to_string(profile.gemm.size()) + " GEMM, " +
                           std::to_string(profile.kernels.size()) + " kernel, " +
                           std::to_string(profile.memory.size()) + " memory and " +
                           std::to_string(profile.collectives.size()) + " collective rows";
  if (!failed.empty()) {
    std::string families;
    for (const std::string& family : failed) families += (families.empty() ? "" : ", ") + family;
    simtrain::write_file_atomically(partial_path(output), profile_json_text(profile));
    throw Error("measuring " + families + " failed (see above); the " + rows + " measured are in " +
                partial_path(output) + ", " + output + " is left as it was");
  }
  simtrain::write_file_atomically(output, profile_json_text(profile));
  std::filesystem::remove(partial_path(output));
  progress.note("wrote " + output + ": " + rows);
  return 0;
}

}  // namespace
}  // namespace simtrain::calibration::tool

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  try {
    return simtrain::calibration::tool::run(args);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "simtrain-calibrate: %s\n", error.what());
    return 1;
  }
}
