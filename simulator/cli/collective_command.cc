// simtrain collective: an nccl-tests-style sweep of one collective on a simulated platform, printed in
// nccl-tests' columns so that it reads side by side with a real all_reduce_perf log.
#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "common/file_io.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/run_options.h"
#include "simulator/cli/workload_options.h"
#include "simulator/platform/cluster_spec.h"
#include "simulator/report/nccl_tests_table.h"
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

// nccl-tests' names: all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv.
trace::CollectiveKind parse_operation(const std::string& name) {
  static const std::pair<const char*, trace::CollectiveKind> kNames[] = {
      {"all_reduce", trace::CollectiveKind::AllReduce},
      {"all_gather", trace::CollectiveKind::AllGather},
      {"reduce_scatter", trace::CollectiveKind::ReduceScatter},
      {"alltoall", trace::CollectiveKind::AllToAll},
      {"broadcast", trace::CollectiveKind::Broadcast},
      {"reduce", trace::CollectiveKind::Reduce},
      {"sendrecv", trace::CollectiveKind::SendRecv}};
  for (const auto& [text, kind] : kNames)
    if (name == text) return kind;
  throw Error("unknown collective '" + name +
              "' (all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv)");
}

// nccl-tests' -d types: the element size the count column divides by, and the dtype the simulation
// reduces (integers reduce like fp32 here).
struct ElementType {
  const char* name;
  int bytes;
  DType dtype;
};
constexpr ElementType kElementTypes[] = {
    {"int8", 1, DType::FP8},      {"uint8", 1, DType::FP8},  {"int32", 4, DType::FP32},
    {"uint32", 4, DType::FP32},   {"int64", 8, DType::FP32}, {"uint64", 8, DType::FP32},
    {"half", 2, DType::FP16},     {"float", 4, DType::FP32}, {"double", 8, DType::FP32},
    {"bfloat16", 2, DType::BF16}, {"f8e4m3", 1, DType::FP8}, {"f8e5m2", 1, DType::FP8}};

const ElementType& element_type(const std::string& name) {
  std::string list;
  for (const ElementType& t : kElementTypes) {
    if (name == t.name) return t;
    list += (list.empty() ? "" : ", ") + std::string(t.name);
  }
  throw Error("-d: unknown datatype '" + name + "' (" + list + ")");
}

bool reduces(trace::CollectiveKind kind) {
  return kind == trace::CollectiveKind::AllReduce || kind == trace::CollectiveKind::ReduceScatter ||
         kind == trace::CollectiveKind::Reduce;
}

// nccl-tests' count column: elements per rank's send buffer for the collectives that split the buffer.
double element_count(trace::CollectiveKind kind, double size_bytes, int element_bytes, int ranks) {
  const bool split = kind == trace::CollectiveKind::AllGather ||
                     kind == trace::CollectiveKind::ReduceScatter || kind == trace::CollectiveKind::AllToAll;
  return std::floor(size_bytes / element_bytes / (split ? ranks : 1));
}

// An nccl-tests flag that a simulation runs the same whatever its value, but echoes: checked, then kept.
int flag_in(const po::variables_map& vm, const char* name, int low, int high) {
  const int value = vm[name].as<int>();
  if (value < low || value > high)
    throw Error(fmt::format("-{}: must be in [{}, {}], got {}", name, low, high, value));
  return value;
}

}  // namespace

