// Implements spec_section.h: typed, range-checked reads of one TOML table, failing with file, line and field.
#include "simulator/platform/spec_section.h"

#include <cmath>
#include <sstream>

#include "common/suggest.h"

namespace simtrain::platform {
namespace {

std::string format(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

std::string Section::field(std::string_view key) const {
  return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
}

int Section::line(std::string_view key) const {
  const toml::node* node = table_.get(key);
  return node ? line_of(*node) : line_of(table_);
}

void Section::fail(std::string_view key, const std::string& message) const {
  throw Error(file_, line(key), field(key), message);
}

void Section::only_keys(const std::set<std::string, std::less<>>& allowed) const {
  for (auto&& [key, node] : table_) {
    if (allowed.count(key.str()) == 0) {
      std::string list;
      for (const auto& name : allowed) list += (list.empty() ? "" : ", ") + name;
      throw Error(file_, static_cast<int>(key.source().begin.line), field(key.str()),
                  "unknown key" + did_you_mean(key.str(), {allowed.begin(), allowed.end()}) +
                      " (expected one of: " + list + ")");
    }
  }
}

void Section::forbid(const std::vector<std::string_view>& keys, const std::string& needs) const {
  for (const std::string_view key : keys)
    if (has(key)) fail(key, "only meaningful for " + needs);
}

const toml::node& Section::require(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (!node) throw Error(file_, line_of(table_), field(key), "missing required key");
  return *node;
}

std::string Section::string(std::string_view key) const {
  const toml::node& node = require(key);
  if (!node.is_string()) fail(key, "expected a string");
  return node.as_string()->get();
}

std::string Section::string_or(std::string_view key, std::string fallback) const {
  return has(key) ? string(key) : std::move(fallback);
}

bool Section::boolean_or(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const toml::node& node = require(key);
  if (!node.is_boolean()) fail(key, "expected true or false");
  return node.as_boolean()->get();
}

int Section::positive_int(std::string_view key) const {
  const toml::node& node = require(key);
  if (!node.is_integer()) fail(key, "expected an integer");
  const int64_t value = node.as_integer()->get();
  if (value <= 0) fail(key, "must be positive, got " + std::to_string(value));
  if (value > 1'000'000'000) fail(key, "too large: " + std::to_string(value));
  return static_cast<int>(value);
}

std::vector<int> Section::positive_ints(std::string_view key) const {
  const toml::node& node = require(key);
  if (!node.is_array() || node.as_array()->empty())
    fail(key, "expected an array of integers, like [4, 4, 4]");
  std::vector<int> values;
  for (const toml::node& element : *node.as_array()) {
    if (!element.is_integer()) fail(key, "expected an array of integers, like [4, 4, 4]");
    const int64_t value = element.as_integer()->get();
    if (value <= 0) fail(key, "every entry must be positive, got " + std::to_string(value));
    if (value > 1'000'000) fail(key, "too large: " + std::to_string(value));
    values.push_back(static_cast<int>(value));
  }
  return values;
}

double Section::number(std::string_view key, double minimum) const {
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

Section Section::table(std::string_view key) const {
  const toml::node& node = require(key);
  if (!node.is_table()) fail(key, "expected a table [" + field(key) + "]");
  return Section(*node.as_table(), file_, field(key));
}

}  // namespace simtrain::platform
