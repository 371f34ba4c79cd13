// Fuzz target: SimGrid XML platforms as `simtrain run --platform file.xml` loads them
// (simulator/platform/simgrid_platform.h). SimGrid allows one engine per process and reads platforms only
// from files, so each input is written to a temporary .xml file and loaded in a forked child; the child
// exits 0 on success or simtrain::Error, 1 on any other exception, and the parent aborts on anything but 0
// so that libFuzzer (or replay_main.cc) reports it with the input. Coverage of a child is lost with it, and
// SimGrid is not instrumented anyway, so the parent also runs simtrain's own route check on the text: its
// coverage is what guides the mutations towards platforms with zones and routes.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <simgrid/s4u/Engine.hpp>
#include <string>

#include "simulator/platform/simgrid_platform.h"
#include "simulator/platform/simgrid_xml_check.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

[[noreturn]] void load_in_child(const std::string& path) {
  // load_simgrid_xml loads the platform once more in a grandchild, where SimGrid may abort by design
  // (handled: it becomes an Error). The handlers libFuzzer installed would report that abort as a crash of
  // this input; the default ones let the grandchild die quietly, while a crash here still reaches the parent.
  for (const int signal : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE}) std::signal(signal, SIG_DFL);
  int status = 0;
  try {
    static char name[] = "fuzz_simgrid_xml";
    static char quiet[] = "--log=root.thresh:critical";
    int argc = 2;
    char* argv[] = {name, quiet, nullptr};
    simgrid::s4u::Engine engine(&argc, argv);
    simtrain::platform::configure_exact_network(engine);
    simtrain::platform::load_simgrid_xml(path, 2, engine);
  } catch (const simtrain::Error&) {
  } catch (const std::exception& error) {
    std::fprintf(stderr, "exception other than simtrain::Error: %s\n", error.what());
    status = 1;
  }
  _exit(status);  // not exit(): SimGrid's atexit handlers and the engine's destructor are not under test
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  simtrain::fuzz::accept_any_bytes(data, size, [](const std::string& text) {
    simtrain::platform::check_full_zone_routes(text, "fuzz.xml");
  });
  const std::string path = "/tmp/simtrain-fuzz-" + std::to_string(::getpid()) + ".xml";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) load_in_child(path);
  int status = 0;
  waitpid(child, &status, 0);
  std::remove(path.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "loading the platform %s (status %d)\n", WIFSIGNALED(status) ? "crashed" : "failed",
                 status);
    std::abort();
  }
  return 0;
}
