// What the platform tests share: an engine built in a child process (one s4u::Engine per process, see
// child_process.h), routes read back by name and latency, and transfers timed in SimGrid.
#pragma once

#include <functional>
#include <memory>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "simulator/platform/simgrid_platform.h"
#include "tests/support/child_process.h"

namespace simtrain::testing {

namespace sg4 = simgrid::s4u;

// SimGrid computes in doubles; 1e-9 relative leaves room for rounding in its solver and nothing else.
inline constexpr double kSimGridTolerance = 1e-9;

// An engine in the calling (child) process, with SimGrid's INFO chatter silenced.
inline std::unique_ptr<sg4::Engine> make_engine() {
  static char name[] = "test_platform";
  static char quiet[] = "--log=root.thresh:warning";
  int argc = 2;
  char* argv[] = {name, quiet, nullptr};
  return std::make_unique<sg4::Engine>(&argc, argv);
}

// A platform built from `spec` in a fresh engine of this (child) process, under the exact network model.
inline platform::BuiltPlatform build_exact(const platform::ClusterSpec& spec) {
  static std::unique_ptr<sg4::Engine> engine;
  engine = make_engine();
  platform::configure_exact_network(*engine);
  return platform::build_platform(spec, *engine);
}

// The message of the error `body` throws in a child, or "" when it throws none.
inline std::string child_error(const std::function<void()>& body) {
  try {
    run_in_child([&] {
      body();
      return std::vector<double>{};
    });
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

inline double route_latency(const sg4::Host* from, const sg4::Host* to) {
  std::vector<sg4::Link*> links;
  double latency_s = 0;
  from->route_to(to, links, &latency_s);
  return latency_s;
}

// The route's link names, space-separated, in order.
inline std::string route_names(const sg4::Host* from, const sg4::Host* to) {
  std::vector<sg4::Link*> links;
  double latency_s = 0;
  from->route_to(to, links, &latency_s);
  std::string names;
  for (const sg4::Link* link : links) names += (names.empty() ? "" : " ") + link->get_name();
  return names;
}

// Throws (so that the child reports it) unless the route from `from` to `to` is exactly `expected`.
inline void expect_route(const platform::BuiltPlatform& platform, int from, int to,
                         const std::string& expected) {
  const std::string actual = route_names(platform.gpu_hosts[from], platform.gpu_hosts[to]);
  if (actual != expected)
    throw std::runtime_error("route " + platform.gpu_hosts[from]->get_name() + " -> " +
                             platform.gpu_hosts[to]->get_name() + " is [" + actual + "], expected [" +
                             expected + "]");
}

// Runs transfers one phase after another; in a phase all transfers start together. Returns each
// transfer's duration, in order.
inline std::vector<double> timed_phases(const platform::BuiltPlatform& platform,
                                        const std::vector<std::vector<std::pair<int, int>>>& phases,
                                        double bytes) {
  std::vector<double> durations;
  sg4::Actor::create("driver", platform.gpu_hosts[0], [&] {
    for (const auto& phase : phases) {
      const double start = sg4::Engine::get_clock();
      std::vector<sg4::CommPtr> comms;
      for (const auto& [from, to] : phase) {
        comms.push_back(sg4::Comm::sendto_async(platform.gpu_hosts[from], platform.gpu_hosts[to],
                                                static_cast<uint64_t>(bytes)));
      }
      for (const auto& comm : comms) {
        comm->wait();
        durations.push_back(sg4::Engine::get_clock() - start);
      }
    }
  });
  sg4::Engine::get_instance()->run();
  return durations;
}

}  // namespace simtrain::testing
