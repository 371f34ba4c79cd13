// Models defined in TOML files, so that users can add a transformer without recompiling: a [model] table of
// shapes and an optional [moe] table (keys in models/README.md), laid out by the zoo's generic decoder.
#pragma once

#include <string>

#include "simulator/workload/model_zoo.h"

namespace simtrain::workload {

// Reads strictly: an unknown key, a value of the wrong type, a non-positive size or shapes that do not divide
// (hidden by heads, heads by kv_heads) throw Error(origin, line, "section.key", message), since a silently
// ignored typo would change the simulated model. options.seq_len, when positive, replaces the file's seq_len.
Model parse_model_toml(const std::string& toml_text, const std::string& origin,
                       const ModelOptions& options = {});
// The same for a file; Error(path, 0, "", ...) when it cannot be read.
Model read_model_toml(const std::string& path, const ModelOptions& options = {});

}  // namespace simtrain::workload
