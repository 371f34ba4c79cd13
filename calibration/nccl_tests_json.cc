// Reading the JSON file that nccl-tests writes with -J. Its layout is fixed by the writer in nccl-tests'
// src/util.cu (JSON_FILE_VERSION 2, NVIDIA/nccl-tests), which emits it by hand with printf.
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "calibration/nccl_tests_log.h"
#include "common/error.h"
#include "common/input_limits.h"
#include "common/json_parse.h"
#include "common/number_checks.h"

namespace simtrain::calibration {
namespace {

// "root" is a string printed with "%6i", e.g. "    -1".
int root_of(const std::string& text, const std::string& origin, const std::string& path) {
  std::size_t used = 0;
  int root = 0;
  try {
    root = std::stoi(text, &used);
  } catch (const std::exception&) {
  }
  if (used == 0 || text.find_first_not_of(' ', used) != std::string::npos)
    throw Error(origin, 0, path, "'" + text + "' is not a number");
  return root;
}

}  // namespace

// The -J file: {"args": [argv...], "env": [...], "config": {"nthreads", "ngpus", "devices": [{"hostname",
// "device_info", ...}, one per process]}, "results": [{"size", "count", "type", "redop", "root",
// "out_of_place": {"time", "alg_bw", "bus_bw", "nwrong"}, "in_place": {...}}]}. Errors name the JSON path;
// the writer puts the whole document on one line, so there is no line to give.
NcclTestsLog parse_nccl_tests_json(const std::string& text, const std::string& origin,
                                   const NcclTestsLogHints& hints) {
  using nlohmann::json;
  std::string path;  // of the value being read, for errors
  auto at = [&](const json& parent, const std::string& key, const std::string& where) -> const json& {
    path = where + key;
    return parent.at(key);
  };
  auto number = [&](const json& parent, const std::string& key, const std::string& where,
                    const NumberRange& range = kNonNegative) {
    const double value = at(parent, key, where).get<double>();
    if (auto why = range_violation(value, range)) throw Error(origin, 0, path, *why);
    return value;
  };
  // Bounds that keep the conversions to integers below defined and the derived times finite.
  constexpr NumberRange kPerProcess{1, true, static_cast<double>(kMaxRanks)};
  constexpr NumberRange kSize{0, true, kMaxBytes}, kTime_us{0, true, kMaxDuration_s * 1e6};
  const json document = parse_json(text, origin);
  try {
    NcclTestsRun run;
    run.first_line = 1;
    if (const json args = document.value("args", json::array()); !args.empty())
      run.binary = args[0].get<std::string>().substr(args[0].get<std::string>().rfind('/') + 1);
    for (const json& entry : document.value("env", json::array()))
      if (std::string setting = entry.get<std::string>(); setting.starts_with("NCCL_ALGO="))
        run.algorithm = setting.substr(10);
    const json& config = at(document, "config", "");
    const json& devices = at(config, "devices", "config.");
    std::set<std::string> hosts;
    for (const json& device : devices) hosts.insert(device.value("hostname", ""));
    // One device entry per process: nccl-tests parses only the first rank line of each process.
    const double per_process =
        number(config, "nthreads", "config.", kPerProcess) * number(config, "ngpus", "config.", kPerProcess);
    if (devices.size() * per_process > static_cast<double>(kMaxRanks))
      throw Error(origin, 0, "config", "more than " + std::to_string(kMaxRanks) + " ranks");
    run.ranks = static_cast<int>(devices.size() * per_process);
    run.nodes = static_cast<int>(hosts.size());
    if (!devices.empty()) run.gpu = devices[0].value("device_info", "");
    const json& results = at(document, "results", "");
    for (std::size_t i = 0; i < results.size(); ++i) {
      const std::string where = "results[" + std::to_string(i) + "].";
      NcclTestsRow row;
      row.bytes = static_cast<std::int64_t>(number(results[i], "size", where, kSize));
      row.count = static_cast<std::int64_t>(number(results[i], "count", where, kSize));
      row.type = at(results[i], "type", where).get<std::string>();
      row.redop = at(results[i], "redop", where).get<std::string>();
      row.root = root_of(at(results[i], "root", where).get<std::string>(), origin, path);
      for (const std::string half : {"out_of_place", "in_place"}) {
        NcclTestsTiming& into = half == "in_place" ? row.in_place : row.out_of_place;
        const json& timing = at(results[i], half, where);
        into.time_us =
            number(timing, timing.contains("cpu_time") ? "cpu_time" : "time", where + half + ".", kTime_us);
        into.algbw_GBps = number(timing, "alg_bw", where + half + ".");
        into.busbw_GBps = number(timing, "bus_bw", where + half + ".");
        if (timing.contains("nwrong") && timing["nwrong"].is_number())
          into.wrong = timing["nwrong"].get<double>();
      }
      run.rows.push_back(std::move(row));
    }
    if (run.rows.empty()) throw Error(origin, 0, "results", "no results");
    if (run.ranks <= 0) throw Error(origin, 0, "config.devices", "no devices");
    const std::string& name = !run.binary.empty() ? run.binary : hints.op;
    const auto op = nccl_tests_op_name(name);
    if (!op)
      throw Error(origin, 0, "args", "'" + name + "' is not a collective simtrain models (give the op)");
    run.op = *op;
    return NcclTestsLog{origin, {std::move(run)}};
  } catch (const json::exception& e) {
    std::string what = e.what();  // "[json.exception.<kind>.<id>] message"
    throw Error(origin, 0, path, what.substr(what.find("] ") + 2));
  }
}

}  // namespace simtrain::calibration
