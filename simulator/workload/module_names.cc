#include "simulator/workload/module_names.h"

namespace simtrain::workload {

std::optional<std::uint8_t> parse_module_names(std::string_view text, std::span<const ModuleName> names,
                                               std::string* error) {
  std::uint8_t modules = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find_first_of(", ", start);
    const std::string_view name = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (!name.empty()) {
      bool known = false;
      for (const ModuleName& module : names) {
        if (name != module.name) continue;
        modules |= module.bit;
        known = true;
      }
      if (!known) {
        if (error)
          *error =
              "unknown module '" + std::string(name.substr(0, 64)) + "' (" + known_module_names(names) + ")";
        return std::nullopt;
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return modules;
}

std::string module_names_string(std::uint8_t modules, std::span<const ModuleName> names, char separator) {
  std::string text;
  for (const ModuleName& module : names) {
    if ((modules & module.bit) == 0) continue;
    if (!text.empty()) text += separator;
    text += module.name;
  }
  return text;
}

std::string known_module_names(std::span<const ModuleName> names) {
  std::string text;
  for (const ModuleName& module : names) text += (text.empty() ? "" : ", ") + std::string(module.name);
  return text;
}

}  // namespace simtrain::workload
