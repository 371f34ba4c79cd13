// Editing cluster-spec text for the bad-input tests, and checking that parsing it fails where it should.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "common/error.h"
#include "simulator/platform/cluster_spec.h"

namespace simtrain::testing {

inline std::string replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

// Parsing `text` fails with an Error at `line` about `field`, whose message contains `words`.
inline void check_error(const std::string& text, int line, const std::string& field,
                        const std::string& words) {
  try {
    platform::parse_cluster_spec(text, "bad.toml");
    FAIL("expected an Error about " << field);
  } catch (const Error& error) {
    const std::string what = error.what();
    INFO(what);
    CHECK(error.file() == "bad.toml");
    CHECK(error.line() == line);
    CHECK(error.field() == field);
    CHECK(what.find("bad.toml:" + std::to_string(line)) == 0);
    CHECK(what.find(field) != std::string::npos);
    CHECK(what.find(words) != std::string::npos);
  }
}

}  // namespace simtrain::testing
