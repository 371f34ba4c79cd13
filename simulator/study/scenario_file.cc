// Implements scenario_file.h: strict reading of scenario files with toml++ and their expansion.
#include "simulator/study/scenario_file.h"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "common/content_hash.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/input_limits.h"
#include "common/toml_parse.h"

namespace simtrain::study {
namespace {

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

// A scalar as the command line takes it; nullopt for arrays and tables. Floats are written in their
// shortest round-trip form, so 0.1 stays "0.1".
std::optional<std::string> scalar_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* f = node.as_floating_point()) {
    char text[64];
    const auto [end, error] = std::to_chars(text, text + sizeof text, f->get());
    if (error == std::errc()) return std::string(text, end);
  }
  return std::nullopt;
}

// Reads one option's value, checked against what `simtrain run` expects of it.
class Reader {
 public:
  Reader(std::string file, const OptionLookup& lookup) : file_(std::move(file)), lookup_(lookup) {}

  [[noreturn]] void fail(int line, const std::string& field, const std::string& message) const {
    throw Error(file_, line, field, message);
  }

  Setting setting(const std::string& table, const std::string& option, const toml::node& value,
                  int line) const {
    const std::string field = table + "." + option;
    const OptionKind kind = lookup_(option);
    if (!kind.known)
      fail(line, field,
           "unknown option of simtrain run" +
               (kind.suggestion.empty() ? std::string() : " (did you mean '" + kind.suggestion + "'?)") +
               " (see simtrain run --help)");
    if (kind.reserved) fail(line, field, "set by simtrain sweep itself; remove it");
    const auto text = scalar_text(value);
    if (!text) fail(line, field, "expected a string, number or boolean");
    if (kind.is_switch && !value.is_boolean()) fail(line, field, "a switch: expected true or false");
    if (!kind.is_switch && value.is_boolean())
      fail(line, field, "takes a value: expected a string or number");
    return {option, *text, line};
  }

  // The values of an axis: a non-empty array of scalars.
  std::vector<Setting> axis(const std::string& table, const std::string& option,
                            const toml::node& node) const {
    const std::string field = table + "." + option;
    const toml::array* values = node.as_array();
    if (values == nullptr) fail(line_of(node), field, "an axis: expected an array of values");
    if (values->empty()) fail(line_of(node), field, "an empty axis: give at least one value");
    std::vector<Setting> settings;
    for (const toml::node& value : *values) settings.push_back(setting(table, option, value, line_of(node)));
    return settings;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
  const OptionLookup& lookup_;
};

// toml++ iterates a table by key; errors and the order of columns and arguments follow the file instead.
std::vector<std::pair<std::string, const toml::node*>> in_file_order(const toml::table& table) {
  std::vector<std::pair<std::string, const toml::node*>> entries;
  for (auto&& [key, node] : table) entries.emplace_back(std::string(key.str()), &node);
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return line_of(*a.second) < line_of(*b.second); });
  return entries;
}

const toml::table& table_at(const Reader& reader, const toml::node& node, const std::string& name) {
  const toml::table* table = node.as_table();
  if (table == nullptr) reader.fail(line_of(node), name, "expected a table [" + name + "]");
  return *table;
}

