// Specification of host profile files (host_profile.h): strict reading, errors that name the field.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/workload/host_profile.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

std::string field_of_error(const std::string& text) {
  try {
    parse_host_profile(text, "host.json");
  } catch (const Error& e) {
    CHECK(e.file() == "host.json");
    return e.field();
  }
  FAIL("no error for " << text);
  return {};
}

}  // namespace

TEST_CASE("a host profile names the machine and its dispatch cost per launched kernel") {
  const HostProfile p = parse_host_profile(
      R"({"schema": "simtrain-host", "version": 1, "name": "h200-run-b", "dispatch_per_kernel_s": 4e-5,
          "launch_call_s": 1e-5, "source": "traces/pytorch"})",
      "host.json");
  CHECK(p.name == "h200-run-b");
  CHECK(p.dispatch_per_kernel_s == 4e-5);
  CHECK(p.launch_call_s == 1e-5);
  CHECK(p.source == "traces/pytorch");
}

TEST_CASE("a malformed host profile is refused naming the field") {
  const std::string head = R"({"schema": "simtrain-host", "version": 1, "name": "x", )";
  CHECK(field_of_error(head + R"("dispatch_per_kernel_s": -1})") == "dispatch_per_kernel_s");
  CHECK(field_of_error(head + R"("dispatch_per_kernel_s": "fast"})") == "dispatch_per_kernel_s");
  CHECK(field_of_error(head + R"("dispatch_per_kernel_s": 1e-5, "speed": 2})") == "speed");
  // The launch call is part of a dispatch: never more than it.
  CHECK(field_of_error(head + R"("dispatch_per_kernel_s": 1e-5, "launch_call_s": 2e-5})") == "launch_call_s");
  CHECK(field_of_error(head + R"("dispatch_per_kernel_s": 1e-5, "launch_call_s": 0})") == "launch_call_s");
  CHECK(field_of_error(R"({"schema": "simtrain-host", "version": 1, "name": "x"})") ==
        "dispatch_per_kernel_s");
  CHECK(field_of_error(R"({"schema": "other", "version": 1, "name": "x", "dispatch_per_kernel_s": 1e-5})") ==
        "schema");
  CHECK(field_of_error(
            R"({"schema": "simtrain-host", "version": 2, "name": "x", "dispatch_per_kernel_s": 1})") ==
        "version");
  CHECK_THROWS_AS(parse_host_profile("{", "host.json"), Error);
}
