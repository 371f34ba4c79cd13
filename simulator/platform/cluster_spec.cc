// Reads cluster specs (TOML) strictly: every mistake in a spec becomes an Error naming the file, line and
// "section.key", because a silently ignored typo would change the simulated machine.
#include "simulator/platform/cluster_spec.h"

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "common/error.h"
#include "common/file_io.h"
#include "common/toml_parse.h"

namespace simtrain::platform {
namespace {

namespace fs = std::filesystem;

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

// One table of the spec being read, with the file name and section prefix errors need.
class Section {
 public:
  Section(const toml::table& table, std::string file, std::string prefix)
      : table_(table), file_(std::move(file)), prefix_(std::move(prefix)) {}

  std::string field(std::string_view key) const {
    return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
  }

  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    const toml::node* node = table_.get(key);
    throw Error(file_, node ? line_of(*node) : line_of(table_), field(key), message);
  }

  bool has(std::string_view key) const { return table_.contains(key); }

  // Rejects keys outside `allowed`, so that a misspelt key cannot be silently ignored.
  void only_keys(const std::set<std::string, std::less<>>& allowed) const {
    for (auto&& [key, node] : table_) {
      if (allowed.count(key.str()) == 0) {
        std::string list;
        for (const auto& name : allowed) list += (list.empty() ? "" : ", ") + name;
        throw Error(file_, static_cast<int>(key.source().begin.line), field(key.str()),
                    "unknown key (expected one of: " + list + ")");
      }
    }
  }

  const toml::node& require(std::string_view key) const {
    const toml::node* node = table_.get(key);
    if (!node) throw Error(file_, line_of(table_), field(key), "missing required key");
    return *node;
  }

  std::string string(std::string_view key) const {
    const toml::node& node = require(key);
    if (!node.is_string()) fail(key, "expected a string");
    return node.as_string()->get();
  }

  std::string string_or(std::string_view key, std::string fallback) const {
    return has(key) ? string(key) : std::move(fallback);
  }

