// Fuzz target: platform (cluster spec) TOML files (simulator/platform/cluster_spec.h), including the check
// that the nodes fit the fabric, which build_platform runs before creating anything.
#include "simulator/platform/cluster_spec.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(data, size, [](const std::string& text) {
    const auto spec = simtrain::platform::parse_cluster_spec(text, "fuzz.toml");
    simtrain::platform::check_nodes_fit(spec);
  });
}
