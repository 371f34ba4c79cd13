// A recursive-descent reader of the list expressions --moe-layer-freq takes (moe_layer_pattern.h). Python's
// eval is what Megatron runs on them; this reads their arithmetic of lists and nothing else.
#include "simulator/workload/moe_layer_pattern.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/error.h"

namespace simtrain::workload {
namespace {

constexpr int kMaxDepth = 64;

class PatternReader {
 public:
  PatternReader(std::string text, int layers) : text_(std::move(text)), layers_(layers) {}

  std::vector<std::uint8_t> read() {
    std::vector<std::uint8_t> out = sum(0);
    if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_, 1) + "'");
    return out;
  }

 private:
  // sum := product ('+' product)*
  std::vector<std::uint8_t> sum(int depth) {
    std::vector<std::uint8_t> out = product(depth);
    while (accept('+')) {
      const std::vector<std::uint8_t> next = product(depth);
      bound(out.size() + next.size());
      out.insert(out.end(), next.begin(), next.end());
    }
    return out;
  }

  // product := [count '*'] atom ('*' count)*
  std::vector<std::uint8_t> product(int depth) {
    std::size_t times = 1;
    const auto repeat = [&] {
      times *= count();  // both at most layers_: no overflow
      bound(times);
    };
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      repeat();
      expect('*');
    }
    const std::vector<std::uint8_t> unit = atom(depth);
    while (accept('*')) repeat();
    bound(unit.size() * times);
    std::vector<std::uint8_t> out;
    out.reserve(unit.size() * times);
    for (std::size_t i = 0; i < times; ++i) out.insert(out.end(), unit.begin(), unit.end());
    return out;
  }

  // atom := '[' flag (',' flag)* ']' | '(' sum ')'
  std::vector<std::uint8_t> atom(int depth) {
    if (depth >= kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth));
    if (accept('(')) {
      std::vector<std::uint8_t> inner = sum(depth + 1);
      expect(')');
      return inner;
    }
    expect('[');
    std::vector<std::uint8_t> list;
    do {
      if (pos_ >= text_.size() || (text_[pos_] != '0' && text_[pos_] != '1'))
        fail("expected 0 or 1 in a list");
      list.push_back(text_[pos_++] == '1');
      bound(list.size());
    } while (accept(','));
    expect(']');
    return list;
  }

  std::size_t count() {
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
    if (error != std::errc() || end == text_.data() + pos_) fail("expected a whole number");
    pos_ = static_cast<std::size_t>(end - text_.data());
    bound(value);
    return value;
  }

  bool accept(char ch) {
    if (pos_ < text_.size() && text_[pos_] == ch) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char ch) {
    if (!accept(ch)) fail(std::string("expected '") + ch + "'");
  }

  void bound(std::size_t length) const {
    if (length > static_cast<std::size_t>(layers_))
      fail("a list longer than the model's " + std::to_string(layers_) + " layers");
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(why + " (a whole number, or a list expression as ([0]*3+[1]*58))");
  }

  std::string text_;
  std::size_t pos_ = 0;
  std::size_t layers_;
};

}  // namespace

std::vector<std::uint8_t> moe_layer_pattern(const std::string& text, int layers) {
  std::string compact;
  for (char ch : text)
    if (ch != ' ' && ch != '\'' && ch != '"') compact += ch;
  if (compact.find('[') == std::string::npos) {
    int every = 0;
    const auto [end, error] = std::from_chars(compact.data(), compact.data() + compact.size(), every);
    if (error != std::errc() || end != compact.data() + compact.size() || every < 1)
      throw Error("expected a whole number of at least 1, or a list expression as ([0]*3+[1]*58)");
    std::vector<std::uint8_t> out(static_cast<std::size_t>(std::max(0, layers)));
    for (int i = 0; i < layers; ++i) out[static_cast<std::size_t>(i)] = i % every == 0;
    return out;
  }
  std::vector<std::uint8_t> out = PatternReader(compact, layers).read();
  if (static_cast<int>(out.size()) != layers)
    throw Error(std::to_string(out.size()) + " layers where the model has " + std::to_string(layers));
  if (std::find(out.begin(), out.end(), 1) == out.end()) throw Error("makes no layer a MoE layer");
  return out;
}

}  // namespace simtrain::workload
