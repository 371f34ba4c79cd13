// A stable hash of content: FNV-1a, 64 bits, written as 16 hex digits. The same on every machine, so that a
// study recognises a run it already made and a Result names the exact platform, profile and trace it used.
// It tells contents apart; it is no defence against someone crafting a collision.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace simtrain {

std::uint64_t fnv1a(std::string_view text);
std::string hex(std::uint64_t hash);
// hex(fnv1a(text)).
std::string content_hash(std::string_view text);

}  // namespace simtrain
