// Fuzz target: study scenario files (simulator/study/scenario_file.h), read and expanded into scenarios as
// `simtrain sweep` does. Options are judged by a stand-in for the CLI's table: every name is an option, and
// two of them are switches, so that both kinds of value are exercised.
#include "simulator/study/scenario_file.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(data, size, [](const std::string& text) {
    const auto lookup = [](const std::string& option) {
      return simtrain::study::OptionKind{true, option == "sp" || option == "allow-oom", option == "json"};
    };
    const auto study = simtrain::study::parse_study(text, "fuzz.toml", lookup);
    for (const auto& scenario : simtrain::study::expand(study)) scenario.key();
  });
}
