// The command line of simtrain-calibrate: what to measure, on which GPU, with which shapes, and where the
// profile goes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/dtype.h"

namespace simtrain::calibration::tool {

// One --model option: a model (every zoo model, built inside the project; the built-in ones standalone:
// workload_shapes.h) and the micro-batches to calibrate it at (empty = --batch or the
// model's default).
struct ModelBatches {
  std::string name;
  std::vector<int> batches;
  bool operator==(const ModelBatches&) const = default;
};

struct ToolOptions {
  // Families to measure; when none is named, all of them (--all says so explicitly).
  bool gemm = false, conv = false, attention = false, memory = false, nccl = false;
  bool quick = false;  // small grids and few repeats: a few minutes on one GPU
  // --model NAME[:B1,B2...] (repeatable): calibrate exactly these models' shapes at these
  // micro-batches; a model named without batches takes --batch, else its default batch.
  std::vector<ModelBatches> models;
  int batch = 0;              // --batch: the micro-batch of models named without one; 0 = each one's default
  bool grid = false;          // --grid: the generic GEMM grid too, beside --model or --shapes
  std::string shapes_file;    // --shapes FILE
  std::vector<std::string> trace_files;  // --trace FILE (repeatable): the kernel shapes a trace runs
  std::vector<DType> dtypes;  // --dtypes; empty = every dtype the GPU supports
  std::string output;         // -o; empty = calibration/profiles/<gpu>.json
  int device = 0;             // --device: the CUDA device for single-GPU measurements
  bool help = false;
  std::string command_line;  // the exact command, recorded in the profile
};

// Parses argv (args[0] is the program). Throws Error("<option>: <problem>") on unknown options, missing or
// malformed values, unknown dtypes, and --batch without --model.
ToolOptions parse_tool_options(const std::vector<std::string>& args);

std::string usage_text();

// "calibration/profiles/<slug>.json" for a GPU name: lower case, "NVIDIA " dropped, runs of other
// characters turned into '-' ("NVIDIA H200" -> "calibration/profiles/h200.json").
std::string default_output_path(std::string_view gpu_name);

// The arguments joined with spaces, each quoted for a POSIX shell when it needs to be.
std::string shell_command_line(const std::vector<std::string>& args);

}  // namespace simtrain::calibration::tool
