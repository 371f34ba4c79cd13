// Specification of simgrid_xml_check.h's route check on XML text: a Full zone needs a route (or zoneRoute)
// in both directions between every pair of its hosts and sub-zones, symmetrical routes count both ways, and
// zones of other routing kinds are left to SimGrid.
#include "simulator/platform/simgrid_xml_check.h"

#include <doctest/doctest.h>

#include <string>

#include "common/error.h"

using simtrain::Error;
using simtrain::platform::check_full_zone_routes;

namespace {

std::string route_error(const std::string& xml) {
  try {
    check_full_zone_routes(xml, "p.xml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const std::string kHosts = R"(<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
      <link id="l" bandwidth="1GBps" latency="1us"/>)";

}  // namespace

TEST_CASE("a Full zone with a symmetrical route between its two hosts is complete") {
  CHECK(route_error(R"(<platform version="4.1"><!-- <route src="x"> in a comment is ignored -->
    <zone id="z" routing="Full">)" +
                    kHosts + R"(
      <route src="a" dst="b"><link_ctn id="l"/></route>
    </zone></platform>)") == "");
}

TEST_CASE("a Full zone missing a route names the zone, its line and the pair") {
  CHECK(route_error("<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">" + kHosts +
                    "</zone></platform>") ==
        "p.xml:2: zone z: no route from a to b (a Full zone needs a route for every pair of its hosts and "
        "sub-zones)");
  // An asymmetrical route covers one direction only.
  CHECK(route_error(R"(<platform><zone id="z" routing="Full">)" + kHosts +
                    R"(<route src="a" dst="b" symmetrical="NO"><link_ctn id="l"/></route></zone></platform>)")
            .find("no route from b to a") != std::string::npos);
}

TEST_CASE("sub-zones of a Full zone need zoneRoutes; other routing kinds are not checked") {
  const std::string two_zones = R"(<platform><zone id="top" routing="Full">
      <zone id="n0" routing="Full"><host id="a" speed="1Gf"/></zone>
      <zone id="n1" routing="Full"><host id="b" speed="1Gf"/></zone>
    </zone></platform>)";
  CHECK(route_error(two_zones).find("zone top: no zoneRoute from n0 to n1") != std::string::npos);
  std::string floyd = two_zones;
  floyd.replace(floyd.find("Full"), 4, "Floyd");
  CHECK(route_error(floyd) == "");
}
