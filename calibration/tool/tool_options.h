// The command line of simtrain-calibrate: what to measure, on which GPU, with which shapes, and where the
// profile goes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/dtype.h"

namespace simtrain::calibration::tool {

struct ToolOptions {
  // Families to measure; when none is named, all of them (--all says so explicitly).
  bool gemm = false, conv = false, attention = false, memory = false, nccl = false;
  bool quick = false;         // small grids and few repeats: a few minutes on one GPU
  std::string model;          // --model: calibrate exactly this built-in model's shapes
  int batch = 0;              // --batch with --model; 0 = the model's default
  std::string shapes_file;    // --shapes FILE
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
