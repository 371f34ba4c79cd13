// Implements progress_line.h.
#include "simulator/cli/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace simtrain::cli {
namespace {

constexpr double kQuietFor_s = 2;                              // short runs print nothing
constexpr auto kRedrawEvery = std::chrono::milliseconds(250);  // a steady line, not a flicker

}  // namespace

ProgressLine::ProgressLine() : started_(std::chrono::steady_clock::now()) {
  const char* term = std::getenv("TERM");
  enabled_ = isatty(STDERR_FILENO) == 1 && term != nullptr && std::string_view(term) != "dumb";
  // SIMTRAIN_PROGRESS_AFTER (seconds) moves the threshold: 0 shows the line at once (tests use it).
  quiet_for_s_ = kQuietFor_s;
  if (const char* after = std::getenv("SIMTRAIN_PROGRESS_AFTER")) {
    char* end = nullptr;
    const double value = std::strtod(after, &end);
    if (end != after && *end == '\0' && value >= 0 && value <= 3600) quiet_for_s_ = value;
  }
}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

std::function<void(const char*, double, std::uint64_t)> ProgressLine::callback() {
  if (!enabled_) return {};
  return [this](const char* phase, double simulated_s, std::uint64_t advances) {
    update(phase, simulated_s, advances);
  };
}

void ProgressLine::update(const char* phase, double simulated_s, std::uint64_t advances) {
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - started_).count() < quiet_for_s_ || now - last_draw_ < kRedrawEvery)
    return;
  last_draw_ = now;
  drawn_ = true;
  const double wall = std::chrono::duration<double>(now - started_).count();
  if (advances > 0)
    std::fprintf(stderr, "\r\033[Ksimtrain: %s: %.3f s simulated, %llu events, %.0f s", phase, simulated_s,
                 static_cast<unsigned long long>(advances), wall);
  else
    std::fprintf(stderr, "\r\033[Ksimtrain: %s, %.0f s", phase, wall);
  std::fflush(stderr);
}

}  // namespace simtrain::cli
