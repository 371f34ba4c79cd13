// gnuplot scripts for a study's table: scaling curves with ideal scaling, time-breakdown stacked bars and
// memory per GPU. The script embeds its data, so one file renders the plot (`gnuplot FILE`).
#pragma once

#include <string>
#include <vector>

#include "simulator/study/collect.h"

namespace simtrain::study {

enum class PlotKind {
  Scaling,    // y against x per series, with the ideal line from each series' smallest x
  Breakdown,  // compute / exposed communication / pipeline bubble / idle per run, stacked, in ms
  Memory,     // peak memory per GPU per run against the GPU's capacity, in GiB
  Pareto,     // y against x per run as points, and the runs no other run beats on both (lower is better)
};

struct PlotRequest {
  PlotKind kind = PlotKind::Scaling;
  std::string x = "gpus";           // an axis option (scaling), a column (pareto)
  std::string y = "samples_per_s";  // a metric column (scaling, pareto)
  std::vector<std::string> series;  // axis options whose values split the curves; empty = every other axis
  std::string output;               // .svg or .png
  std::string title;
};

// The gnuplot script. Only finished ("ok") runs are plotted. Bar charts widen with the number of runs and
// turn their labels upright past a dozen, so that 30 configurations stay readable; the memory chart stacks
// what holds the memory when the results say it; a log axis says so in its label. Throws Error when the table
// has no finished run, when x, y or series name no column, when x or y is not numeric, or when the output's
// extension is neither .svg nor .png.
std::string gnuplot_script(const StudyTable& table, const PlotRequest& request);

}  // namespace simtrain::study
