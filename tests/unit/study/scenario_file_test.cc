// Specification of scenario files (simulator/study/scenario_file.h): expansion order, zipped axes,
// exclusions, run arguments and the stable key of a configuration.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/study/scenario_file.h"

using namespace simtrain;
using namespace simtrain::study;

namespace {

// A stand-in for `simtrain run`'s options: "sp" is a switch, "json" reserved, anything else ending in
// "-bad" unknown.
OptionKind lookup(const std::string& option) {
  OptionKind kind;
  kind.known = option.size() < 4 || option.substr(option.size() - 4) != "-bad";
  kind.is_switch = option == "sp";
  kind.reserved = option == "json";
  return kind;
}

Study parse(const std::string& text) { return parse_study(text, "s.toml", lookup); }

std::string values(const Scenario& s) {
  std::string text;
  for (const Setting& v : s.axis_values) text += v.option + "=" + v.value + " ";
  return text;
}

}  // namespace

TEST_CASE("axes multiply in file order, the last varying fastest; zipped axes move together") {
  const Study study = parse(R"(
[study]
name = "t"
[base]
model = "gpt3-175b"
[sweep]
gpus = [64, 128]
[[zip]]
tp = [8, 4]
pp = [2, 4]
)");
  CHECK(study.axis_options() == std::vector<std::string>{"gpus", "tp", "pp"});
  const std::vector<Scenario> runs = expand(study);
  REQUIRE(runs.size() == 4);
  CHECK(values(runs[0]) == "gpus=64 tp=8 pp=2 ");
  CHECK(values(runs[1]) == "gpus=64 tp=4 pp=4 ");
  CHECK(values(runs[2]) == "gpus=128 tp=8 pp=2 ");
  CHECK(values(runs[3]) == "gpus=128 tp=4 pp=4 ");
  CHECK(runs[3].run_arguments() ==
        std::vector<std::string>{"--model", "gpt3-175b", "--gpus", "128", "--tp", "4", "--pp", "4"});
}

TEST_CASE("an exclusion drops the runs matching all its values and keeps the others' indices") {
  const Study study = parse(R"(
[study]
name = "t"
[sweep]
gpus = [8, 16]
batch-per-gpu = [32, 64]
[[exclude]]
gpus = 8
batch-per-gpu = 64
)");
  const std::vector<Scenario> runs = expand(study);
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].index == 0);
  CHECK(runs[1].index == 2);  // index 1 (8, 64) is excluded
  CHECK(values(runs[1]) == "gpus=16 batch-per-gpu=32 ");
}

TEST_CASE("switches appear alone when true and not at all when false; numbers keep their shortest form") {
  const Study study = parse("[study]\nname = \"t\"\n[base]\nbucket-mb = 0.1\n[sweep]\nsp = [true, false]\n");
  const std::vector<Scenario> runs = expand(study);
  CHECK(runs[0].run_arguments() == std::vector<std::string>{"--bucket-mb", "0.1", "--sp"});
  CHECK(runs[1].run_arguments() == std::vector<std::string>{"--bucket-mb", "0.1"});
  // An empty string leaves an option out of one zipped run.
  const Study zipped = parse("[study]\nname = \"t\"\n[[zip]]\nzero = [3, 0]\nfsdp = [\"\", \"full\"]\n");
  CHECK(expand(zipped)[0].run_arguments() == std::vector<std::string>{"--zero", "3"});
  CHECK(expand(zipped)[1].run_arguments() == std::vector<std::string>{"--zero", "0", "--fsdp", "full"});
}

TEST_CASE("a configuration's key depends on its settings, not on their order or the study around it") {
  Scenario a, b, c;
  a.settings = {{"gpus", "8", 1}, {"model", "resnet50", 2}};
  b.settings = {{"model", "resnet50", 7}, {"gpus", "8", 3}};
  c.settings = {{"gpus", "16", 1}, {"model", "resnet50", 2}};
  CHECK(a.key() == b.key());
  CHECK(a.key() != c.key());
  CHECK(a.key().size() == 16);
  CHECK(a.key().find_first_not_of("0123456789abcdef") == std::string::npos);
}

