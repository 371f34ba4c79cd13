// Specification of simulator/study/plot.h with hostile labels: a study's names and values reach the plot as
// text, never as gnuplot commands. tests/cli/hostile_names.sh runs such scripts through gnuplot.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/study/plot.h"

using namespace simtrain;
using namespace simtrain::study;

namespace {

StudyTable table_with_axis_value(const std::string& value) {
  StudyTable table;
  table.axes = {"gpus", "model"};
  table.columns = {"index",
                   "status",
                   "gpus",
                   "model",
                   "samples_per_s",
                   "breakdown.compute_s",
                   "breakdown.exposed_comm_s",
                   "breakdown.pipeline_bubble_s",
                   "breakdown.idle_s"};
  for (const char* gpus : {"8", "16"})
    table.rows.push_back({{"index", "0"},
                          {"status", "ok"},
                          {"gpus", gpus},
                          {"model", value},
                          {"samples_per_s", "100"},
                          {"breakdown.compute_s", "0.1"},
                          {"breakdown.exposed_comm_s", "0"},
                          {"breakdown.pipeline_bubble_s", "0"},
                          {"breakdown.idle_s", "0"}});
  return table;
}

// The lines of the script outside inline data blocks: what gnuplot runs as commands.
std::vector<std::string> command_lines(const std::string& script) {
  std::vector<std::string> lines;
  bool in_data = false;
  std::size_t start = 0;
  while (start < script.size()) {
    const std::size_t end = script.find('\n', start);
    const std::string line = script.substr(start, end - start);
    if (in_data) {
      in_data = line != "EOD";
    } else if (line.find("<< EOD") != std::string::npos) {
      in_data = true;
    } else {
      lines.push_back(line);
    }
    start = end == std::string::npos ? script.size() : end + 1;
  }
  return lines;
}

}  // namespace

TEST_CASE("hostile titles and labels stay inside single-quoted strings, on their line") {
  const std::string hostile = "x\"; system('touch PWNED'); # `touch PWNED` \nsystem('touch PWNED')\nEOD";
  for (const PlotKind kind : {PlotKind::Scaling, PlotKind::Breakdown}) {
    PlotRequest request;
    request.kind = kind;
    request.output = "plot.svg";
    request.title = hostile;
    const std::string script = gnuplot_script(table_with_axis_value(hostile), request);
    CHECK(script.find(
              "set title 'x\"; system(''touch PWNED''); # `touch PWNED`  system(''touch PWNED'') EOD'") !=
          std::string::npos);
    for (const std::string& line : command_lines(script)) {
      CAPTURE(line);
      // Outside quotes no hostile text remains: remove every single-quoted string and look again.
      std::string bare;
      bool quoted = false;
      for (const char c : line) {
        if (c == '\'') quoted = !quoted;
        if (!quoted && c != '\'') bare += c;
      }
      CHECK(bare.find("system") == std::string::npos);
      CHECK(bare.find('`') == std::string::npos);
      CHECK(bare.find("PWNED") == std::string::npos);
    }
  }
}

TEST_CASE("a plot file name with a line break is refused") {
  PlotRequest request;
  request.output = "a\nset output 'b.svg";
  CHECK_THROWS_AS(gnuplot_script(table_with_axis_value("m"), request), Error);
}

namespace {

// 30 runs over tp x pp x gpus, each with a memory breakdown.
StudyTable thirty_runs() {
  StudyTable table;
  table.axes = {"tp", "pp", "gpus"};
  table.columns = {"index",
                   "status",
                   "tp",
                   "pp",
                   "gpus",
                   "samples_per_s",
                   "peak_memory_bytes",
                   "memory_capacity_bytes",
                   "memory_breakdown_bytes.weights",
                   "memory_breakdown_bytes.activations"};
  int index = 0;
  for (const char* tp : {"1", "2", "4", "8", "16"})
    for (const char* pp : {"1", "2"})
      for (const char* gpus : {"64", "128", "256"})
        table.rows.push_back({{"index", std::to_string(index++)},
                              {"status", "ok"},
                              {"tp", tp},
                              {"pp", pp},
                              {"gpus", gpus},
                              {"samples_per_s", "1000"},
                              {"peak_memory_bytes", "3e10"},
                              {"memory_capacity_bytes", "8e10"},
                              {"memory_breakdown_bytes.weights", "1e10"},
                              {"memory_breakdown_bytes.activations", "2e10"}});
  return table;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("--series with several keys: one curve per (tp, pp), over gpus") {
  PlotRequest request;
  request.output = "plot.svg";
  request.series = {"tp", "pp"};
  const std::string script = gnuplot_script(thirty_runs(), request);
  CHECK(count(script, "with linespoints") == 10);
  CHECK(script.find("title 'tp 16, pp 2'") != std::string::npos);
  CHECK(script.find("set xlabel 'gpus (log scale)'") != std::string::npos);
}

TEST_CASE("30 bars: a wider canvas, upright labels, memory stacked by what holds it") {
  PlotRequest request;
  request.kind = PlotKind::Memory;
  request.output = "memory.svg";
  const std::string script = gnuplot_script(thirty_runs(), request);
  CHECK(script.find("set terminal svg size 1180,560") != std::string::npos);  // 900 + 28 x (30 - 20)
  CHECK(script.find("set xtics rotate by 90 right font ',8'") != std::string::npos);
  CHECK(script.find("title 'weights'") != std::string::npos);
  CHECK(script.find("title 'activations'") != std::string::npos);
  CHECK(script.find("title 'GPU memory capacity'") != std::string::npos);
}
