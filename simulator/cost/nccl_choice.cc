// Implements nccl_choice.h: the names of NCCL's algorithms and protocols.
#include "simulator/cost/nccl_choice.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "common/error.h"

namespace simtrain::cost {
namespace {

constexpr std::pair<const char*, NcclAlgorithm> kAlgorithms[] = {{"ring", NcclAlgorithm::Ring},
                                                                 {"tree", NcclAlgorithm::Tree},
                                                                 {"nvls", NcclAlgorithm::NVLS},
                                                                 {"nvlstree", NcclAlgorithm::NVLSTree}};
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

NcclAlgorithm parse_nccl_algorithm(const std::string& text, const std::string& option) {
  return parse(kAlgorithms, text, option);
}

NcclProtocol parse_nccl_protocol(const std::string& text, const std::string& option) {
  return parse(kProtocols, text, option);
}

}  // namespace simtrain::cost
