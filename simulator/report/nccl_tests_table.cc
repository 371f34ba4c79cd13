// Implements nccl_tests_table.h with nccl-tests' own field widths (its src/common.cu).
#include "simulator/report/nccl_tests_table.h"

#include <fmt/format.h>

namespace simtrain::report {
namespace {

// nccl-tests prints times with fewer decimals as they grow, keeping the column 7 wide.
std::string time_text(double us) {
  if (us >= 10000.0) return fmt::format("{:7.0f}", us);
  if (us >= 100.0) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

}  // namespace

std::string nccl_tests_text(const NcclTestsHeader& h, const std::vector<NcclTestsDevice>& devices,
                            const std::vector<NcclTestsLine>& lines) {
  std::string text = fmt::format("# Collective test starting: {}\n", h.binary);
  text += fmt::format(
      "# nThread {} nGpus {} minBytes {:.0f} maxBytes {:.0f} step: {} warmup iters: {} iters: {} agg iters: "
      "{} "
      "validation: {} graph: {}\n#\n# Using devices\n",
      h.threads, h.gpus_per_thread, h.min_bytes, h.max_bytes,
      h.step_bytes > 0 ? fmt::format("{:.0f}(bytes)", h.step_bytes)
                       : fmt::format("{:g}(factor)", h.step_factor),
      h.warmup_iters, h.iters, h.agg_iters, h.validation, h.graph);
  for (const NcclTestsDevice& d : devices)
    text += fmt::format("#  Rank {:2} Group  0 Pid {:6} on {:>10} device {:2} [simulated] {}\n", d.rank,
                        d.process, d.host, d.device, d.name);
  text += "#\n";
  text += fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place\n", "", "",
      "", "", "");
  text += fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n",
      "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
      "#wrong");
  text += fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n",
      "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  double busbw_sum = 0;
  for (const NcclTestsLine& l : lines) {
    const std::string half =
        fmt::format("  {}  {:6.2f}  {:6.2f}  {:>6}", time_text(l.time_us), l.algbw_GBps, l.busbw_GBps, "N/A");
    text += fmt::format("{:12.0f}  {:12.0f}  {:>8}  {:>6}  {:6}{}{}\n", l.size_bytes, l.count, l.type,
                        l.redop, l.root, half, half);
    busbw_sum += 2 * l.busbw_GBps;  // out-of-place and in-place
  }
  // nccl-tests' "# Out of bounds values" line reports a validation that a simulation does not do: left out.
  text += fmt::format("# Avg bus bandwidth    : {:g} \n#\n",
                      lines.empty() ? 0.0 : busbw_sum / (2.0 * lines.size()));
  return text;
}

}  // namespace simtrain::report
