// Implements collect.h: Result JSON flattened with nlohmann-json.
#include "simulator/study/collect.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace simtrain::study {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// Scalars of a Result, nested objects' as "outer.inner"; arrays are left out (they are per-rank detail).
void flatten(const nlohmann::ordered_json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  for (const auto& [key, value] : j.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object()) {
      flatten(value, name, out);
    } else if (value.is_string()) {
      out.emplace_back(name, value.get<std::string>());
    } else if (value.is_primitive() && !value.is_null()) {
      out.emplace_back(name, value.dump());
    }
  }
}

}  // namespace

StudyTable collect_table(const Study& study, const std::vector<Scenario>& scenarios,
                         const ResultStore& store) {
  StudyTable table;
  table.axes = study.axis_options();
  table.columns = {"index", "key", "status", "error"};
  table.columns.insert(table.columns.end(), table.axes.begin(), table.axes.end());
  std::vector<std::string> metrics;
  for (const Scenario& scenario : scenarios) {
    std::map<std::string, std::string> row;
    const std::optional<RunRecord> record = store.read(scenario.key());
    row["index"] = std::to_string(scenario.index);
    row["key"] = scenario.key();
    row["status"] = record ? std::string(to_string(record->status)) : "pending";
    row["error"] = record ? record->error : "";
    for (const Setting& s : scenario.axis_values) row[s.option] = s.value;
    if (record && !record->result_json.empty()) {
      std::vector<std::pair<std::string, std::string>> flat;
      flatten(nlohmann::ordered_json::parse(record->result_json), "", flat);
      for (const auto& [name, value] : flat) {
        // A metric named like an axis ("platform", "gpus") would overwrite the value the study set, and
        // repeat its column: the study's value is the one its plots and tables are about.
        if (std::find(table.axes.begin(), table.axes.end(), name) != table.axes.end()) continue;
        if (std::find(metrics.begin(), metrics.end(), name) == metrics.end()) metrics.push_back(name);
        row[name] = value;
      }
    }
    table.rows.push_back(std::move(row));
  }
  table.columns.insert(table.columns.end(), metrics.begin(), metrics.end());
  return table;
}

std::string to_csv(const StudyTable& table) {
  std::string csv;
  for (std::size_t c = 0; c < table.columns.size(); ++c) csv += (c ? "," : "") + csv_field(table.columns[c]);
  csv += "\n";
  for (const auto& row : table.rows) {
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const auto it = row.find(table.columns[c]);
      csv += (c ? "," : "") + csv_field(it == row.end() ? "" : it->second);
    }
    csv += "\n";
  }
  return csv;
}

}  // namespace simtrain::study
