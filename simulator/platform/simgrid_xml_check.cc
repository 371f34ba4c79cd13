// Implements simgrid_xml_check.h: a forked trial load for what SimGrid dies of, a small scanner over the
// platform's tags (enough for SimGrid's DTD, which has no text content that matters) for the routes, and
// SimGrid's own figures for the values.
#include "simulator/platform/simgrid_xml_check.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include <algorithm>
#include <map>
#include <set>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <tuple>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/input_limits.h"
#include "common/number_checks.h"

namespace simtrain::platform {
namespace {

namespace sg4 = simgrid::s4u;

// One start, end or empty-element tag.
struct Tag {
  std::string name;
  std::map<std::string, std::string> attributes;
  bool closing = false;       // </name>
  bool self_closing = false;  // <name ... />
  int line = 1;
};

// The tags of `text` in order; comments, processing instructions and declarations are skipped.
std::vector<Tag> scan_tags(const std::string& text) {
  std::vector<Tag> tags;
  int line = 1;
  std::size_t i = 0;
  const auto advance_to = [&](std::size_t end) {
    line += static_cast<int>(
        std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                   text.begin() + static_cast<std::ptrdiff_t>(std::min(end, text.size())), '\n'));
    i = std::min(end, text.size());
  };
  while (true) {
    const std::size_t open = text.find('<', i);
    if (open == std::string::npos) break;
    advance_to(open);
    if (text.compare(i, 4, "<!--") == 0) {
      const std::size_t end = text.find("-->", i);
      advance_to(end == std::string::npos ? text.size() : end + 3);
      continue;
    }
    if (text.compare(i, 2, "<?") == 0 || text.compare(i, 2, "<!") == 0) {
      const std::size_t end = text.find('>', i);
      advance_to(end == std::string::npos ? text.size() : end + 1);
      continue;
    }
    Tag tag;
    tag.line = line;
    std::size_t j = i + 1;
    if (j < text.size() && text[j] == '/') {
      tag.closing = true;
      ++j;
    }
    const auto is_name_char = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ':' || c == '.';
    };
    while (j < text.size() && is_name_char(text[j])) tag.name += text[j++];
    while (j < text.size() && text[j] != '>') {
      if (std::isspace(static_cast<unsigned char>(text[j]))) {
        ++j;
      } else if (text[j] == '/') {
        tag.self_closing = true;
        ++j;
      } else {
        std::string key;
        while (j < text.size() && is_name_char(text[j])) key += text[j++];
        if (key.empty()) {
          ++j;
          continue;
        }
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
        if (j >= text.size() || text[j] != '=') continue;
        ++j;
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
        if (j >= text.size() || (text[j] != '"' && text[j] != '\'')) continue;
        const char quote = text[j++];
        const std::size_t end = text.find(quote, j);
        if (end == std::string::npos) break;
        tag.attributes[key] = text.substr(j, end - j);
        j = end + 1;
      }
    }
    advance_to(j + 1);
    tags.push_back(std::move(tag));
    if (i >= text.size()) break;
  }
  return tags;
}

// A zone being read: the hosts and sub-zones routes must connect, and the routes declared between them.
struct ZoneFrame {
  std::string id;
  bool full = false;
  int line = 0;
  std::vector<std::pair<std::string, bool>> members;  // id, is a zone
  std::set<std::pair<std::string, std::string>> routes;
};

bool is_zone(const std::string& name) { return name == "zone" || name == "AS"; }

void check_zone(const ZoneFrame& zone, const std::string& path) {
  if (!zone.full) return;
  for (std::size_t a = 0; a < zone.members.size(); ++a)
    for (std::size_t b = 0; b < zone.members.size(); ++b) {
      if (a == b) continue;
      const auto& [from, from_zone] = zone.members[a];
      const auto& [to, to_zone] = zone.members[b];
      if (zone.routes.count({from, to}) != 0) continue;
      const std::string kind = from_zone && to_zone ? "zoneRoute" : "route";
      throw Error(path, zone.line, "zone " + zone.id,
                  "no " + kind + " from " + from + " to " + to +
                      " (a Full zone needs a route for every pair of its hosts and sub-zones)");
    }
}

// The line and id of the element whose id is `id`, or whose id `id` extends (SimGrid names the halves of a
// split-duplex link "<id>_UP" and "<id>_DOWN"); line 0 and `id` itself when the text has neither.
std::pair<int, std::string> element_of(const std::string& text, const std::string& id) {
  const std::size_t underscore = id.rfind('_');
  for (const std::string& candidate : {id, underscore == std::string::npos ? id : id.substr(0, underscore)}) {
    for (const char* quote : {"\"", "'"}) {
      const std::size_t at = text.find("id=" + std::string(quote) + candidate + quote);
      if (at != std::string::npos)
        return {1 + static_cast<int>(
                        std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')),
                candidate};
    }
  }
  return {0, id};
}

}  // namespace

