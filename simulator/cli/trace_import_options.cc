// Implements trace_import_options.h.
#include "simulator/cli/trace_import_options.h"

#include "common/error.h"

namespace po = boost::program_options;

namespace simtrain::cli {

void add_trace_import_options(po::options_description& options) {
  options.add_options()("step", po::value<int>(),
                        "the ProfilerStep#N window of a Kineto trace (default: the last one)")(
      "host-speed", po::value<double>(),
      "speed of the simulated host relative to the one a Kineto trace was recorded on (2 = twice as fast)")(
      "host-step-time", po::value<double>(),
      "seconds one unprofiled step of the recorded trace took on its machine: calibrates the host's speed "
      "(needs a host-bound step)")(
      "fsdp-min-params",
      po::value<double>()->default_value(trace::ImportOptions{}.fsdp_min_unit_params, "1e8"),
      "with --fsdp full: parameters per FSDP unit, as size_based_auto_wrap_policy's min_num_params");
}

void add_scale_out_options(po::options_description& options) {
  options.add_options()("gpus", po::value<int>(),
                        "scale a one-GPU recording out to this many GPUs (PyTorch DDP, or FSDP with --fsdp)")(
      "bucket-mb", po::value<double>()->default_value(25), "DDP gradient bucket size in MiB")(
      "fsdp", po::value<std::string>(), "scale out as PyTorch FSDP: full (FULL_SHARD)");
}

trace::ImportOptions import_options_from(const po::variables_map& vm) {
  trace::ImportOptions import;
  if (vm.count("step")) import.step = vm["step"].as<int>();
  if (vm.count("gpus") && !vm["gpus"].defaulted() && vm["gpus"].as<int>() > 1)
    import.data_parallel_ranks = vm["gpus"].as<int>();
  if (vm.count("bucket-mb")) import.ddp_bucket_bytes = vm["bucket-mb"].as<double>() * 1024 * 1024;
  if (vm.count("fsdp")) {
    const std::string mode = vm["fsdp"].as<std::string>();
    if (mode != "full")
      throw Error("--fsdp: a recorded trace scales out as FSDP full shard only ('full'), not '" + mode + "'");
    if (import.data_parallel_ranks == 0) throw Error("--fsdp: give the GPUs to shard over with --gpus N");
    if (vm.count("bucket-mb") && !vm["bucket-mb"].defaulted())
      throw Error(
          "--bucket-mb: DDP's buckets do not apply to FSDP, whose units are set by --fsdp-min-params");
    import.sharding = trace::DataParallelSharding::Fsdp;
  } else if (vm.count("fsdp-min-params") && !vm["fsdp-min-params"].defaulted()) {
    throw Error("--fsdp-min-params: applies with --fsdp full");
  }
  if (vm.count("fsdp-min-params")) import.fsdp_min_unit_params = vm["fsdp-min-params"].as<double>();
  if (vm.count("host-speed")) import.host_speed = vm["host-speed"].as<double>();
  if (vm.count("host-step-time")) import.host_step_time_s = vm["host-step-time"].as<double>();
  return import;
}

}  // namespace simtrain::cli
