// Implements pipeline_layout.h.
#include "simulator/workload/pipeline_layout.h"

#include <cctype>

#include "common/error.h"

namespace simtrain::workload {
namespace {

constexpr std::size_t kMaxUnrolled = 1'000'000;  // bounds what a pasted string can make us allocate

[[noreturn]] void fail(const std::string& layout, const std::string& why) {
  throw Error("--pipeline-model-parallel-layout " + layout + ": " + why);
}

// The repeat count after "*" at `at`, advancing past it.
std::size_t count_at(const std::string& layout, const std::string& text, std::size_t& at) {
  if (at >= text.size() || text[at] != '*') return 1;
  ++at;
  std::size_t n = 0, digits = 0;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
    n = n * 10 + static_cast<std::size_t>(text[at++] - '0');
    if (++digits > 7) fail(layout, "a repeat count is too large");
  }
  if (digits == 0) fail(layout, "'*' must be followed by a repeat count");
  return n;
}

void append(const std::string& layout, std::string& out, const std::string& piece, std::size_t times) {
  if (piece.size() * times > kMaxUnrolled || out.size() + piece.size() * times > kMaxUnrolled)
    fail(layout, "more than 1,000,000 layers once unrolled");
  for (std::size_t i = 0; i < times; ++i) out += piece;
}

// Megatron's unrolling, in its two passes: "(...)*n" (no nesting) first, then "x*n" in what that gives;
// commas and spaces dropped.
std::string unrolled(const std::string& layout) {
  std::string text;
  for (const char c : layout)
    if (c != ',' && !std::isspace(static_cast<unsigned char>(c))) text += c;
  std::string groups;
  for (std::size_t at = 0; at < text.size();) {
    if (text[at] != '(') {
      if (text[at] == ')') fail(layout, "a ')' without its '('");
      append(layout, groups, std::string(1, text[at++]), 1);
      continue;
    }
    const std::size_t close = text.find(')', at);
    if (close == std::string::npos) fail(layout, "a '(' without its ')'");
    const std::string group = text.substr(at + 1, close - at - 1);
    if (group.find('(') != std::string::npos) fail(layout, "nested parentheses");
    at = close + 1;
    if (at >= text.size() || text[at] != '*') fail(layout, "a group in parentheses needs a repeat count");
    append(layout, groups, group, count_at(layout, text, at));
  }
  std::string out;
  for (std::size_t at = 0; at < groups.size();) {
    if (groups[at] == '*') fail(layout, "an unexpected '*'");
    const std::string one(1, groups[at++]);
    append(layout, out, one, count_at(layout, groups, at));
  }
  return out;
}

}  // namespace

std::vector<int> decoder_layers_per_stage(const std::string& layout) {
  const std::string text = unrolled(layout);
  std::vector<std::string> stages(1);
  for (const char c : text) {
    if (c == '|')
      stages.emplace_back();
    else if (c == 'E' || c == 't' || c == 'm' || c == 'L')
      stages.back() += c;
    else
      fail(layout, std::string("unknown layer '") + c + "' (E embedding, t decoder layer, m MTP, L loss)");
  }
  std::vector<int> decoder;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const std::string& stage = stages[s];
    const std::size_t embedding = stage.find('E'), loss = stage.find('L');
    if (embedding != std::string::npos &&
        (s != 0 || embedding != 0 || stage.find('E', 1) != std::string::npos))
      fail(layout, "the embedding must open the first stage, where simtrain runs it");
    if (loss != std::string::npos && (s + 1 != stages.size() || loss + 1 != stage.size()))
      fail(layout, "the loss must close the last stage, where simtrain runs it");
    int n = 0;
    for (const char c : stage) n += c == 't';
    decoder.push_back(n);
  }
  if (stages.front().empty() || stages.front()[0] != 'E')
    fail(layout, "the first stage must start with the embedding (E)");
  if (stages.back().empty() || stages.back().back() != 'L')
    fail(layout, "the last stage must end with the loss (L)");
  return decoder;
}

}  // namespace simtrain::workload
