// Checks of a SimGrid XML platform that SimGrid 3.32 does not make itself and crashes or silently
// misbehaves without: Full-routed zones missing a route between two of their hosts or sub-zones (route_to
// dereferences the missing route: SIGSEGV), and link bandwidths, latencies and host speeds that are zero,
// negative, not finite or absurd (1e308 s). load_simgrid_xml runs both before asking SimGrid for a route.
#pragma once

#include <string>

namespace simgrid::s4u {
class Engine;
}  // namespace simgrid::s4u

namespace simtrain::platform {

// Loads the platform at `path` into a forked copy of `engine` (which must not hold a platform yet) and asks
// it for routes from the first host to every other and back: SimGrid ends the process (abort, SIGSEGV) on
// some invalid files by design ("Not a valid model!" for an unknown routing), and only a child can survive
// that. Throws Error(path, 0, "", "cannot load the SimGrid platform: <its last message>") when the child
// dies or SimGrid throws; returns when the real load can go ahead.
void probe_load_in_child(simgrid::s4u::Engine& engine, const std::string& path);

// Reads the XML text (already accepted by SimGrid's parser) and throws Error(path, line, "zone <id>", ...)
// for the first Full zone lacking a route, in either direction, between two of its hosts or sub-zones.
void check_full_zone_routes(const std::string& xml_text, const std::string& path);

// Throws Error(path, line, "link <id>: bandwidth" or "host <id>: speed", ...) for the first link or host of
// `engine`'s platform with a value outside its range; the line is that of the element's id in `xml_text`.
void check_platform_values(const simgrid::s4u::Engine& engine, const std::string& xml_text,
                           const std::string& path);

}  // namespace simtrain::platform
