// Parsing the shapes file line by line, with errors that name the file and line.
#include "calibration/tool/shapes_file.h"

#include <cerrno>
#include <charconv>
#include <sstream>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"

namespace simtrain::calibration::tool {
namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line.substr(0, line.find('#')));
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// The `count` non-negative integers after the kind.
std::vector<std::int64_t> numbers(const std::vector<std::string>& words, std::size_t count,
                                  const std::string& origin, int line, const std::string& usage) {
  if (words.size() - 1 != count)
    throw Error(origin, line, "", words[0] + " takes " + std::to_string(count) + " numbers: " + usage);
  std::vector<std::int64_t> values;
  for (std::size_t i = 1; i < words.size(); ++i) {
    std::int64_t value = 0;
    const std::string& word = words[i];
    const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (error != std::errc() || end != word.data() + word.size() || value < 0)
      throw Error(origin, line, "", "'" + word + "' is not a non-negative integer (" + usage + ")");
    values.push_back(value);
  }
  return values;
}

void require_positive(const std::vector<std::int64_t>& values, std::size_t count, const std::string& origin,
                      int line, const std::string& kind) {
  for (std::size_t i = 0; i < count; ++i)
    if (values[i] == 0)
      throw Error(origin, line, "", kind + ": dimension " + std::to_string(i + 1) + " is 0");
}

void parse_line(const std::vector<std::string>& words, ShapeSet& set, const std::string& origin, int line) {
  const std::string& kind = words[0];
  if (kind == "gemm") {
    const bool has_layout = words.size() == 5;
    const std::vector<std::string> dims = has_layout ? std::vector(words.begin(), words.end() - 1) : words;
    const auto v = numbers(dims, 3, origin, line, "gemm M N K [nn|nt|tn|tt]");
    require_positive(v, 3, origin, line, kind);
    const std::string layout = has_layout ? words[4] : "nn";
    if (layout != "nn" && layout != "nt" && layout != "tn" && layout != "tt")
      throw Error(origin, line, "", "gemm layout '" + layout + "' is not one of nn, nt, tn, tt");
    set.gemms.push_back({v[0], v[1], v[2], layout[0] == 't', layout[1] == 't'});
  } else if (kind == "conv") {
    const auto v = numbers(words, 9, origin, line, "conv N C H W K R S STRIDE PAD");
    require_positive(v, 8, origin, line, kind);
    const ConvShape conv{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
    if (conv.out_h() < 1 || conv.out_w() < 1)
      throw Error(origin, line, "", "conv: the filter is larger than the padded input");
    set.convs.push_back(conv);
  } else if (kind == "batch_norm") {
    const auto v = numbers(words, 4, origin, line, "batch_norm N C H W");
    require_positive(v, 4, origin, line, kind);
    set.batch_norms.push_back({v[0], v[1], v[2], v[3]});
  } else if (kind == "pool") {
    const auto v = numbers(words, 7, origin, line, "pool N C H W WINDOW STRIDE PAD");
    require_positive(v, 6, origin, line, kind);
    const PoolShape pool{{v[0], v[1], v[2], v[3]}, v[4], v[5], v[6]};
    if (pool.out_h() < 1 || pool.out_w() < 1)
      throw Error(origin, line, "", "pool: the window is larger than the padded input");
    set.pools.push_back(pool);
  } else if (kind == "activation") {
    const auto v = numbers(words, 1, origin, line, "activation ELEMENTS");
    require_positive(v, 1, origin, line, kind);
    set.activations.push_back(v[0]);
  } else if (kind == "softmax") {
    const auto v = numbers(words, 2, origin, line, "softmax ROWS COLS");
    require_positive(v, 2, origin, line, kind);
    set.softmaxes.push_back({v[0], v[1]});
  } else if (kind == "attention") {
    const auto v = numbers(words, 4, origin, line, "attention BATCH HEADS SEQ HEAD_DIM");
    require_positive(v, 4, origin, line, kind);
    set.attentions.push_back({v[0], v[1], v[2], v[3]});
  } else {
    throw Error(origin, line, "",
                "unknown kernel '" + kind +
                    "' (expected gemm, conv, batch_norm, pool, activation, softmax or attention)");
  }
}

}  // namespace

ShapeSet parse_shapes(const std::string& text, const std::string& origin) {
  ShapeSet set;
  std::istringstream in(text);
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    const std::vector<std::string> words = words_of(line);
    if (!words.empty()) parse_line(words, set, origin, line_number);
  }
  if (set.empty()) throw Error(origin, 0, "", "no shapes in the file");
  set.deduplicate();
  return set;
}

ShapeSet read_shapes_file(const std::string& path) { return parse_shapes(read_file(path), path); }

}  // namespace simtrain::calibration::tool
