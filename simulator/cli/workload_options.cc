#include "simulator/cli/workload_options.h"

#include <iostream>

#include "common/error.h"

namespace po = boost::program_options;

namespace simtrain::cli {

void add_workload_options(po::options_description& options) {
  options.add_options()("model", po::value<std::string>()->default_value("resnet50"),
                        "model from the zoo (simtrain models)")("gpus", po::value<int>()->default_value(8),
                                                                "data-parallel GPUs")(
      "batch-per-gpu", po::value<int>()->default_value(256), "micro-batch per GPU, in samples")(
      "grad-accum", po::value<int>()->default_value(1), "micro-batches accumulated per optimizer step")(
      "precision", po::value<std::string>()->default_value("amp"), "fp32 | tf32 | amp (fp16) | amp-bf16")(
      "seq-len", po::value<int>()->default_value(0), "tokens per sequence (0 = the model's default)")(
      "bucket-mb", po::value<double>()->default_value(25), "DDP gradient bucket size in MiB")(
      "optimizer", po::value<std::string>(), "sgd | adam | lamb (default: sgd for CNNs, adam otherwise)");
}

workload::DataParallelConfig workload_from_options(const po::variables_map& vm) {
  workload::DataParallelConfig config;
  config.model = vm["model"].as<std::string>();
  config.gpus = vm["gpus"].as<int>();
  config.batch_per_gpu = vm["batch-per-gpu"].as<int>();
  config.grad_accum = vm["grad-accum"].as<int>();
  auto precision = workload::parse_precision(vm["precision"].as<std::string>());
  if (!precision)
    throw Error("--precision: unknown precision '" + vm["precision"].as<std::string>() +
                "' (fp32, tf32, amp, amp-bf16)");
  config.precision = *precision;
  config.model_options.seq_len = vm["seq-len"].as<int>();
  if (config.model_options.seq_len < 0) throw Error("--seq-len: must not be negative");
  double bucket_mb = vm["bucket-mb"].as<double>();
  if (!(bucket_mb > 0)) throw Error("--bucket-mb: must be positive");
  config.bucket_bytes = bucket_mb * 1024 * 1024;
  if (vm.count("optimizer")) {
    if (!workload::parse_optimizer(vm["optimizer"].as<std::string>(), config.optimizer))
      throw Error("--optimizer: unknown optimizer '" + vm["optimizer"].as<std::string>() +
                  "' (sgd, adam, lamb)");
  } else {
    config.optimizer = workload::default_optimizer(workload::build_model(config.model, config.model_options));
  }
  return config;
}

bool parse_or_help(const std::vector<std::string>& args, const po::options_description& options,
                   po::variables_map& vm, const char* usage) {
  po::store(po::command_line_parser(args).options(options).run(), vm);
  if (vm.count("help")) {
    std::cout << usage << "\n" << options << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace simtrain::cli
