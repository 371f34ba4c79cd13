// Implements gzip.h with zlib's inflate in gzip mode, one member after another, and its deflate.
#include "simulator/trace/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

#include "common/error.h"

namespace simtrain::trace {

bool has_gzip_magic(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& bytes, const std::string& origin, std::size_t max_bytes) {
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw Error(origin, 0, "", "cannot start gzip decoder");
  std::string text;
  std::size_t offset = 0;
  int status = Z_OK;
  char buffer[1 << 16];
  while (true) {
    // zlib counts in 32-bit units; feed at most 1 GiB at a time.
    const std::size_t chunk = std::min<std::size_t>(bytes.size() - offset, std::size_t{1} << 30);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + offset));
    stream.avail_in = static_cast<uInt>(chunk);
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    offset += chunk - stream.avail_in;
    const std::size_t produced = sizeof buffer - stream.avail_out;
    if (text.size() + produced > max_bytes) {
      inflateEnd(&stream);
      throw Error(origin, 0, "",
                  "gzip data expands beyond " + std::to_string(max_bytes >> 20) +
                      " MiB, the limit for a trace (a corrupt file or a decompression bomb?)");
    }
    text.append(buffer, produced);
    if (status == Z_STREAM_END) {
      // Another member may follow (as `cat a.gz b.gz` writes); anything else after the end is an error.
      if (offset == bytes.size()) break;
      if (!has_gzip_magic(bytes.substr(offset, 2))) {
        inflateEnd(&stream);
        throw Error(origin, 0, "", "gzip data is corrupt (bytes after the end of the compressed stream)");
      }
      inflateReset(&stream);
      continue;
    }
    if (status == Z_BUF_ERROR && offset == bytes.size() && produced == 0) break;  // input used up mid-stream
    if (status != Z_OK && status != Z_BUF_ERROR) break;
  }
  const std::string message = stream.msg != nullptr ? stream.msg : "";
  inflateEnd(&stream);
  if (status == Z_STREAM_END) return text;
  // zlib says Z_BUF_ERROR for a stream that ends before its trailer: the usual sign of a cut-off download.
  throw Error(origin, 0, "",
              "gzip data is truncated or corrupt (" +
                  (message.empty() ? std::string("unexpected end of file") : message) + ")");
}

std::string gzip(const std::string& text, const std::string& origin) {
  if (text.size() > std::numeric_limits<uInt>::max())
    throw Error(origin, 0, "", "cannot compress a trace of more than 4 GiB; write it uncompressed");
  z_stream stream{};
  // 16 + MAX_WBITS: a gzip wrapper, whose default header has no name and a zero time stamp.
  if (deflateInit2(&stream, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error(origin, 0, "", "cannot start gzip encoder");
  std::string bytes(deflateBound(&stream, static_cast<uLong>(text.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(bytes.data());
  stream.avail_out = static_cast<uInt>(bytes.size());
  const int status = deflate(&stream, Z_FINISH);
  bytes.resize(stream.total_out);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw Error(origin, 0, "", "cannot compress the trace");
  return bytes;
}

}  // namespace simtrain::trace
