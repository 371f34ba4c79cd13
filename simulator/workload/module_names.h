// Megatron's lists of layer submodules (--recompute-modules, --cuda-graph-modules): names separated by
// commas or spaces, each one bit of a set. Shared by recompute_modules.h and cuda_graphs.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace simtrain::workload {

// One submodule's Megatron name and its bit.
struct ModuleName {
  std::string_view name;
  std::uint8_t bit;
};

// The set `text` names; nullopt on an unknown name, which `error` then gives with the known ones.
std::optional<std::uint8_t> parse_module_names(std::string_view text, std::span<const ModuleName> names,
                                               std::string* error);
// The set's names in the table's order, joined by `separator`.
std::string module_names_string(std::uint8_t modules, std::span<const ModuleName> names, char separator);
// Every name of the table, comma-separated ("core_attn, layernorm, ...").
std::string known_module_names(std::span<const ModuleName> names);

}  // namespace simtrain::workload
