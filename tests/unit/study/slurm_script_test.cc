// Specification of simulator/study/slurm_script.h: quoted words reach a shell's command unchanged, and
// nothing in them runs. tests/cli/hostile_names.sh runs a whole generated script with a stand-in sbatch.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "simulator/study/slurm_script.h"

using namespace simtrain::study;

namespace {

// What /bin/sh makes of `command`: its standard output.
std::string shell_output(const std::string& command) {
  std::FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[256];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

const char* const kHostile[] = {"plain",     "with space",      "it's",       "'",       "''",
                                "a\"b",      "$(echo RAN)",     "`echo RAN`", "${HOME}", "back\\slash",
                                "new\nline", "x'; echo RAN; '", "-n",         ""};

}  // namespace

TEST_CASE("a shell-quoted word reaches the command unchanged, and nothing in it runs") {
  for (const std::string word : kHostile) {
    CAPTURE(word);
    CHECK(shell_output("printf '%s|' " + shell_quote(word)) == word + "|");
  }
}

TEST_CASE("a word quoted twice survives two shells, as --wrap's command does") {
  for (const std::string word : kHostile) {
    CAPTURE(word);
    const std::string inner = "printf '%s|' " + shell_quote(word);
    CHECK(shell_output("sh -c " + shell_quote(inner)) == word + "|");
  }
}

TEST_CASE("the job array's command expands the task id in the job, not when submitting") {
  const std::string script = slurm_script("s.toml", "results/s", 4, 2);
  CHECK(script.find("--array=1-4") != std::string::npos);
  CHECK(script.find("--wrap='simtrain sweep '\\''s.toml'\\'' --results '\\''results/s'\\'' --shard "
                    "\"${SLURM_ARRAY_TASK_ID}\"/4 -j 2'") != std::string::npos);
}
