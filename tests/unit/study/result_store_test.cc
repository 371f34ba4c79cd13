// Specification of simulator/study/result_store.h in a results directory others may share: claims let one
// worker run a scenario, nothing planted in the directory is followed, and a resumed sweep clears the
// scratch files of dead ones.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/file_io.h"
#include "simulator/study/result_store.h"
#include "tests/support/temporary_directory.h"

using namespace simtrain;
using namespace simtrain::study;
namespace fs = std::filesystem;

using simtrain::testing::TemporaryDirectory;

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

RunRecord skipped(const std::string& key) {
  RunRecord record;
  record.key = key;
  record.status = RunStatus::Skipped;
  record.error = "does not divide";
  return record;
}

}  // namespace

TEST_CASE("a scenario claimed by one worker is not claimed by another until released") {
  const TemporaryDirectory dir("simtrain_store_claim");
  const ResultStore one(dir.path.string()), other(dir.path.string());
  std::optional<Claim> claim = one.claim("00000000000000aa");
  REQUIRE(claim);
  CHECK_FALSE(other.claim("00000000000000aa"));
  CHECK(other.claim("00000000000000bb"));  // other scenarios are free
  claim.reset();
  CHECK(other.claim("00000000000000aa"));
}

TEST_CASE("a claim on a scenario recorded meanwhile is refused") {
  const TemporaryDirectory dir("simtrain_store_claim_done");
  const ResultStore store(dir.path.string());
  {
    std::optional<Claim> claim = store.claim("00000000000000aa");
    REQUIRE(claim);
    store.write(skipped("00000000000000aa"));
  }
  CHECK_FALSE(store.claim("00000000000000aa"));
  CHECK_FALSE(fs::exists(dir.path / "00000000000000aa.claim"));  // released claims leave no file
}

TEST_CASE("links planted at a claim or record name are not followed") {
  const TemporaryDirectory dir("simtrain_store_links");
  const ResultStore store((dir.path / "results").string());
  std::ofstream(dir.path / "victim") << "precious";
  fs::create_symlink(dir.path / "victim", dir.path / "results" / "00000000000000aa.claim");
  CHECK_THROWS_WITH_AS(store.claim("00000000000000aa"), doctest::Contains("not followed"), Error);
  fs::create_symlink(dir.path / "victim", dir.path / "results" / "00000000000000bb.json");
  CHECK_FALSE(store.has("00000000000000bb"));  // a link is no record
  CHECK_THROWS_AS(store.write(skipped("00000000000000bb")), Error);
  CHECK(slurp(dir.path / "victim") == "precious");
}

TEST_CASE("scratch files are new files under unguessable names") {
  const TemporaryDirectory dir("simtrain_store_scratch");
  const ResultStore store(dir.path.string());
  const ScratchFile a = store.create_scratch("00000000000000aa", "json");
  const ScratchFile b = store.create_scratch("00000000000000aa", "json");
  CHECK(a.path != b.path);
  CHECK(fs::is_regular_file(a.path));
  CHECK(fs::file_size(a.path) == 0);
}

TEST_CASE(
    "opening a results directory removes the scratch and temporary files of dead processes of this host") {
  const TemporaryDirectory dir("simtrain_store_orphans");
  const std::string owner = scratch_owner();
  const std::string dead = owner.substr(0, owner.rfind('.')) + ".99999999";
  for (const std::string name :
       {"k.json.tmp." + dead, "k.json.scratch." + dead + ".0011223344556677", "k.json.tmp." + owner,
        std::string("k.json.tmp.elsewhere.99999999"), std::string("k.json")})
    std::ofstream(dir.path / name) << "x";
  const ResultStore store(dir.path.string());
  CHECK_FALSE(fs::exists(dir.path / ("k.json.tmp." + dead)));
  CHECK_FALSE(fs::exists(dir.path / ("k.json.scratch." + dead + ".0011223344556677")));
  CHECK(fs::exists(dir.path / ("k.json.tmp." + owner)));          // alive
  CHECK(fs::exists(dir.path / "k.json.tmp.elsewhere.99999999"));  // another host's: perhaps alive
  CHECK(fs::exists(dir.path / "k.json"));
}
