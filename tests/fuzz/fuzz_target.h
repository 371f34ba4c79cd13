// What every fuzz target shares: the entry point's signature, and the rule that bad input may end in a
// simtrain::Error (the CLI prints it as one line) but in nothing else: another exception escapes to
// libFuzzer (or replay_main.cc) and is reported as a finding, as are crashes, leaks and undefined behaviour.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace simtrain::fuzz {

// Runs `parse` on the input as text, treating simtrain::Error as a correct answer.
template <typename Parse>
int accept_any_bytes(const std::uint8_t* data, std::size_t size, Parse&& parse) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    parse(text);
  } catch (const simtrain::Error&) {
  }
  return 0;
}

}  // namespace simtrain::fuzz
