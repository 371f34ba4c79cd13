// Specification of simulate(): sizing the platform to the job, the memory check, the default dataset sizes,
// and the end-to-end behaviour of generated DDP workloads. Every simulate() call runs in a child process,
// since a replay creates the process's one SimGrid engine.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <filesystem>
#include <fstream>
#include <functional>

#include <unistd.h>

#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "simulator/cost/compute_cost.h"
#include "simulator/platform/cluster_spec.h"
#include "simulator/run/simulation.h"
#include "tests/support/child_process.h"

namespace simtrain {
namespace {

run::RunRequest ddp_request(const std::string& model, int gpus, int batch_per_gpu) {
  run::RunRequest request;
  workload::DataParallelConfig config;
  config.model = model;
  config.gpus = gpus;
  config.batch_per_gpu = batch_per_gpu;
  request.workload = config;
  return request;
}

// simulate() in a child process, returning one number read off its output (NaN when it threw).
double simulated(const run::RunRequest& request, const std::function<double(const run::RunOutput&)>& read) {
  return testing::in_child_process([&] { return read(run::simulate(request)); });
}

// 1.0 when simulate() throws an Error whose message contains `text`, 0.0 otherwise (also when it succeeds:
// the child process keeps the engine it would create out of this one).
double fails_with(const run::RunRequest& request, const std::string& text) {
  return testing::in_child_process([&] {
    try {
      run::simulate(request);
    } catch (const Error& e) {
      return std::string(e.what()).find(text) != std::string::npos ? 1.0 : 0.0;
    }
    return 0.0;
  });
}

// A cluster of single-GPU nodes whose 1 Gb/s NICs make a data-parallel all-reduce far slower than LeNet-5's
// compute, in a temporary directory removed at the end of the test.
struct SlowNetworkPlatform {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("simtrain-slow-net-" + std::to_string(getpid()));
  std::string path = (dir / "slow-net.toml").string();