  // A positive integer that fits an int.
  int positive_int(std::string_view key) const {
    const toml::node& node = require(key);
    if (!node.is_integer()) fail(key, "expected an integer");
    const int64_t value = node.as_integer()->get();
    if (value <= 0) fail(key, "must be positive, got " + std::to_string(value));
    if (value > 1'000'000'000) fail(key, "too large: " + std::to_string(value));
    return static_cast<int>(value);
  }

  // A finite number (integer or float) of at least `minimum` (exclusive when minimum is 0).
  double number(std::string_view key, double minimum = 0) const {
    const toml::node& node = require(key);
    double value = 0;
    if (node.is_integer()) {
      value = static_cast<double>(node.as_integer()->get());
    } else if (node.is_floating_point()) {
      value = node.as_floating_point()->get();
    } else {
      fail(key, "expected a number");
    }
    if (!std::isfinite(value)) fail(key, "must be a finite number");
    if (minimum == 0 && value <= 0) fail(key, "must be positive, got " + format(value));
    if (minimum > 0 && value < minimum)
      fail(key, "must be at least " + format(minimum) + ", got " + format(value));
    return value;
  }

  double number_or(std::string_view key, double fallback, double minimum = 0) const {
    return has(key) ? number(key, minimum) : fallback;
  }

  template <typename Enum>
  Enum choice(std::string_view key, const std::map<std::string, Enum, std::less<>>& options) const {
    const std::string value = string(key);
    const auto found = options.find(value);
    if (found == options.end()) {
      std::string list;
      for (const auto& [name, unused] : options) list += (list.empty() ? "" : " | ") + name;
      fail(key, "unknown value \"" + value + "\" (expected " + list + ")");
    }
    return found->second;
  }

  Section table(std::string_view key) const {
    const toml::node& node = require(key);
    if (!node.is_table()) fail(key, "expected a table [" + field(key) + "]");
    return Section(*node.as_table(), file_, field(key));
  }

 private:
  static std::string format(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
  }

  const toml::table& table_;
  std::string file_;
  std::string prefix_;
};

constexpr double kGB = 1e9;             // bytes
constexpr double kGbToBytes = 1e9 / 8;  // 1 Gb/s = 1e9 bits/s
constexpr double kMicrosecond = 1e-6;

IntraNodeSpec read_intra_node(const Section& section) {
  section.only_keys({"fabric", "bandwidth_GBps", "latency_us", "nvls_efficiency", "nvls_latency_us",
                     "nvls_step_latency_us", "ll128_step_latency_us", "ll128_bandwidth_fraction",
                     "simple_step_latency_us"});
  IntraNodeSpec spec;
  spec.fabric = section.choice<IntraNodeFabric>("fabric", {{"nvswitch", IntraNodeFabric::NVSwitch},
                                                           {"nvlink-mesh", IntraNodeFabric::NVLinkMesh},
                                                           {"pcie", IntraNodeFabric::PCIe}});
  spec.bandwidth_Bps = section.number("bandwidth_GBps") * kGB;
  spec.latency_s = section.number("latency_us") * kMicrosecond;
  if (section.has("nvls_efficiency") || section.has("nvls_latency_us")) {
    if (spec.fabric != IntraNodeFabric::NVSwitch)
      section.fail("nvls_efficiency", "NVLS needs fabric = \"nvswitch\"");
    spec.nvls_efficiency = section.number("nvls_efficiency");
    if (!(spec.nvls_efficiency > 0 && spec.nvls_efficiency <= 1))
      section.fail("nvls_efficiency", "must be in (0, 1]");
    spec.nvls_latency_s = section.number("nvls_latency_us") * kMicrosecond;
    if (section.has("nvls_step_latency_us"))
      spec.nvls_step_latency_s = section.number("nvls_step_latency_us") * kMicrosecond;
  } else if (section.has("nvls_step_latency_us")) {
    section.fail("nvls_step_latency_us", "needs nvls_efficiency and nvls_latency_us");
  }
  if (section.has("ll128_step_latency_us") || section.has("ll128_bandwidth_fraction") ||
      section.has("simple_step_latency_us")) {
    spec.ll128_step_latency_s = section.number("ll128_step_latency_us") * kMicrosecond;
    spec.ll128_bandwidth_fraction = section.number("ll128_bandwidth_fraction");
    if (!(spec.ll128_bandwidth_fraction > 0 && spec.ll128_bandwidth_fraction <= 1))
      section.fail("ll128_bandwidth_fraction", "must be in (0, 1]");
    spec.simple_step_latency_s = section.number("simple_step_latency_us") * kMicrosecond;
  }
  return spec;
}

NicSpec read_nics(const Section& section, int gpus_per_node) {
  section.only_keys({"count", "bandwidth_Gbps", "latency_us"});
  NicSpec spec;
  spec.count = section.positive_int("count");
  if (gpus_per_node % spec.count != 0) {
    section.fail("count", std::to_string(spec.count) + " NICs do not divide gpus_per_node = " +
                              std::to_string(gpus_per_node) + " (each NIC serves the same number of GPUs)");
  }
  spec.bandwidth_Bps = section.number("bandwidth_Gbps") * kGbToBytes;
  spec.latency_s = section.number("latency_us") * kMicrosecond;
  return spec;
}

FabricSpec read_fabric(const Section& section) {
  section.only_keys({"topology", "levels", "nodes_per_leaf", "leaves_per_pod", "leaf_oversubscription",
                     "spine_oversubscription", "switch_latency_us"});
  FabricSpec spec;
  spec.topology = section.choice<FabricTopology>(
      "topology", {{"star", FabricTopology::Star}, {"fat-tree", FabricTopology::FatTree}});
  spec.switch_latency_s = section.number("switch_latency_us") * kMicrosecond;
  if (spec.topology == FabricTopology::Star) {
    // Fat-tree keys on a star would be silently meaningless: say so instead.
    for (const char* key :
         {"levels", "nodes_per_leaf", "leaves_per_pod", "leaf_oversubscription", "spine_oversubscription"}) {
      if (section.has(key)) section.fail(key, "only meaningful for topology = \"fat-tree\"");
    }
    return spec;
  }
  spec.levels = section.positive_int("levels");
  if (spec.levels != 2 && spec.levels != 3) section.fail("levels", "a fat-tree has 2 or 3 levels");
  spec.nodes_per_leaf = section.positive_int("nodes_per_leaf");
  spec.leaf_oversubscription = section.number_or("leaf_oversubscription", 1.0, 1.0);
  if (spec.levels == 3) {
    spec.leaves_per_pod = section.positive_int("leaves_per_pod");
    spec.spine_oversubscription = section.number_or("spine_oversubscription", 1.0, 1.0);
  } else {
    for (const char* key : {"leaves_per_pod", "spine_oversubscription"}) {
      if (section.has(key)) section.fail(key, "only meaningful for levels = 3");
    }
  }
  return spec;
}

}  // namespace

ClusterSpec parse_cluster_spec(const std::string& toml_text, const std::string& origin) {
  const toml::table document = parse_toml(toml_text, origin);
  const Section root(document, origin, "");
  root.only_keys({"name", "description", "nodes", "gpus_per_node", "gpu", "intra_node", "nics", "fabric"});

  ClusterSpec spec;
  spec.source_file = origin;
  spec.name = root.string("name");
  spec.description = root.string_or("description", "");
  spec.nodes = root.positive_int("nodes");
  spec.gpus_per_node = root.positive_int("gpus_per_node");
  spec.gpu = root.string("gpu");
  if (spec.gpu.empty()) root.fail("gpu", "must name a GPU profile");
  spec.intra_node = read_intra_node(root.table("intra_node"));
  spec.nics = read_nics(root.table("nics"), spec.gpus_per_node);
  spec.fabric = read_fabric(root.table("fabric"));
  return spec;
}

ClusterSpec read_cluster_spec(const std::string& path) { return parse_cluster_spec(read_file(path), path); }

std::string platform_directory() {
  if (const char* dir = std::getenv("SIMTRAIN_PLATFORM_DIR"); dir && *dir) return dir;
  return SIMTRAIN_SOURCE_DIR "/platforms";
}

std::vector<std::string> shipped_platform_names() {
  std::vector<std::string> names;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(platform_directory(), ignored)) {
    if (entry.is_regular_file(ignored) && entry.path().extension() == ".toml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

ClusterSpec load_cluster_spec(const std::string& name_or_path) {
  const std::vector<std::string> shipped = shipped_platform_names();
  if (std::find(shipped.begin(), shipped.end(), name_or_path) != shipped.end()) {
    return read_cluster_spec((fs::path(platform_directory()) / (name_or_path + ".toml")).string());
  }
  std::error_code ignored;
  if (fs::is_regular_file(name_or_path, ignored)) return read_cluster_spec(name_or_path);
  std::string list;
  for (const auto& name : shipped) list += (list.empty() ? "" : ", ") + name;
  throw Error("unknown platform \"" + name_or_path + "\": neither a shipped spec (" +
              (list.empty() ? "none found in " + platform_directory() : list) + ") nor a file");
}

}  // namespace simtrain::platform
