// Implements content_hash.h.
#include "common/content_hash.h"

#include <cstdio>

namespace simtrain {

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string hex(std::uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string content_hash(std::string_view text) { return hex(fnv1a(text)); }

}  // namespace simtrain
