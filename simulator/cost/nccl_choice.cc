// Implements nccl_choice.h: the names of NCCL's algorithms and protocols.
#include "simulator/cost/nccl_choice.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "common/error.h"

namespace simtrain::cost {
namespace {

constexpr std::pair<const char*, NcclAlgorithm> kAlgorithms[] = {
    {"ring", NcclAlgorithm::Ring},
    {"tree", NcclAlgorithm::Tree},
    {"nvls", NcclAlgorithm::NVLS},
    {"nvlstree", NcclAlgorithm::NVLSTree},
    {"pat", NcclAlgorithm::PAT},
    {"collnetdirect", NcclAlgorithm::CollNetDirect},
    {"collnetchain", NcclAlgorithm::CollNetChain}};
constexpr std::pair<const char*, NcclProtocol> kProtocols[] = {
    {"ll", NcclProtocol::LL}, {"ll128", NcclProtocol::LL128}, {"simple", NcclProtocol::Simple}};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

template <typename Enum, std::size_t N>
Enum parse(const std::pair<const char*, Enum> (&names)[N], const std::string& text,
           const std::string& option) {
  const std::string key = lower(text);
  std::string accepted;
  for (const auto& [name, value] : names) {
    if (key == name) return value;
    accepted += accepted.empty() ? name : std::string(", ") + name;
  }
  throw Error(option + ": unknown value '" + text + "' (" + accepted + ")");
}

template <typename Enum, std::size_t N>
const char* name_of(const std::pair<const char*, Enum> (&names)[N], Enum value) {
  for (const auto& [name, candidate] : names)
    if (candidate == value) return name;
  return "?";
}

}  // namespace

const char* to_string(NcclAlgorithm algorithm) { return name_of(kAlgorithms, algorithm); }
const char* to_string(NcclProtocol protocol) { return name_of(kProtocols, protocol); }

bool reduces_in_network(NcclAlgorithm algorithm) {
  return algorithm == NcclAlgorithm::CollNetDirect || algorithm == NcclAlgorithm::CollNetChain ||
         algorithm == NcclAlgorithm::NVLS;
}

int parse_nccl_version(const std::string& text, const std::string& option) {
  const std::string range =
      "2." + std::to_string(kNcclOldestMinor) + " to 2." + std::to_string(kNcclNewestMinor);
  // "2.MINOR" or "2.MINOR.PATCH", decimal digits only.
  std::size_t at = 0;
  auto number = [&]() {
    const std::size_t start = at;
    int value = 0;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) && at - start < 4)
      value = value * 10 + (text[at++] - '0');
    return at > start ? value : -1;
  };
  const int major = number();
  const bool dot = at < text.size() && text[at] == '.';
  at += dot ? 1 : 0;
  const int minor = dot ? number() : -1;
  if (at < text.size() && text[at] == '.') {
    ++at;
    if (number() < 0) at = std::string::npos;
  }
  if (major != 2 || minor < kNcclOldestMinor || minor > kNcclNewestMinor || at != text.size())
    throw Error(option + ": unknown NCCL version '" + text + "' (simtrain knows " + range + ")");
  return minor;
}

NcclAlgorithm parse_nccl_algorithm(const std::string& text, const std::string& option) {
  return parse(kAlgorithms, text, option);
}

NcclProtocol parse_nccl_protocol(const std::string& text, const std::string& option) {
  return parse(kProtocols, text, option);
}

NcclTunerPlugin parse_nccl_tuner_plugin(const std::string& text, const std::string& option) {
  return parse(kNcclTunerPluginNames, text, option);
}

}  // namespace simtrain::cost
