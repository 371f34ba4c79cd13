// One table of a cluster spec being read, with the file name and section prefix that errors need: the
// strict readers of cluster_spec.cc and fabric_spec.cc, where every mistake becomes an Error naming the
// file, line and "section.key", because a silently ignored typo would change the simulated machine.
#pragma once

#include <toml++/toml.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace simtrain::platform {

int line_of(const toml::node& node);

class Section {
 public:
  Section(const toml::table& table, std::string file, std::string prefix)
      : table_(table), file_(std::move(file)), prefix_(std::move(prefix)) {}

  const std::string& file() const { return file_; }
  std::string field(std::string_view key) const;
  // The line of `key`, or of the table when the key is absent.
  int line(std::string_view key) const;
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;
  bool has(std::string_view key) const { return table_.contains(key); }

  // Rejects keys outside `allowed`, so that a misspelt key cannot be silently ignored.
  void only_keys(const std::set<std::string, std::less<>>& allowed) const;
  // Rejects `keys` that are present, saying what they need ("only meaningful for ...").
  void forbid(const std::vector<std::string_view>& keys, const std::string& needs) const;

  const toml::node& require(std::string_view key) const;
  std::string string(std::string_view key) const;
  std::string string_or(std::string_view key, std::string fallback) const;
  bool boolean_or(std::string_view key, bool fallback) const;
  // A positive integer that fits an int.
  int positive_int(std::string_view key) const;
  int positive_int_or(std::string_view key, int fallback) const {
    return has(key) ? positive_int(key) : fallback;
  }
  // A non-empty array of positive integers.
  std::vector<int> positive_ints(std::string_view key) const;
  // A finite number (integer or float) of at least `minimum` (exclusive when minimum is 0).
  double number(std::string_view key, double minimum = 0) const;
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

  Section table(std::string_view key) const;

 private:
  const toml::table& table_;
  std::string file_;
  std::string prefix_;
};

}  // namespace simtrain::platform