int collective_command(const Arguments& args) {
  po::options_description options("simtrain collective options (nccl-tests' flags, with its meanings)");
  options.add_options()("help,h", "show this help")(
      "operation", po::value<std::string>(),
      "all_reduce | all_gather | reduce_scatter | alltoall | broadcast | reduce | sendrecv")(
      "platform", po::value<std::string>()->default_value("dgx-a100"), "cluster spec name or TOML file")(
      "nodes", po::value<int>(), "nodes (default: as many as --gpus needs)")(
      "gpus", po::value<int>(), "GPUs taking part in all (default: every GPU of --nodes, else one node)")(
      "gpus-per-node", po::value<int>(),
      "GPUs used on each node, each with its own NICs, as a run on part of every node (default: all)")(
      "profile", po::value<std::string>(), "calibration profile (default: the platform's GPU)")(
      "minbytes,b", po::value<std::string>()->default_value("32M"), "smallest size (8, 64K, 1M, 8G)")(
      "maxbytes,e", po::value<std::string>()->default_value("32M"), "largest size")(
      "stepfactor,f", po::value<double>(), "size multiplier between rows (default 2 unless -i)")(
      "stepbytes,i", po::value<std::string>(), "size increment between rows, instead of -f")(
      "ngpus,g", po::value<int>()->default_value(1), "GPUs per thread (per process with -t 1)")(
      "nthreads,t", po::value<int>()->default_value(1), "threads per process")(
      "iters,n", po::value<int>()->default_value(20), "timed iterations (echoed; a simulation has no noise)")(
      "warmup_iters,w", po::value<int>()->default_value(5), "warm-up iterations (echoed)")(
      "agg_iters,m", po::value<int>()->default_value(1), "operations aggregated per iteration (echoed)")(
      "check,c", po::value<int>()->default_value(1), "validation (echoed; #wrong is N/A)")(
      "op,o", po::value<std::string>()->default_value("sum"), "reduction: sum | prod | min | max | avg")(
      "datatype,d", po::value<std::string>()->default_value("float"),
      "float | half | bfloat16 | double | int8 | uint8 | int32 | uint32 | int64 | uint64 | f8e4m3 | f8e5m2")(
      "root,r", po::value<int>()->default_value(0), "root rank of broadcast and reduce")(
      "average,a", po::value<int>()->default_value(1), "how ranks' times are aggregated (echoed)")(
      "blocking,z", po::value<int>()->default_value(0), "blocking collectives (echoed)")(
      "cudagraph,G", po::value<int>()->default_value(0), "CUDA graph launches (echoed)")(
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
  const std::string operation = vm["operation"].as<std::string>();
  run::CollectiveSweepRequest request;
  request.kind = parse_operation(operation);
  report::NcclTestsHeader header;
  header.binary = operation + "_perf";
  header.min_bytes = parse_size("-b", vm["minbytes"].as<std::string>());
  header.max_bytes = parse_size("-e", vm["maxbytes"].as<std::string>());
  if (vm.count("stepbytes")) {
    if (vm.count("stepfactor")) throw Error("-f, -i: give a size factor or a size step, not both");
    header.step_bytes = parse_size("-i", vm["stepbytes"].as<std::string>());
    request.sizes_bytes = run::sweep_sizes_by_step(header.min_bytes, header.max_bytes, header.step_bytes);
  } else {
    header.step_factor = vm.count("stepfactor") ? vm["stepfactor"].as<double>() : 2;
    request.sizes_bytes = run::sweep_sizes(header.min_bytes, header.max_bytes, header.step_factor);
  }
  header.gpus_per_thread = flag_in(vm, "ngpus", 1, 1024);
  header.threads = flag_in(vm, "nthreads", 1, 1024);
  header.iters = flag_in(vm, "iters", 1, 1 << 30);
  header.warmup_iters = flag_in(vm, "warmup_iters", 0, 1 << 30);
  header.agg_iters = flag_in(vm, "agg_iters", 1, 1 << 20);
  header.validation = flag_in(vm, "check", 0, 1 << 20);
  header.graph = flag_in(vm, "cudagraph", 0, 1 << 20);
  flag_in(vm, "average", 0, 3);
  flag_in(vm, "blocking", 0, 1);
  const std::string redop = vm["op"].as<std::string>();
  if (redop != "sum" && redop != "prod" && redop != "min" && redop != "max" && redop != "avg")
    throw Error("-o: unknown reduction '" + redop + "' (sum, prod, min, max, avg)");
  const ElementType& type = element_type(vm["datatype"].as<std::string>());
  request.dtype = type.dtype;

  request.run.platform = vm["platform"].as<std::string>();
  if (vm.count("nodes")) request.run.nodes = vm["nodes"].as<int>();
  if (vm.count("profile")) request.run.profile = vm["profile"].as<std::string>();
  request.run.nccl = nccl_override_from_options(vm);
  request.run.stepwise_collectives = vm.count("stepwise") > 0;
  if (vm.count("gpus-per-node")) request.run.gpus_per_node = vm["gpus-per-node"].as<int>();
  platform::ClusterSpec spec = platform::load_cluster_spec(request.run.platform);
  if (request.run.gpus_per_node)
    spec = platform::using_gpus_per_node(std::move(spec), *request.run.gpus_per_node);
  request.gpus = vm.count("gpus") ? vm["gpus"].as<int>()
                                  : spec.gpus_per_node * (request.run.nodes ? *request.run.nodes : 1);
  // nccl-tests runs one process per -t threads x -g GPUs: they must tile a node's GPUs.
  const int per_process = header.threads * header.gpus_per_thread;
  if (spec.gpus_per_node % per_process != 0 && request.gpus % per_process != 0)
    throw Error(fmt::format("-g {} -t {}: {} GPUs per process do not divide the {} GPUs of a {} node",
                            header.gpus_per_thread, header.threads, per_process, spec.gpus_per_node,
                            spec.name));
  const int root = vm["root"].as<int>();
  const bool rooted =
      request.kind == trace::CollectiveKind::Broadcast || request.kind == trace::CollectiveKind::Reduce;
  if (rooted && (root < 0 || root >= request.gpus))
    throw Error(fmt::format("-r: root {} is not one of the {} ranks", root, request.gpus));
  const std::vector<run::CollectiveSample> samples = run::simulate_collective_sweep(request);

  const std::string gpu_name =
      calibration::load_profile(request.run.profile.empty() ? spec.gpu : request.run.profile).device.name;
  std::vector<report::NcclTestsDevice> devices;
  for (int rank = 0; rank < request.gpus; ++rank)
    devices.push_back({rank, rank / per_process, "node" + std::to_string(rank / spec.gpus_per_node),
                       rank % spec.gpus_per_node, gpu_name});
  std::vector<report::NcclTestsLine> lines;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  const std::string shown_redop = reduces(request.kind) ? redop : "none";
  for (const run::CollectiveSample& s : samples) {
    const double count = element_count(request.kind, s.size_bytes, type.bytes, request.gpus);
    lines.push_back({s.size_bytes, count, type.name, shown_redop, rooted ? root : -1, s.time_s * 1e6,
                     s.algbw_Bps / 1e9, s.busbw_Bps / 1e9});
    rows.push_back({{"op", operation},
                    {"size_bytes", s.size_bytes},
                    {"count", count},
                    {"dtype", type.name},
                    {"redop", shown_redop},
                    {"root", rooted ? root : -1},
                    {"ranks", request.gpus},
                    {"nodes", (request.gpus + spec.gpus_per_node - 1) / spec.gpus_per_node},
                    {"time_us", s.time_s * 1e6},
                    {"algbw_GBps", s.algbw_Bps / 1e9},
                    {"busbw_GBps", s.busbw_Bps / 1e9},
                    {"algorithm", s.algorithm},
                    {"protocol", s.protocol}});
  }
  // With the JSON on stdout, the table goes to stderr.
  const bool json_to_stdout = vm.count("json") && vm["json"].as<std::string>() == "-";
  (json_to_stdout ? std::cerr : std::cout)
      << fmt::format("# simtrain collective: {} simulated on {} ({} ranks), {}; no GPU ran it\n", operation,
                     spec.name, request.gpus, gpu_name)
      << report::nccl_tests_text(header, devices, lines);
  if (vm.count("json")) write_output_file(vm["json"].as<std::string>(), rows.dump(1) + "\n");
  return 0;
}

}  // namespace simtrain::cli
