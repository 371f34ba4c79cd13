// simtrain profile: show calibration profiles (list, show NAME|FILE).
#include <iostream>

#include <fmt/format.h>

#include "calibration/profile_json.h"
#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "simulator/cli/commands.h"

namespace simtrain::cli {

int profile_command(const Arguments& args) {
  const char* usage =
      "usage: simtrain profile list | simtrain profile show NAME|FILE [--json] | "
      "simtrain profile import nccl-tests LOG... --into PROFILE [--platform SPEC] [-o FILE]";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << usage << "\n";
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "list") {
    for (const std::string& name : calibration::spec_profile_names()) std::cout << name << "\n";
    return 0;
  }
  if (args[0] == "import") return profile_import_command(Arguments(args.begin() + 1, args.end()));
  if (args[0] != "show" || args.size() < 2) throw Error(std::string("profile: ") + usage);
  calibration::CalibrationProfile profile = calibration::load_profile(args[1]);
  if (args.size() > 2 && args[2] == "--json") {
    std::cout << calibration::to_json(profile).dump(2) << "\n";
    return 0;
  }
  const auto& d = profile.device;
  std::cout << fmt::format("{} ({} profile)\n", d.name, calibration::to_string(profile.kind));
  std::cout << fmt::format("  SMs {}, boost clock {:.0f} MHz\n", d.sm_count, d.clock_mhz);
  std::cout << fmt::format("  memory {:.1f} GiB at {:.0f} GB/s\n", d.memory_bytes / (1024.0 * 1024 * 1024),
                           d.memory_bandwidth_Bps / 1e9);
  for (const auto& [dtype, flops] : d.peak_flops_per_s)
    std::cout << fmt::format("  peak {:<5} {:>8.1f} TFLOP/s\n", to_string(dtype), flops / 1e12);
  std::cout << fmt::format("  NVLink {:.0f} GB/s per direction, PCIe {:.0f} GB/s per direction\n",
                           d.nvlink_bandwidth_Bps / 1e9, d.pcie_bandwidth_Bps / 1e9);
  const auto& e = profile.efficiencies;
  std::cout << fmt::format(
      "  efficiencies: GEMM {:.3f} (tensor cores) {:.3f} (tf32) {:.3f} (fp32), conv {:.3f} / {:.3f} / "
      "{:.3f},\n"
      "                attention {:.3f}, memory-bound {:.3f}, kernel launch {:.1f} us,\n"
      "                NCCL intra-node {:.2f}, inter-node {:.2f}, step latency {:.1f} us\n",
      e.gemm, e.gemm_tf32, e.gemm_fp32, e.conv, e.conv_tf32, e.conv_fp32, e.attention, e.memory_bound,
      e.kernel_launch_s * 1e6, e.nccl_intra_node, e.nccl_inter_node, e.nccl_step_latency_s * 1e6);
  std::cout << fmt::format("  measured tables: {} GEMM, {} kernel, {} memory, {} collective entries\n",
                           profile.gemm.size(), profile.kernels.size(), profile.memory.size(),
                           profile.collectives.size());
  if (!profile.environment.source.empty()) std::cout << "  source: " << profile.environment.source << "\n";
  if (!profile.environment.command.empty()) std::cout << "  command: " << profile.environment.command << "\n";
  return 0;
}

}  // namespace simtrain::cli