void probe_load_in_child(sg4::Engine& engine, const std::string& path) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw Error(path, 0, "", "cannot check the SimGrid platform: pipe failed");
  std::fflush(nullptr);  // or buffered output would be written twice
  const pid_t child = ::fork();
  if (child < 0) throw Error(path, 0, "", "cannot check the SimGrid platform: fork failed");
  if (child == 0) {
    ::close(pipe_fds[0]);
    ::dup2(pipe_fds[1], STDERR_FILENO);  // SimGrid's last words, for the parent's message
    int status = 0;
    try {
      engine.load_platform(path);
      const std::string text = read_file(path);
      check_full_zone_routes(text, path);
      check_platform_values(engine, text, path);
      const std::vector<sg4::Host*> hosts = engine.get_all_hosts();
      for (std::size_t i = 1; i < hosts.size(); ++i) {
        std::vector<sg4::Link*> links;
        double latency_s = 0;
        hosts[0]->route_to(hosts[i], links, &latency_s);
        hosts[i]->route_to(hosts[0], links, &latency_s);
      }
    } catch (const Error&) {
      // The parent finds the same problem and reports it with its line.
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s\n", error.what());
      status = 2;
    }
    std::fflush(nullptr);
    ::_exit(status);  // not exit(): the parent's engine and atexit handlers are not the child's to run
  }
  ::close(pipe_fds[1]);
  std::string said;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0)
    said.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  // SimGrid's last log message ("[0.000000] file:line: [root/CRITICAL] Not a valid model!") without its
  // prefix or the backtrace printed after it; else the child's first line (an exception's text).
  std::string logged, first;
  for (std::size_t start = 0; start < said.size();) {
    const std::size_t end = std::min(said.find('\n', start), said.size());
    const std::string line = said.substr(start, end - start);
    start = end + 1;
    std::size_t level = line.find("/CRITICAL] ");
    if (level == std::string::npos) level = line.find("/ERROR] ");
    if (level != std::string::npos) logged = line.substr(line.find("] ", level) + 2);
    if (first.empty()) first = line;
  }
  std::string last = !logged.empty() ? logged : first;
  if (last.empty())
    last = WIFSIGNALED(status) ? "it crashed (signal " + std::to_string(WTERMSIG(status)) + ")"
                               : "no reason given";
  throw Error(path, 0, "", "cannot load the SimGrid platform: " + last);
}

void check_full_zone_routes(const std::string& xml_text, const std::string& path) {
  std::vector<ZoneFrame> stack;
  for (const Tag& tag : scan_tags(xml_text)) {
    const auto attribute = [&](const char* key) {
      const auto found = tag.attributes.find(key);
      return found == tag.attributes.end() ? std::string() : found->second;
    };
    if (is_zone(tag.name) && !tag.closing) {
      if (!stack.empty()) stack.back().members.emplace_back(attribute("id"), true);
      stack.push_back({attribute("id"), attribute("routing") == "Full", tag.line, {}, {}});
      if (!tag.self_closing) continue;
    }
    if (is_zone(tag.name)) {
      if (stack.empty()) continue;  // unbalanced: SimGrid's parser has the last word on syntax
      check_zone(stack.back(), path);
      stack.pop_back();
      continue;
    }
    if (stack.empty() || tag.closing) continue;
    ZoneFrame& zone = stack.back();
    if (tag.name == "host" || tag.name == "cluster") {
      zone.members.emplace_back(attribute("id"), tag.name == "cluster");
    } else if (tag.name == "route" || tag.name == "zoneRoute" || tag.name == "ASroute") {
      const std::string src = attribute("src"), dst = attribute("dst"),
                        symmetrical = attribute("symmetrical");
      zone.routes.insert({src, dst});
      if (symmetrical != "NO" && symmetrical != "no") zone.routes.insert({dst, src});
    }
  }
}

void check_platform_values(const sg4::Engine& engine, const std::string& xml_text, const std::string& path) {
  // A latency of 1e308 s is finite, but one sum of two makes the simulated time infinite.
  constexpr NumberRange kBandwidth{0, false, kMaxRate}, kLatency{0, true, kMaxDuration_s};
  for (const sg4::Link* link : engine.get_all_links()) {
    for (const auto& [field, value, range, unit] :
         {std::tuple{"bandwidth", link->get_bandwidth(), kBandwidth, " (bytes/s)"},
          std::tuple{"latency", link->get_latency(), kLatency, " (s)"}}) {
      if (auto why = range_violation(value, range)) {
        const auto [line, id] = element_of(xml_text, link->get_name());
        throw Error(path, line, "link " + id + ": " + field, *why + unit);
      }
    }
  }
  for (const sg4::Host* host : engine.get_all_hosts()) {
    if (auto why = range_violation(host->get_speed(), NumberRange{0, false, kMaxRate})) {
      const auto [line, id] = element_of(xml_text, host->get_name());
      throw Error(path, line, "host " + id + ": speed", *why + " (flop/s)");
    }
  }
}

}  // namespace simtrain::platform
