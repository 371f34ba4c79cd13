// Command-line parsing for simtrain-calibrate, by hand: the tool must build where no options library is.
#include "calibration/tool/tool_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "calibration/tool/workload_shapes.h"
#include "common/error.h"

namespace simtrain::calibration::tool {
namespace {

int parse_int(const std::string& option, const std::string& text, int minimum) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw Error(option + ": expected an integer, got '" + text + "'");
  if (value < minimum)
    throw Error(option + ": must be at least " + std::to_string(minimum) + ", got " + text);
  return value;
}

std::vector<DType> parse_dtypes(const std::string& text) {
  std::vector<DType> dtypes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    const auto dtype = parse_dtype(name);
    if (!dtype) throw Error("--dtypes: unknown dtype '" + name + "' (expected fp32, tf32, fp16, bf16, fp8)");
    if (std::find(dtypes.begin(), dtypes.end(), *dtype) == dtypes.end()) dtypes.push_back(*dtype);
    start = comma + 1;
  }
  return dtypes;
}

// "resnet50" or "resnet50:128,256"; an unknown name throws the error that lists the known ones.
ModelBatches parse_model(const std::string& option, const std::string& text) {
  ModelBatches model;
  const std::size_t colon = text.find(':');
  model.name = text.substr(0, colon);
  shapes_of_model(model.name, 1);
  if (colon == std::string::npos) return model;
  std::size_t start = colon + 1;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const int batch = parse_int(option, text.substr(start, comma - start), 1);
    if (std::find(model.batches.begin(), model.batches.end(), batch) == model.batches.end())
      model.batches.push_back(batch);
    start = comma + 1;
  }
  return model;
}

}  // namespace

std::string usage_text() {
  const std::string models = workload_shapes_available()
                                 ? "every model of `simtrain models`, or a model file (.toml)"
                                 : "resnet50, bert-large, gpt2-xl, llama2-7b (this build is standalone)";
  const std::string traces = workload_shapes_available()
                                 ? "any format `simtrain run --trace` takes"
                                 : "not in a standalone build: use `simtrain trace shapes`";
  return "usage: simtrain-calibrate [--gemm] [--conv] [--attention] [--memory] [--nccl] [--all]\n"
         "                          [--quick] [--model NAME[:B,...]]... [--batch N] [--trace FILE]...\n"
         "                          [--shapes FILE] [--grid]\n"
         "                          [--dtypes fp32,tf32,fp16,bf16,fp8] [-o PROFILE.json] [--device N]\n"
         "\n"
         "Measures cuBLASLt GEMMs, cuDNN convolutions, attention, memory bandwidth and NCCL collectives on\n"
         "the local GPUs and writes a calibration profile (default:\n"
         "calibration/profiles/<gpu>.json). Without a family option, all are measured; --conv also\n"
         "measures batch norm, max pooling, ReLU and log-softmax.\n"
         "  --quick          small grids and few repeats (a few minutes on one GPU)\n"
         "  --model NAME[:B,...]  the kernel shapes of a model's training step at micro-batches B\n"
         "                   (repeatable): " +
         models +
         "\n"
         "  --batch N        micro-batch of a --model named without one (default: a typical one per model)\n"
         "  --trace FILE     the kernel shapes a trace runs (repeatable): " +
         traces +
         "\n"
         "  --shapes FILE    kernel shapes, one per line (see calibration/tool/shapes_file.h)\n"
         "  --grid           the generic GEMM grid as well (measured by default only without --model,\n"
         "                   --trace and --shapes)\n"
         "  --dtypes LIST    dtypes to measure (default: all the GPU supports; naming one it does not\n"
         "                   support is an error)\n"
         "  --device N       the GPU for single-GPU measurements (NCCL uses all visible GPUs)\n";
}

ToolOptions parse_tool_options(const std::vector<std::string>& args) {
  ToolOptions options;
  options.command_line = shell_command_line(args);
  bool batch_given = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw Error(arg + ": missing value");
      return args[++i];
    };
    if (arg == "--gemm") {
      options.gemm = true;
    } else if (arg == "--conv") {
      options.conv = true;
    } else if (arg == "--attention") {
      options.attention = true;
    } else if (arg == "--memory") {
      options.memory = true;
    } else if (arg == "--nccl") {
      options.nccl = true;
    } else if (arg == "--all") {
      options.gemm = options.conv = options.attention = options.memory = options.nccl = true;
    } else if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--model") {
      options.models.push_back(parse_model(arg, value()));
    } else if (arg == "--batch") {
      options.batch = parse_int(arg, value(), 1);
      batch_given = true;
    } else if (arg == "--grid") {
      options.grid = true;
    } else if (arg == "--trace") {
      options.trace_files.push_back(value());
    } else if (arg == "--shapes") {
      options.shapes_file = value();
    } else if (arg == "--dtypes") {
      options.dtypes = parse_dtypes(value());
    } else if (arg == "-o" || arg == "--output") {
      options.output = value();
      if (options.output.empty()) throw Error(arg + ": empty path");
    } else if (arg == "--device") {
      options.device = parse_int(arg, value(), 0);
    } else if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else {
      throw Error(arg + ": unknown option (see --help)");
    }
  }
  if (batch_given && options.models.empty()) throw Error("--batch: needs --model");
  if (!options.gemm && !options.conv && !options.attention && !options.memory && !options.nccl)
    options.gemm = options.conv = options.attention = options.memory = options.nccl = true;
  return options;
}

std::string default_output_path(std::string_view gpu_name) {
  std::string name(gpu_name);
  if (name.rfind("NVIDIA ", 0) == 0) name.erase(0, 7);
  std::string slug;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return "calibration/profiles/" + (slug.empty() ? std::string("gpu") : slug) + ".json";
}

std::string shell_command_line(const std::vector<std::string>& args) {
  std::string line;
  for (const std::string& arg : args) {
    if (!line.empty()) line += ' ';
    const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) ||
             std::string_view("-_./=,:+@%").find(c) != std::string_view::npos;
    });
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (const char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace simtrain::calibration::tool
