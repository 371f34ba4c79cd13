// A study: a base configuration of `simtrain run` plus the axes to sweep, read from a TOML scenario file
// (scenarios/README.md describes the format), and its expansion into scenarios.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace simtrain::study {

// One `simtrain run` option and its value as the command line takes it ("8", "amp"); a switch (--sp) has
// the value "true" and is left out when false. `line` is where the file set it.
struct Setting {
  std::string option;
  std::string value;
  int line = 0;
  bool operator==(const Setting&) const = default;
};

// Options swept together: every option of a group has the same number of values and the group's i-th run
// takes the i-th value of each (zipped). Groups multiply (cartesian product), in file order.
struct AxisGroup {
  std::vector<std::string> options;
  std::vector<std::vector<Setting>> values;  // values[i] = the i-th run's setting of each option
};

// Runs to leave out: a scenario is excluded when it matches every setting of one entry.
using Exclusion = std::vector<Setting>;

struct Study {
  std::string file;
  std::string name;
  std::vector<Setting> base;
  std::vector<AxisGroup> axes;
  std::vector<Exclusion> excludes;
  // Record runs that `simtrain run` refuses as infeasible (exit 4: a plan that does not divide, a model that
  // does not fit in memory) as skipped rather than failed. Bad input (exit 2, a misspelt model) still fails.
  bool skip_invalid = false;
  // Per-scenario wall-clock limit in seconds (0 = none).
  double time_limit_s = 0;

  // The option names of the axes, in file order: the scenario columns of a study's table.
  std::vector<std::string> axis_options() const;
};

// How an option of `simtrain run` takes its value, for checking a scenario file before anything runs:
// `known` false for an unknown option, `is_switch` for options without a value (--sp, --allow-oom).
struct OptionKind {
  bool known = false;
  bool is_switch = false;
  bool reserved = false;   // set by the sweep itself (--json, --omit-wall-time, --timeline, --help)
  std::string suggestion;  // for an unknown option: the likely intended one, or empty
};
using OptionLookup = std::function<OptionKind(const std::string& option)>;

// Reads a scenario file. Throws Error(file, line, key, ...) on TOML syntax errors, unknown tables or keys,
// options `lookup` does not know, values of the wrong type (a switch given a number, an option given a
// table), empty axes, zipped axes of different lengths, an option set both in [base] and on an axis or on
// two axes, and exclusions naming options that are not swept.
Study read_study(const std::string& path, const OptionLookup& lookup);
Study parse_study(const std::string& toml_text, const std::string& origin, const OptionLookup& lookup);

// One run of a study: its index in expansion order, the full option list (base, then axes) and the values
// of the axes alone.
struct Scenario {
  std::size_t index = 0;
  std::vector<Setting> settings;
  std::vector<Setting> axis_values;
  // What else decides the run's result (expand fills it in): a hash of the content of the files its settings
  // make `simtrain run` read, and of the study's skip_invalid, which decides how a refused run is recorded.
  std::string inputs;
  // 16 hex digits naming the run: a hash of simtrain's version, its settings sorted by option and `inputs`,
  // the same in every process and on every machine, so that a finished run is recognised when a study is
  // resumed or sharded, and a run whose platform, model, profile or trace file changed is made again.
  std::string key() const;
  // The `simtrain run` arguments: "--option value", or "--option" alone for a switch set to true; a switch
  // set to false and an option set to "" are left out.
  std::vector<std::string> run_arguments() const;
};

// The cartesian product of the axis groups (the last group varies fastest), without excluded runs. Indices
// count all runs, excluded ones included, so that they do not shift when an exclusion is added. Throws Error
// when the product exceeds kMaxStudyRuns (common/input_limits.h).
// `inputs` gives, for a run's settings, text that changes whenever a file the run reads changes (the files'
// content or a hash of it; "" when it reads none): the caller knows how `simtrain run` resolves names and
// defaults (a shipped platform's name, or no platform at all, is a file under platforms/).
using InputContent = std::function<std::string(const std::vector<Setting>& settings)>;
std::vector<Scenario> expand(const Study& study, const InputContent& inputs = {});

}  // namespace simtrain::study
