// Chakra's file framing: messages one after another, each prefixed by its length as a protobuf varint
// (Chakra's protolib encodeMessage / decodeMessage). Kept apart from the messages so that the bounds on what
// a corrupt file can make us allocate sit in one place.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace simtrain::trace {

// Reads the messages of one file in order.
class ChakraMessageReader {
 public:
  ChakraMessageReader(std::string_view bytes, std::string origin);
  // The next message's bytes; nullopt at the end of the file (or at a zero length, where Chakra's reader
  // stops too). Throws Error(origin) on a truncated varint or a length past the end of the file.
  std::optional<std::string_view> next();
  std::size_t offset() const { return offset_; }

 private:
  std::string_view bytes_;
  std::string origin_;
  std::size_t offset_ = 0;
};

// Appends `message` to `out` with its length prefix.
void append_chakra_message(std::string& out, const std::string& message);

}  // namespace simtrain::trace