TEST_CASE("scenario file errors name the line and key") {
  CHECK_THROWS_WITH_AS(parse("[study]\nname = \"t\"\n[base]\nmodel-bad = 1\n"),
                       doctest::Contains("s.toml:4: base.model-bad: unknown option"), Error);
  CHECK_THROWS_WITH_AS(parse("[study]\nname = \"t\"\n[sweep]\ngpus = 8\n"),
                       doctest::Contains("s.toml:4: sweep.gpus: an axis: expected an array"), Error);
  CHECK_THROWS_WITH_AS(parse("[study]\nname = \"t\"\n[sweep]\ngpus = [[8]]\n"),
                       doctest::Contains("sweep.gpus: expected a string, number or boolean"), Error);
  CHECK_THROWS_WITH_AS(parse("[study]\nname = \"t\"\n[[zip]]\ntp = [1, 2]\npp = [1]\n"),
                       doctest::Contains("s.toml:5: zip.pp: zipped axes must have equal lengths"), Error);
  CHECK_THROWS_WITH_AS(parse("[study]\nname = \"t\"\n[sweep]\ntp = [1]\n[[zip]]\ntp = [2]\n"),
                       doctest::Contains("zip.tp: set twice"), Error);
  CHECK_THROWS_WITH_AS(parse("[study]\nname = \"t\"\n[base]\ngpus = 8\n[[exclude]]\ngpus = 8\n"),
                       doctest::Contains("s.toml:6: exclude.gpus: not a swept option"), Error);
  CHECK_THROWS_WITH_AS(parse("[study]\nname = \"t\"\nworkers = 3\n"),
                       doctest::Contains("s.toml:3: study.workers: unknown key"), Error);
  CHECK_THROWS_WITH_AS(parse("[study]\nname = \"t\"\n[study2]\n"), doctest::Contains("study2: unknown table"),
                       Error);
  // Seven axes of 10 values ask for 10^7 runs, which expand() would hold in memory at once.
  std::string huge = "[study]\nname = \"t\"\n[sweep]\n";
  for (const char* option : {"a", "b", "c", "d", "e", "f", "g"})
    huge += std::string(option) + " = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
  CHECK_THROWS_WITH_AS(parse(huge),
                       doctest::Contains("s.toml:10: g: the axes up to this one make more than 1000000 runs"),
                       Error);
}

TEST_CASE("a study's name must be plain: it names a directory under results/") {
  for (const std::string name : {"../../x", "/etc", "a/b", ".hidden", "", "x y", "a`b`", "$(touch x)"}) {
    const std::string text = "[study]\nname = \"" + name + "\"\n";
    CHECK_THROWS_WITH_AS(parse_study(text, "s.toml", lookup),
                         doctest::Contains("s.toml:2: study.name: must be a plain name"), Error);
  }
  CHECK(parse_study("[study]\nname = \"llama2-13b_plans.v2\"\n", "s.toml", lookup).name ==
        "llama2-13b_plans.v2");
}

TEST_CASE("a study of more than kMaxStudyRuns runs is refused, even when the count would wrap around") {
  Study study;
  study.file = "huge.toml";
  study.name = "huge";
  for (int g = 0; g < 64; ++g) {  // 2^64 runs: 0 in a 64-bit count that is not checked
    AxisGroup group;
    group.options = {"o" + std::to_string(g)};
    group.values = {{{group.options[0], "1", g + 1}}, {{group.options[0], "2", g + 1}}};
    study.axes.push_back(group);
  }
  CHECK_THROWS_WITH_AS(expand(study), doctest::Contains("more than 1000000 runs"), Error);
  study.axes.resize(19);  // 524,288 runs: allowed
  CHECK(expand(study).size() == 524288);
}

TEST_CASE("a run's key changes with the content of the files it reads and with skip_invalid") {
  Study study;
  study.name = "s";
  study.base = {{"platform", "p.toml", 3}};
  std::string platform_file = "bandwidth_GBps = 300";
  const InputContent inputs = [&](const std::vector<Setting>&) { return platform_file; };
  const std::string before = expand(study, inputs).at(0).key();
  CHECK(expand(study, inputs).at(0).key() == before);  // stable
  platform_file = "bandwidth_GBps = 150";
  CHECK(expand(study, inputs).at(0).key() != before);
  platform_file = "bandwidth_GBps = 300";
  study.skip_invalid = true;
  CHECK(expand(study, inputs).at(0).key() != before);
}