// A study's name becomes a directory under results/: nothing that could climb out of it ("..", "/"), hide
// (".x"), or surprise a shell or a plot.
bool plain_name(const std::string& name) {
  if (name.empty() || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

}  // namespace

// FNV-1a, 64 bits: a stable hash that needs no library and is the same on every machine.
std::vector<std::string> Study::axis_options() const {
  std::vector<std::string> options;
  for (const AxisGroup& group : axes)
    options.insert(options.end(), group.options.begin(), group.options.end());
  return options;
}

Study parse_study(const std::string& toml_text, const std::string& origin, const OptionLookup& lookup) {
  const toml::table document = parse_toml(toml_text, origin);
  const Reader reader(origin, lookup);
  Study study;
  study.file = origin;
  std::map<std::string, int> set_at;  // option -> line of its first setting, to refuse a second one
  auto claim = [&](const Setting& s, const std::string& table) {
    const auto [it, fresh] = set_at.emplace(s.option, s.line);
    if (!fresh)
      reader.fail(s.line, table + "." + s.option,
                  "set twice: already set on line " + std::to_string(it->second) +
                      " (an option is either "
                      "fixed in [base] or swept on one axis)");
  };
  std::vector<std::pair<int, AxisGroup>> groups;  // with their line, to keep the file's order

  for (auto&& [key, node] : document) {
    const std::string name(key.str());
    const int line = static_cast<int>(key.source().begin.line);
    if (name == "study") {
      for (auto&& [k, v] : table_at(reader, node, name)) {
        const std::string field = "study." + std::string(k.str());
        if (k.str() == "name") {
          if (!v.is_string()) reader.fail(line_of(v), field, "expected a string");
          study.name = v.as_string()->get();
          if (!plain_name(study.name))
            reader.fail(line_of(v), field,
                        "must be a plain name of letters, digits, '.', '_' and '-', not starting with '.' "
                        "(it names the results directory results/<name>)");
        } else if (k.str() == "skip_invalid") {
          if (!v.is_boolean()) reader.fail(line_of(v), field, "expected true or false");
          study.skip_invalid = v.as_boolean()->get();
        } else if (k.str() == "time_limit_s") {
          const auto seconds = v.value<double>();
          if (!seconds || !(*seconds > 0) || !std::isfinite(*seconds))
            reader.fail(line_of(v), field, "expected a finite number of seconds > 0");
          study.time_limit_s = *seconds;
        } else {
          reader.fail(static_cast<int>(k.source().begin.line), field,
                      "unknown key (expected name, skip_invalid, time_limit_s)");
        }
      }
    } else if (name == "base") {
      for (auto&& [option, value] : in_file_order(table_at(reader, node, name))) {
        const Setting s = reader.setting("base", option, *value, line_of(*value));
        claim(s, "base");
        study.base.push_back(s);
      }
    } else if (name == "sweep") {
      for (auto&& [k, v] : table_at(reader, node, name)) {
        AxisGroup group;
        group.options = {std::string(k.str())};
        for (const Setting& s : reader.axis("sweep", group.options[0], v)) group.values.push_back({s});
        claim(group.values[0][0], "sweep");
        groups.emplace_back(line_of(v), std::move(group));
      }
    } else if (name == "zip") {
      const toml::array* zips = node.as_array();
      if (zips == nullptr || !zips->is_array_of_tables())
        reader.fail(line, name, "expected [[zip]] tables of axes swept together");
      for (const toml::node& entry : *zips) {
        AxisGroup group;
        int first_line = 0;
        for (auto&& [option, value] : in_file_order(*entry.as_table())) {
          const toml::node& v = *value;
          const std::vector<Setting> values = reader.axis("zip", option, v);
          if (!group.options.empty() && values.size() != group.values.size())
            reader.fail(line_of(v), "zip." + option,
                        "zipped axes must have equal lengths: " + std::to_string(values.size()) +
                            " values here, " + std::to_string(group.values.size()) + " for " +
                            group.options[0]);
          if (group.options.empty()) {
            group.values.resize(values.size());
            first_line = line_of(v);
          }
          group.options.push_back(option);
          for (std::size_t i = 0; i < values.size(); ++i) group.values[i].push_back(values[i]);
          claim(values[0], "zip");
        }
        if (group.options.empty()) reader.fail(line_of(entry), "zip", "an empty [[zip]]: give its axes");
        groups.emplace_back(first_line, std::move(group));
      }
    } else if (name == "exclude") {
      const toml::array* entries = node.as_array();
      if (entries == nullptr || !entries->is_array_of_tables())
        reader.fail(line, name, "expected [[exclude]] tables of option values");
      for (const toml::node& entry : *entries) {
        Exclusion exclusion;
        for (auto&& [k, v] : *entry.as_table())
          exclusion.push_back(
              reader.setting("exclude", std::string(k.str()), v, static_cast<int>(k.source().begin.line)));
        if (exclusion.empty())
          reader.fail(line_of(entry), "exclude", "an empty [[exclude]] would exclude every run");
        study.excludes.push_back(std::move(exclusion));
      }
    } else {
      reader.fail(line, name, "unknown table (expected [study], [base], [sweep], [[zip]], [[exclude]])");
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // expand() makes one Scenario per run: a few short axes must not ask for billions of them.
  std::size_t runs = 1;
  for (auto& [line, group] : groups) {
    runs *= group.values.size();
    if (runs > kMaxStudyRuns)
      reader.fail(line, group.options[0],
                  "the axes up to this one make more than " + std::to_string(kMaxStudyRuns) +
                      " runs; split the study");
    study.axes.push_back(std::move(group));
  }
  if (study.name.empty()) throw Error(origin, 0, "study.name", "missing: every study needs a name");
  // An exclusion can only name swept options: one naming a fixed option would drop all runs or none.
  const std::vector<std::string> swept = study.axis_options();
  for (const Exclusion& exclusion : study.excludes)
    for (const Setting& s : exclusion)
      if (std::find(swept.begin(), swept.end(), s.option) == swept.end())
        reader.fail(s.line, "exclude." + s.option, "not a swept option: an exclusion names axis values");
  return study;
}

Study read_study(const std::string& path, const OptionLookup& lookup) {
  return parse_study(read_file(path), path, lookup);
}

std::string Scenario::key() const {
  std::vector<Setting> sorted = settings;
  std::sort(sorted.begin(), sorted.end(),
            [](const Setting& a, const Setting& b) { return a.option < b.option; });
  // The version first: another simtrain may predict another time for the same settings.
  std::string canonical = "simtrain " SIMTRAIN_VERSION "\n";
  for (const Setting& s : sorted) canonical += s.option + "=" + s.value + "\n";
  if (!inputs.empty()) canonical += "inputs=" + inputs + "\n";
  return hex(fnv1a(canonical));
}

std::vector<std::string> Scenario::run_arguments() const {
  std::vector<std::string> args;
  for (const Setting& s : settings) {
    // A switch set to false, or an option set to "" (left out: zipped axes can say "not for this run").
    if (s.value == "false" || s.value.empty()) continue;
    args.push_back("--" + s.option);
    if (s.value != "true") args.push_back(s.value);
  }
  return args;
}

std::vector<Scenario> expand(const Study& study, const InputContent& inputs) {
  // Checked as it multiplies: 64 axes of two values are 2^64 runs, which would wrap around to 0.
  std::size_t total = 1;
  for (const AxisGroup& group : study.axes) {
    if (group.values.size() > kMaxStudyRuns / total)
      throw Error(study.file, group.values.empty() ? 0 : group.values[0][0].line, "sweep",
                  "the study expands to more than " + std::to_string(kMaxStudyRuns) +
                      " runs (the axes multiply); split it into smaller studies");
    total *= group.values.size();
  }
  std::vector<Scenario> scenarios;
  for (std::size_t index = 0; index < total; ++index) {
    Scenario scenario;
    scenario.index = index;
    scenario.settings = study.base;
    // Mixed radix: the last group varies fastest.
    std::size_t rest = index;
    std::vector<const std::vector<Setting>*> picks(study.axes.size());
    for (std::size_t g = study.axes.size(); g-- > 0;) {
      const std::size_t size = study.axes[g].values.size();
      picks[g] = &study.axes[g].values[rest % size];
      rest /= size;
    }
    for (const auto* pick : picks)
      scenario.axis_values.insert(scenario.axis_values.end(), pick->begin(), pick->end());
    const bool excluded = std::any_of(study.excludes.begin(), study.excludes.end(), [&](const Exclusion& e) {
      return std::all_of(e.begin(), e.end(), [&](const Setting& s) {
        return std::any_of(scenario.axis_values.begin(), scenario.axis_values.end(),
                           [&](const Setting& v) { return v.option == s.option && v.value == s.value; });
      });
    });
    if (excluded) continue;
    scenario.settings.insert(scenario.settings.end(), scenario.axis_values.begin(),
                             scenario.axis_values.end());
    const std::string content =
        (study.skip_invalid ? "skip_invalid\n" : "") + (inputs ? inputs(scenario.settings) : std::string());
    scenario.inputs = hex(fnv1a(content));
    scenarios.push_back(std::move(scenario));
  }
  return scenarios;
}

}  // namespace simtrain::study