  SlowNetworkPlatform() {
    std::filesystem::create_directories(dir);
    std::ofstream(path) << R"(name = "slow-net"
description = "single-GPU nodes on 1 Gb/s Ethernet"
nodes = 1
gpus_per_node = 1
gpu = "a100-sxm4-80gb"

[intra_node]
fabric = "nvswitch"
bandwidth_GBps = 300
latency_us = 0.7

[nics]
count = 1
bandwidth_Gbps = 1
latency_us = 5.0

[fabric]
topology = "star"
switch_latency_us = 1.0
)";
  }
  ~SlowNetworkPlatform() { std::filesystem::remove_all(dir); }
};

// Ops of the trace's first program whose names contain `part` (the multi-token-prediction modules' steps
// are named mtp0., mtp1., ... after the micro-batch's prefix).
std::size_t ops_named(const trace::Trace& trace, const std::string& part) {
  std::size_t count = 0;
  for (const trace::Op& op : trace.programs.front().ops) count += op.name.find(part) != std::string::npos;
  return count;
}

TEST_CASE("--mtp-layers replaces the model's multi-token-prediction modules") {
  workload::ParallelConfig config;
  config.model = "deepseek-moe-16b";  // no MTP of its own
  config.gpus = 1;
  config.seq_len = 256;
  const trace::Trace none = run::generate_parallel_trace(config);
  CHECK(ops_named(none, "mtp0.") == 0);

  config.mtp_layers = 2;
  const trace::Trace two = run::generate_parallel_trace(config);
  const std::size_t first = ops_named(two, "mtp0.");
  CHECK(first > 0);
  CHECK(ops_named(two, "mtp1.") == first);  // each module: the same layer, projection and LM head
  CHECK(ops_named(two, "mtp2.") == 0);
  CHECK(two.metadata.model_flops_per_iteration > none.metadata.model_flops_per_iteration);

  config.mtp_layers = 0;
  CHECK(run::generate_parallel_trace(config).programs.front().ops.size() == none.programs.front().ops.size());
}

TEST_CASE("a spec's channel rate caps NCCL's inter-node efficiency until NCCL_MIN_NCHANNELS adds channels") {
  platform::ClusterSpec spec = platform::load_cluster_spec("dgx-h100");
  spec.nics.nccl_efficiency = 0.97;
  spec.nics.nccl_channel_bandwidth_Bps = 20e9;  // two channels per 50 GB/s NIC: 0.8
  const calibration::CalibrationProfile base = calibration::load_profile(spec.gpu);
  calibration::CalibrationProfile two = base, three = base, measured = base;
  run::apply_platform_to_profile(spec, two);
  CHECK(two.efficiencies.nccl_inter_node == testing::Approx(0.8));
  cost::NcclOverride nccl;
  nccl.min_channels = 24;
  run::apply_platform_to_profile(spec, three, nccl);
  CHECK(three.efficiencies.nccl_inter_node == testing::Approx(0.97));
  measured.kind = calibration::ProfileKind::Measured;  // what was measured stands
  run::apply_platform_to_profile(spec, measured);
  CHECK(measured.efficiencies.nccl_inter_node == base.efficiencies.nccl_inter_node);
}

TEST_CASE("a GPU clock below the boost clock scales the compute peaks, not the memory bandwidth") {
  platform::ClusterSpec spec = platform::load_cluster_spec("dgx-h100");
  const calibration::CalibrationProfile boost = calibration::load_profile(spec.gpu);
  spec.gpu_clock_mhz = boost.device.clock_mhz / 2;
  calibration::CalibrationProfile capped = boost;
  run::apply_platform_to_profile(spec, capped);
  CHECK(capped.peak_flops(DType::BF16) == testing::Approx(boost.peak_flops(DType::BF16) / 2));
  CHECK(capped.peak_flops(DType::FP8) == testing::Approx(boost.peak_flops(DType::FP8) / 2));
  CHECK(capped.device.memory_bandwidth_Bps == boost.device.memory_bandwidth_Bps);

  spec.gpu_clock_mhz = boost.device.clock_mhz * 1.5;
  calibration::CalibrationProfile over = boost;
  CHECK_THROWS_WITH_AS(run::apply_platform_to_profile(spec, over), doctest::Contains("above"), Error);
  spec.gpu_clock_mhz = 1000;
  calibration::CalibrationProfile measured = calibration::load_profile(
      std::string(SIMTRAIN_REFERENCE_DIR) + "/../../calibration/profiles/h200-sxm.json");
  REQUIRE(measured.kind == calibration::ProfileKind::Measured);
  CHECK_THROWS_WITH_AS(run::apply_platform_to_profile(spec, measured),
                       doctest::Contains("gpu_clock_mhz: applies to spec profiles"), Error);
}

TEST_CASE("a power cap below the TDP lowers the GEMM rate a power-limited GPU sustains") {
  platform::ClusterSpec spec = platform::load_cluster_spec("dgx-b200");
  const calibration::CalibrationProfile tdp = calibration::load_profile(spec.gpu);
  REQUIRE(tdp.device.power_limit_w == 1000);
  spec.gpu_power_limit_w = 700;
  calibration::CalibrationProfile capped = tdp;
  run::apply_platform_to_profile(spec, capped);
  CHECK(capped.device.power_limit_w == 700);
  CHECK(capped.peak_flops(DType::FP8) == tdp.peak_flops(DType::FP8));  // MFU stays quoted against the peak

  // A large FP8 GEMM: the power limit binds at both, so 700 W takes 1000 / 700 as long.
  trace::ComputeSpec gemm;
  gemm.kind = trace::ComputeKind::Gemm;
  gemm.dtype = DType::FP8;
  gemm.shape = {8192, 8192, 8192};
  gemm.flops = 2.0 * 8192 * 8192 * 8192;
  const double launch = tdp.efficiencies.kernel_launch_s;
  const double at_tdp = cost::ComputeCostModel(tdp).cost(gemm).duration_s - launch;
  const double at_cap = cost::ComputeCostModel(capped).cost(gemm).duration_s - launch;
  CHECK(at_cap / at_tdp == testing::Approx(1000.0 / 700).epsilon(1e-9));

  spec.gpu_power_limit_w = 1200;
  calibration::CalibrationProfile over = tdp;
  CHECK_THROWS_WITH_AS(run::apply_platform_to_profile(spec, over), doctest::Contains("above"), Error);
  spec.gpu_power_limit_w = 500;
  calibration::CalibrationProfile measured = calibration::load_profile(
      std::string(SIMTRAIN_REFERENCE_DIR) + "/../../calibration/profiles/h200-sxm.json");
  CHECK_THROWS_WITH_AS(run::apply_platform_to_profile(spec, measured),
                       doctest::Contains("gpu_power_limit_w: applies to spec profiles"), Error);
}

}  // namespace

TEST_CASE("a request names either a workload or a trace file") {
  CHECK(fails_with(run::RunRequest{}, "either a model") == 1.0);
  run::RunRequest both = ddp_request("lenet5", 1, 8);
  both.trace_paths = {"trace.json"};
  CHECK(fails_with(both, "either a model") == 1.0);
}

