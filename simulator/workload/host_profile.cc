// Implements host_profile.h: a small strict JSON reader.
#include "simulator/workload/host_profile.h"

#include <array>
#include <string_view>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_parse.h"

namespace simtrain::workload {
namespace {

constexpr std::string_view kSchema = "simtrain-host";
constexpr double kMaxDispatch_s = 0.1;
constexpr std::array<std::string_view, 6> kKeys = {
    "schema", "version", "name", "dispatch_per_kernel_s", "launch_call_s", "source"};

}  // namespace

HostProfile parse_host_profile(const std::string& text, const std::string& origin) {
  const nlohmann::json doc = parse_json(text, origin);
  const auto fail = [&](const std::string& field, const std::string& why) {
    throw Error(origin, 0, field, why);
  };
  if (!doc.is_object()) fail("", "expected a JSON object");
  for (const auto& item : doc.items()) {
    bool known = false;
    for (std::string_view key : kKeys) known = known || item.key() == key;
    if (!known)
      fail(item.key(),
           "unknown key (expected one of: schema, version, name, dispatch_per_kernel_s, launch_call_s, "
           "source)");
  }
  const auto need = [&](const char* key) -> const nlohmann::json& {
    if (!doc.contains(key)) fail(key, "missing required field");
    return doc.at(key);
  };
  const auto string_at = [&](const char* key) {
    const nlohmann::json& value = need(key);
    if (!value.is_string()) fail(key, "expected a string");
    return value.get<std::string>();
  };
  if (string_at("schema") != kSchema) fail("schema", "expected \"simtrain-host\"");
  const nlohmann::json& version = need("version");
  if (!version.is_number_integer() || version.get<long long>() != 1) fail("version", "expected 1");
  HostProfile profile;
  profile.name = string_at("name");
  if (profile.name.empty()) fail("name", "must not be empty");
  const nlohmann::json& dispatch = need("dispatch_per_kernel_s");
  if (!dispatch.is_number()) fail("dispatch_per_kernel_s", "expected a number of seconds");
  profile.dispatch_per_kernel_s = dispatch.get<double>();
  if (!(profile.dispatch_per_kernel_s > 0 && profile.dispatch_per_kernel_s <= kMaxDispatch_s))
    fail("dispatch_per_kernel_s", "must be in (0, 0.1] seconds, got " + dispatch.dump());
  if (doc.contains("launch_call_s")) {
    const nlohmann::json& call = doc.at("launch_call_s");
    if (!call.is_number()) fail("launch_call_s", "expected a number of seconds");
    profile.launch_call_s = call.get<double>();
    if (!(profile.launch_call_s > 0 && profile.launch_call_s <= profile.dispatch_per_kernel_s))
      fail("launch_call_s", "must be positive and at most dispatch_per_kernel_s, got " + call.dump());
  }
  if (doc.contains("source")) profile.source = string_at("source");
  return profile;
}

HostProfile load_host_profile(const std::string& path) { return parse_host_profile(read_file(path), path); }

}  // namespace simtrain::workload
