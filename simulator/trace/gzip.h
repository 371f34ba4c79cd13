// gzip in memory for trace files: recognising it by its magic bytes, inflating it with a bound on the output
// (so that a small compressed file cannot expand into more memory than the machine has), and deflating.
#pragma once

#include <cstddef>
#include <string>

namespace simtrain::trace {

bool has_gzip_magic(const std::string& bytes);

// The decompressed bytes of one or more concatenated gzip members. Throws Error(origin, 0, "", ...) on
// corrupt or truncated data, and before holding more than `max_bytes` of output.
std::string gunzip(const std::string& bytes, const std::string& origin, std::size_t max_bytes);

// `text` as one gzip member at level 6. The header carries no name and no time, so that equal text gives
// equal bytes. Throws Error(origin, 0, "", ...) when zlib fails.
std::string gzip(const std::string& text, const std::string& origin);

}  // namespace simtrain::trace
