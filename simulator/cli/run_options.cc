// The options of `simtrain run`, and the lookup that checks a scenario file's keys against them.
#include "simulator/cli/run_options.h"

#include "simulator/cli/trace_import_options.h"
#include "simulator/cli/workload_options.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include "common/content_hash.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/suggest.h"
#include "simulator/cost/nccl_channels.h"
#include "simulator/cost/nccl_tuner.h"
#include "simulator/platform/cluster_spec.h"

namespace po = boost::program_options;

namespace simtrain::cli {

void add_nccl_options(po::options_description& options) {
  options.add_options()(
      "nccl-algo", po::value<std::string>(),
      "ring | tree | nvls | nvlstree | pat | collnetdirect | collnetchain: every all-reduce's algorithm, as "
      "NCCL_ALGO sets it; pat: the all-gathers and reduce-scatters over one GPU per node (NCCL 2.23 on); "
      "collnet*: with --nccl-collnet-enable (default: NCCL's choice by size and scale)")(
      "nccl-collnet-enable",
      "let NCCL's tuner weigh CollNet Direct, CollNet Chain and NVLS across nodes for all-reduces, reducing "
      "in the network's switches (InfiniBand SHARP), as NCCL_COLLNET_ENABLE=1 does; needs a platform whose "
      "spec sets nics.sharp = true")(
      "nccl-proto", po::value<std::string>(),
      "ll | ll128 | simple: the protocol of ring phases inside nodes, and across nodes where the platform "
      "prices NCCL's network protocols, as NCCL_PROTO sets it (default: the fastest for the size)")(
      "nccl-buffsize", po::value<long long>(),
      "bytes of NCCL's buffer per channel and peer, as NCCL_BUFFSIZE sets it (default 4194304); sets the "
      "chunks of Simple across nodes where the platform prices them, and caps the point-to-point chunk "
      "at an eighth of it")(
      "nccl-p2p-net-chunksize", po::value<long long>(),
      "bytes of NCCL's point-to-point chunk across nodes, as NCCL_P2P_NET_CHUNKSIZE sets it (default "
      "131072, doubled on GB200 and GB300 hosts): all-to-all and sendrecv across nodes move at most one "
      "chunk per the platform's nccl_p2p_chunk_us each way")(
      "nccl-version", po::value<std::string>(),
      "the NCCL release whose tuner constants price collectives across NVLink nodes, 2.18 to 2.29 (default "
      "2.29)")("nccl-tuner-plugin", po::value<std::string>(),
               "none | aws-ofi-nccl-p5 | aws-ofi-nccl-p5en | aws-ofi-nccl-p6-b200: the NCCL tuner plugin "
               "the run loads, in place of the platform's (nics.nccl_tuner_plugin; the aws-p5, aws-p5en "
               "and aws-p6-b200 specs load aws-ofi-nccl's): its regions for that instance type choose the "
               "algorithm and protocol where --nccl-algo and --nccl-proto do not")(
      "nccl-min-nchannels", po::value<int>(),
      "at least this many channels across nodes, as NCCL_MIN_NCHANNELS or NCCL_MIN_CTAS sets it, 1 to "
      "64 (default: NCCL's two per NIC); where the platform gives a channel's rate "
      "(nccl_channel_GBps), more channels per NIC lift the NICs' throughput to their line share");
}

cost::NcclOverride nccl_override_from_options(const po::variables_map& vm) {
  cost::NcclOverride nccl;
  if (vm.count("nccl-algo"))
    nccl.algorithm = cost::parse_nccl_algorithm(vm["nccl-algo"].as<std::string>(), "--nccl-algo");
  if (vm.count("nccl-proto"))
    nccl.protocol = cost::parse_nccl_protocol(vm["nccl-proto"].as<std::string>(), "--nccl-proto");
  nccl.collnet = vm.count("nccl-collnet-enable") > 0;
  if (vm.count("nccl-tuner-plugin"))
    nccl.tuner_plugin =
        cost::parse_nccl_tuner_plugin(vm["nccl-tuner-plugin"].as<std::string>(), "--nccl-tuner-plugin");
  if (vm.count("nccl-version"))
    nccl.version_minor = cost::parse_nccl_version(vm["nccl-version"].as<std::string>(), "--nccl-version");
  if (nccl.algorithm == cost::NcclAlgorithm::PAT && nccl.version_minor < cost::kNcclPatFirstMinor)
    throw Error("--nccl-algo pat: NCCL runs PAT from 2.23 on, not in NCCL 2." +
                std::to_string(nccl.version_minor) + " (--nccl-version)");
  if (vm.count("nccl-buffsize")) {
    const long long bytes = vm["nccl-buffsize"].as<long long>();
    // NCCL splits the buffer into 8 steps; anything below 8 bytes per step is not a buffer.
    if (bytes < 64) throw Error("--nccl-buffsize: must be at least 64 bytes, got " + std::to_string(bytes));
    nccl.buffer_bytes = static_cast<double>(bytes);
  }
  if (vm.count("nccl-p2p-net-chunksize")) {
    const long long bytes = vm["nccl-p2p-net-chunksize"].as<long long>();
    // Bounds that keep the chunk a size a run could give NCCL; the buffer's eighth caps it further.
    if (bytes < 16 || bytes > (1LL << 30))
      throw Error("--nccl-p2p-net-chunksize: must be 16 bytes to 1 GiB, got " + std::to_string(bytes));
    nccl.p2p_net_chunk_bytes = static_cast<double>(bytes);
  }
  if (vm.count("nccl-min-nchannels")) {
    const int channels = vm["nccl-min-nchannels"].as<int>();
    if (channels < 1 || channels > cost::kNcclMaxChannels)
      throw Error("--nccl-min-nchannels: must be 1 to " + std::to_string(cost::kNcclMaxChannels) + ", got " +
                  std::to_string(channels));
    nccl.min_channels = channels;
  }
  return nccl;
}

po::options_description run_options() {
  po::options_description options("simtrain run options");
  options.add_options()("help,h", "show this help");
  add_workload_options(options);
  add_parallel_options(options);
  add_nccl_options(options);
  options.add_options()("trace", po::value<std::vector<std::string>>()->multitoken()->composing(),
                        "replay a recorded trace instead of generating a workload: a simtrain trace, a "
                        "Kineto/torch.profiler JSON (one file per rank), a PyTorch execution trace or a "
                        "Chakra trace, told apart by content; with --gpus N a one-GPU recording is scaled "
                        "out as PyTorch DDP (or FSDP with --fsdp full)");
  add_trace_import_options(options);
  options.add_options()("platform", po::value<std::string>()->default_value("dgx-a100"),
                        "cluster spec name (simtrain platforms), TOML file, or SimGrid XML file")(
      "nodes", po::value<int>(), "number of nodes (default: as many as --gpus needs)")(
      "gpus-per-node", po::value<int>()->default_value(8), "GPUs per node of a SimGrid XML platform")(
      "profile", po::value<std::string>(), "calibration profile name or file (default: the platform's GPU)")(
      "steps", po::value<double>(), "optimizer steps of the job, for job_time_s")(
      "epochs", po::value<double>(), "epochs of the job, for job_time_s")(
      "dataset-size", po::value<double>(), "samples per epoch (default: the model's customary dataset)")(
      "startup-s", po::value<double>(), "job start-up seconds (default: the framework's, framework.h)")(
      "step-overhead", po::value<double>(),
      "framework time per step, a fraction of the iteration (default: the framework's)")(
      "seed", po::value<std::uint64_t>()->default_value(0),
      "run-to-run noise seed (0: none); the same seed gives the same result (cost/jitter.h)")(
      "jitter-run", po::value<double>()->default_value(0.02),
      "with --seed: sigma of the per-run speed factor")("jitter-kernel",
                                                        po::value<double>()->default_value(0.05),
                                                        "with --seed: sigma of each kernel's factor")(
      "degrade", po::value<std::vector<std::string>>()->composing(),
      "link=NAME,factor=F: scale a network link's bandwidth (repeatable; e.g. link=node3-uplink,factor=0.5)")(
      "straggler", po::value<std::vector<std::string>>()->composing(),
      "rank=R,slowdown=S: rank R computes S times slower (repeatable; simulates every rank on its own)")(
      "allow-oom", "simulate even when the configuration does not fit in GPU memory")(
      "no-lockstep", "simulate every rank of a tensor-parallel group on its own (slower; to check lockstep)")(
      "no-comm-sms",
      "collectives take no SMs from the kernels running beside them (by default a collective holds one SM "
      "per NCCL channel while it runs)")(
      "every-replica",
      "simulate every data-parallel replica, even where a sample of them gives the same result (slower; to "
      "check replica sampling)")(
      "simulate-every-micro-batch",
      "replay every micro-batch of a long step instead of extrapolating its steady state from steps of "
      "2 x pp and 3 x pp micro-batches (slower; to check the extrapolation)")(
      "fidelity", po::value<std::string>()->default_value("full"),
      "full | fast (fast samples data-parallel replicas even where the fabric above the nodes could "
      "bind, or folds them into one, their collectives then seeing no contention)")(
      "json", po::value<std::string>(), "write the Result as JSON to this file ('-' for stdout)")(
      "omit-wall-time",
      "leave the wall time out of the JSON and the summary, so that they depend on the inputs alone")(
      "timeline", po::value<std::string>(),
      "write a Chrome/Perfetto timeline JSON to this file (with --timeline-format kineto: a prefix)")(
      "timeline-format", po::value<std::string>()->default_value("chrome"),
      "chrome (one Perfetto file, flows between ranks) | kineto (one torch.profiler-style file per rank: "
      "PREFIX.rankN.pt.trace.json, for Holistic Trace Analysis and TensorBoard)")(
      "timeline-ranks", po::value<int>()->default_value(8), "ranks shown in the timeline");
  return options;
}

study::OptionLookup run_option_lookup() {
  return [options = run_options()](const std::string& name) {
    study::OptionKind kind;
    const po::option_description* option = options.find_nothrow(name, false);
    if (option == nullptr || option->long_name() != name) {
      std::vector<std::string> names;
      for (const auto& o : options.options()) names.push_back(o->long_name());
      kind.suggestion = closest_name(name, names).value_or("");
      return kind;
    }
    kind.known = true;
    kind.is_switch = option->semantic()->max_tokens() == 0;
    kind.reserved = name == "json" || name == "omit-wall-time" || name == "timeline" ||
                    name == "timeline-ranks" || name == "timeline-format" || name == "help";
    return kind;
  };
}

study::InputContent run_input_content() {
  auto hashes = std::make_shared<std::map<std::string, std::string>>();  // path -> hash of its content
  const auto file_hash = [hashes](const std::string& path) -> std::string {
    std::error_code ignored;
    if (!std::filesystem::is_regular_file(path, ignored)) return "";
    auto [it, fresh] = hashes->try_emplace(path);
    if (fresh) it->second = content_hash(read_file(path));
    return it->second;
  };
  // The platform a run without --platform gets: run_options()' default, from the one place that says it.
  boost::any platform_default;
  run_options().find("platform", false).semantic()->apply_default(platform_default);
  const std::string default_platform = boost::any_cast<std::string>(platform_default);
  return [=](const std::vector<study::Setting>& settings) {
    std::string platform = default_platform, text;
    for (const study::Setting& s : settings) {
      if (s.option == "platform") platform = s.value;
      if (s.option == "model" || s.option == "profile" || s.option == "trace" ||
          s.option == "deepspeed-config" || s.option == "torchtitan-config")
        text += s.option + "=" + file_hash(s.value) + "\n";
    }
    // As `simtrain run` resolves it; a platform that resolves to nothing fails in its own run.
    std::string path = platform;
    try {
      path = platform::cluster_spec_path(platform);
    } catch (const Error&) {
    }
    text += "platform=" + file_hash(path) + "\n";
    return text;
  };
}

}  // namespace simtrain::cli