TEST_CASE("more GPUs than a node holds must fill whole nodes") {
  // dgx-a100 has 8 GPUs per node.
  CHECK(fails_with(ddp_request("lenet5", 12, 8), "--gpus 12: not a multiple of the 8 GPUs per node") == 1.0);
}

TEST_CASE("more GPUs than --nodes provide is an error") {
  run::RunRequest request = ddp_request("lenet5", 16, 8);
  request.nodes = 1;
  CHECK(fails_with(request, "--gpus 16: platform 'dgx-a100' with 1 nodes has only 8 GPUs") == 1.0);
  request.nodes = 0;
  CHECK(fails_with(request, "--nodes: must be at least 1") == 1.0);
}

TEST_CASE("--nodes sizes the platform even when the job uses part of it") {
  run::RunRequest request = ddp_request("lenet5", 4, 8);
  request.nodes = 2;
  CHECK(simulated(request, [](const auto& out) { return double(out.result.nodes); }) == 2);
  CHECK(simulated(request, [](const auto& out) { return double(out.result.gpus); }) == 4);
}

TEST_CASE("a batch that does not fit in GPU memory is refused unless --allow-oom is given") {
  // ResNet-50 with 4096 images per GPU needs far more than an A100's 80 GiB of activations.
  run::RunRequest request = ddp_request("resnet50", 1, 4096);
  CHECK(fails_with(request, "does not fit in GPU memory") == 1.0);
  CHECK(fails_with(request, "--allow-oom") == 1.0);
  request.allow_oom = true;
  CHECK(simulated(request, [](const auto& out) { return double(out.result.fits_in_memory); }) == 0);
  CHECK(simulated(request, [](const auto& out) { return out.result.iteration_time_s; }) > 0);
}

TEST_CASE("the default dataset sizes are the customary training sets") {
  CHECK(run::default_dataset_size("resnet50") == 1281167);  // ImageNet-1k train
  CHECK(run::default_dataset_size("densenet121") == 1281167);
  CHECK(run::default_dataset_size("vit-b16") == 1281167);
  CHECK(run::default_dataset_size("lenet5") == 60000);  // MNIST train
  CHECK_FALSE(run::default_dataset_size("bert-large").has_value());
  CHECK_FALSE(run::default_dataset_size("no-such-model").has_value());
}

TEST_CASE("--epochs without a dataset size uses the model's customary dataset") {
  // MNIST's 60,000 images in global batches of 64: ceil(937.5) = 938 steps per epoch.
  run::RunRequest request = ddp_request("lenet5", 1, 64);
  request.job.epochs = 2;
  CHECK(simulated(request, [](const auto& out) { return *out.result.steps; }) == 2 * 938);
}

TEST_CASE("DDP on one GPU has no exposed communication: an all-reduce over one rank is empty") {
  const run::RunRequest request = ddp_request("lenet5", 1, 64);
  CHECK(simulated(request, [](const auto& out) { return out.result.breakdown.exposed_comm_s; }) == 0);
  CHECK(simulated(request, [](const auto& out) { return double(out.result.simulated_flows); }) == 0);
  // All of the iteration is compute.
  CHECK(simulated(request, [](const auto& out) {
          return out.result.breakdown.compute_s - out.result.iteration_time_s;
        }) == simtrain::testing::Approx(0.0).epsilon(1e-12));
}

TEST_CASE("on a slow network, data-parallel iteration time grows with nodes and communication is exposed") {
  const SlowNetworkPlatform platform;
  const auto iteration_s = [&](int nodes) {
    run::RunRequest request = ddp_request("lenet5", nodes, 64);
    request.platform = platform.path;
    return simulated(request, [](const auto& out) { return out.result.iteration_time_s; });
  };
  const double one = iteration_s(1), two = iteration_s(2), four = iteration_s(4);
  CHECK(one > 0);
  // LeNet-5's 61,706 fp32 gradients (247 KB) cross a 1 Gb/s NIC in about 2 ms, far longer than its compute;
  // a ring's per-rank volume grows from 1x (2 ranks) to 1.5x (4 ranks) the buffer.
  CHECK(two > one + 1e-3);
  CHECK(four > two);

  run::RunRequest request = ddp_request("lenet5", 2, 64);
  request.platform = platform.path;
  CHECK(simulated(request, [](const auto& out) { return out.result.breakdown.exposed_comm_s; }) > 1e-3);
  CHECK(simulated(request, [](const auto& out) { return double(out.result.nodes); }) == 2);
  CHECK(simulated(request, [](const auto& out) { return double(out.result.simulated_flows); }) > 0);
}

}  // namespace simtrain
