// Implements chakra_stream.h.
#include "simulator/trace/chakra_stream.h"

#include <cstdint>

#include "common/error.h"
#include "common/input_limits.h"

namespace simtrain::trace {

ChakraMessageReader::ChakraMessageReader(std::string_view bytes, std::string origin)
    : bytes_(bytes), origin_(std::move(origin)) {}

std::optional<std::string_view> ChakraMessageReader::next() {
  if (offset_ >= bytes_.size()) return std::nullopt;
  std::uint64_t length = 0;
  int shift = 0;
  const std::size_t start = offset_;
  while (true) {
    if (offset_ >= bytes_.size() || shift > 63)
      throw Error(origin_, 0, "", "truncated message length at byte " + std::to_string(start));
    const auto byte = static_cast<unsigned char>(bytes_[offset_++]);
    length |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) break;
    shift += 7;
  }
  if (length == 0) return std::nullopt;
  if (length > kMaxInputFileBytes || length > bytes_.size() - offset_)
    throw Error(origin_, 0, "",
                "message at byte " + std::to_string(start) + " claims " + std::to_string(length) +
                    " bytes, past the end of the file");
  const std::string_view message = bytes_.substr(offset_, length);
  offset_ += length;
  return message;
}

void append_chakra_message(std::string& out, const std::string& message) {
  std::uint64_t length = message.size();
  do {
    unsigned char byte = length & 0x7f;
    length >>= 7;
    if (length) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (length);
  out += message;
}

}  // namespace simtrain::trace
