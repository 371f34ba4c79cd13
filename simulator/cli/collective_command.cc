// simtrain collective: an nccl-tests-style sweep of one collective on a simulated platform, printed in
// nccl-tests' columns so that it reads side by side with a real all_reduce_perf log.
#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/run_options.h"
#include "simulator/cli/workload_options.h"
#include "simulator/platform/cluster_spec.h"
#include "simulator/run/collective_sweep.h"

namespace po = boost::program_options;

namespace simtrain::cli {
namespace {

// nccl-tests' size syntax: a number with an optional K, M or G (powers of 1024).
double parse_size(const std::string& option, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw Error(option + ": expected a size like 8, 64K, 1M or 8G, got '" + text + "'");
  }
  const std::string suffix = text.substr(used);
  const double scale = suffix.empty()  ? 1
                       : suffix == "K" ? 1024.0
                       : suffix == "M" ? 1024.0 * 1024
                       : suffix == "G" ? 1024.0 * 1024 * 1024
                                       : -1;
  if (scale < 0) throw Error(option + ": unknown size suffix '" + suffix + "' (K, M, G)");
  return value * scale;
}

// nccl-tests' names: all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce.
trace::CollectiveKind parse_operation(const std::string& name) {
  static const std::pair<const char*, trace::CollectiveKind> kNames[] = {
      {"all_reduce", trace::CollectiveKind::AllReduce},
      {"all_gather", trace::CollectiveKind::AllGather},
      {"reduce_scatter", trace::CollectiveKind::ReduceScatter},
      {"alltoall", trace::CollectiveKind::AllToAll},
      {"broadcast", trace::CollectiveKind::Broadcast},
      {"reduce", trace::CollectiveKind::Reduce}};
  for (const auto& [text, kind] : kNames)
    if (name == text) return kind;
  throw Error("unknown collective '" + name +
              "' (all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce)");
}

}  // namespace

int collective_command(const Arguments& args) {
  po::options_description options("simtrain collective options");
  options.add_options()("help,h", "show this help")(
      "operation", po::value<std::string>(),
      "all_reduce | all_gather | reduce_scatter | alltoall | broadcast | reduce")(
      "platform", po::value<std::string>()->default_value("dgx-a100"), "cluster spec name or TOML file")(
      "nodes", po::value<int>(), "nodes (default: as many as --gpus needs)")(
      "gpus,g", po::value<int>(), "GPUs taking part (default: every GPU of --nodes, else one node)")(
      "profile", po::value<std::string>(), "calibration profile (default: the platform's GPU)")(
      "minbytes,b", po::value<std::string>()->default_value("8"), "smallest size (8, 64K, 1M, 8G)")(
      "maxbytes,e", po::value<std::string>()->default_value("8G"), "largest size")(
      "stepfactor,f", po::value<double>()->default_value(2), "size multiplier between rows")(
      "json", po::value<std::string>(), "also write the rows as JSON to this file ('-' for stdout)")(
      "stepwise",
      "send each collective's algorithm steps one after the other instead of as coalesced flows (the "
      "reference for checking coalescing; O(N^2) transfers)");
  add_nccl_options(options);
  po::positional_options_description positional;
  positional.add("operation", 1);
  po::variables_map vm;
  if (!parse_or_help(args, options, vm,
                     "usage: simtrain collective all_reduce --platform dgx-h100 --nodes 2 -b 8 -e 8G -f 2",
                     positional))
    return 0;
  if (!vm.count("operation")) throw Error("name the collective (simtrain collective all_reduce ...)");
  run::CollectiveSweepRequest request;
  request.kind = parse_operation(vm["operation"].as<std::string>());
  request.sizes_bytes =
      run::sweep_sizes(parse_size("-b", vm["minbytes"].as<std::string>()),
                       parse_size("-e", vm["maxbytes"].as<std::string>()), vm["stepfactor"].as<double>());
  request.run.platform = vm["platform"].as<std::string>();
  if (vm.count("nodes")) request.run.nodes = vm["nodes"].as<int>();
  if (vm.count("profile")) request.run.profile = vm["profile"].as<std::string>();
  request.run.nccl = nccl_override_from_options(vm);
  request.run.stepwise_collectives = vm.count("stepwise") > 0;
  if (vm.count("gpus")) {
    request.gpus = vm["gpus"].as<int>();
  } else {
    const platform::ClusterSpec spec = platform::load_cluster_spec(request.run.platform);
    request.gpus = spec.gpus_per_node * (request.run.nodes ? *request.run.nodes : 1);
  }
  const std::vector<run::CollectiveSample> samples = run::simulate_collective_sweep(request);

  std::cout << fmt::format("# simtrain collective {} on {}, {} GPUs: nccl-tests columns (float, sum)\n",
                           vm["operation"].as<std::string>(), request.run.platform, request.gpus);
  std::cout << "#       size         count      type   redop    root     time   algbw   busbw\n"
               "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n";
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  const bool rooted =
      request.kind == trace::CollectiveKind::Broadcast || request.kind == trace::CollectiveKind::Reduce;
  for (const run::CollectiveSample& s : samples) {
    const double count = std::floor(s.size_bytes / 4 /
                                    (request.kind == trace::CollectiveKind::AllGather ||
                                             request.kind == trace::CollectiveKind::ReduceScatter ||
                                             request.kind == trace::CollectiveKind::AllToAll
                                         ? request.gpus
                                         : 1));
    std::cout << fmt::format("{:>12.0f}  {:>12.0f}  {:>8}  {:>6}  {:>6}  {:>7.2f}  {:>6.2f}  {:>6.2f}\n",
                             s.size_bytes, count, "float",
                             request.kind == trace::CollectiveKind::Reduce ||
                                     request.kind == trace::CollectiveKind::AllReduce ||
                                     request.kind == trace::CollectiveKind::ReduceScatter
                                 ? "sum"
                                 : "none",
                             rooted ? "0" : "-1", s.time_s * 1e6, s.algbw_Bps / 1e9, s.busbw_Bps / 1e9);
    rows.push_back({{"size_bytes", s.size_bytes},
                    {"time_us", s.time_s * 1e6},
                    {"algbw_GBps", s.algbw_Bps / 1e9},
                    {"busbw_GBps", s.busbw_Bps / 1e9},
                    {"algorithm", s.algorithm},
                    {"protocol", s.protocol}});
  }
  if (vm.count("json")) write_output_file(vm["json"].as<std::string>(), rows.dump(1) + "\n");
  return 0;
}

}  // namespace simtrain::cli
