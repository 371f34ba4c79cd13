// Parsing TOML text with toml++ into the project's Error, for every TOML reader (cluster specs, model files,
// scenario files). Header-only: only the parts that read TOML link toml++.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "common/error.h"

namespace simtrain {

// The document, or Error(origin, line, "", "TOML syntax: ...") at the first syntax error.
inline toml::table parse_toml(const std::string& text, const std::string& origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& error) {
    throw Error(origin, static_cast<int>(error.source().begin.line), "",
                "TOML syntax: " + std::string(error.description()));
  }
}

}  // namespace simtrain
