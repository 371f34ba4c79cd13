// Implements plot.h: inline data blocks ($name << EOD) and one plot command per kind.
#include "simulator/study/plot.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "common/error.h"

namespace simtrain::study {
namespace {

bool numeric(const std::string& text, double& value) {
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

// A label and a factor for a metric's unit: times in ms, memory in GiB, MFU in percent.
std::pair<std::string, double> axis_unit(const std::string& metric) {
  if (metric == "samples_per_s") return {"throughput (samples/s)", 1};
  if (metric == "job_time_s") return {"job time (s)", 1};
  if (metric == "iteration_time_s") return {"iteration time (ms)", 1e3};
  if (metric == "tokens_per_s") return {"throughput (tokens/s)", 1};
  if (metric == "mfu") return {"MFU (%)", 100};
  if (metric.size() > 2 && metric.substr(metric.size() - 2) == "_s") return {metric + " (ms)", 1e3};
  if (metric.find("bytes") != std::string::npos) return {metric + " (GiB)", 1.0 / (1u << 30)};
  return {metric, 1};
}

// Labels come from scenario files and results that others may have written, so no text of theirs may end up
// as gnuplot commands. In a single-quoted gnuplot string nothing is special but the quote itself, written
// twice: no backslash escapes, no `command` substitution, no @macro (those happen in double-quoted strings
// and bare text). A line break would end the command, so control characters become spaces.
std::string quoted(const std::string& text) {
  std::string q = "'";
  for (const char c : text) {
    if (c == '\'') {
      q += "''";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      q += ' ';
    } else {
      q += c;
    }
  }
  return q + "'";
}

// A label inside an inline data block ($name << EOD): gnuplot reads data lines as data and runs nothing in
// them, but a line break could end the block early ("EOD") and a double quote would end the label; neither
// can be escaped in data, so they are replaced.
std::string data_label(const std::string& text) {
  std::string q = "\"";
  for (const char c : text) {
    if (c == '"') {
      q += '\'';
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      q += ' ';
    } else {
      q += c;
    }
  }
  return q + "\"";
}

// The canvas: 900 x 560, wider by 28 pixels per bar beyond 20 bars.
std::string terminal(const std::string& output, std::size_t bars = 0) {
  const auto ends = [&](const std::string& ext) {
    return output.size() > ext.size() && output.compare(output.size() - ext.size(), ext.size(), ext) == 0;
  };
  // A line break in the name would write the plot somewhere else than asked; refuse rather than mend it.
  for (const char c : output)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw Error("-o: the plot's file name contains a control character");
  const std::string size =
      std::to_string(900 + 28 * (bars > 20 ? std::min<std::size_t>(bars, 400) - 20 : 0)) + ",560";
  if (ends(".svg")) return "set terminal svg size " + size + " dynamic enhanced font 'Helvetica,12'\n";
  if (ends(".png")) return "set terminal pngcairo size " + size + " enhanced font 'Helvetica,11'\n";
  throw Error(output, 0, "", "plot output must end in .svg or .png");
}

const std::string& cell(const std::map<std::string, std::string>& row, const std::string& column) {
  static const std::string empty;
  const auto it = row.find(column);
  return it == row.end() ? empty : it->second;
}

bool has_column(const StudyTable& table, const std::string& column) {
  return std::find(table.columns.begin(), table.columns.end(), column) != table.columns.end();
}

void require_column(const StudyTable& table, const std::string& column, const char* what) {
  if (std::find(table.columns.begin(), table.columns.end(), column) == table.columns.end())
    throw Error(std::string(what) + ": no column '" + column + "' in the study's results");
}

// A run's label on a bar chart: its axis values.
std::string run_label(const StudyTable& table, const std::map<std::string, std::string>& row) {
  std::string label;
  for (const std::string& axis : table.axes)
    label += (label.empty() ? "" : " ") + axis + "=" + cell(row, axis);
  return label.empty() ? cell(row, "index") : label;
}

std::string scaling(const StudyTable& table,
                    const std::vector<const std::map<std::string, std::string>*>& rows,
                    const PlotRequest& r) {
  require_column(table, r.x, "--x");
  require_column(table, r.y, "--y");
  for (const std::string& key : r.series) require_column(table, key, "--series");
  const auto [y_label, factor] = axis_unit(r.y);
  // Series: the chosen axis, or every axis but x; in the order the study lists their values.
  std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> series;
  double low = 0, high = 0;
  for (const auto* row : rows) {
    std::string name;
    for (const std::string& axis : table.axes)
      if (axis != r.x &&
          (r.series.empty() || std::find(r.series.begin(), r.series.end(), axis) != r.series.end()))
        name += (name.empty() ? "" : ", ") + axis + " " + cell(*row, axis);
    if (name.empty()) name = r.y;
    double x = 0, y = 0;
    if (!numeric(cell(*row, r.x), x)) throw Error("--x: '" + r.x + "' is not numeric: " + cell(*row, r.x));
    if (!numeric(cell(*row, r.y), y)) throw Error("--y: '" + r.y + "' is not numeric: " + cell(*row, r.y));
    auto it = std::find_if(series.begin(), series.end(), [&](const auto& s) { return s.first == name; });
    if (it == series.end()) it = series.insert(series.end(), {name, {}});
    it->second.emplace_back(x, y * factor);
    low = series.size() == 1 && it->second.size() == 1 ? y * factor : std::min(low, y * factor);
    high = std::max(high, y * factor);
  }
  // The ideal from each series' smallest x: a rate grows with x, a job's time shrinks as 1/x (a fixed
  // amount of work), any other time (per iteration, at a fixed batch per GPU) stays flat.
  const bool rate = r.y.find("per_s") != std::string::npos;
  const bool work = r.y == "job_time_s";
  std::string script, plots;
  int n = 0;
  for (auto& [name, points] : series) {
    std::sort(points.begin(), points.end());
    script += "$s" + std::to_string(n) + " << EOD\n";
    for (const auto& [x, y] : points) {
      const auto [x0, y0] = points.front();
      const double ideal = rate ? y0 * x / x0 : work ? y0 * x0 / x : y0;
      char line[96];
      std::snprintf(line, sizeof line, "%.17g %.17g %.17g\n", x, y, ideal);
      script += line;
    }
    script += "EOD\n";
    const std::string data = "$s" + std::to_string(n);
    plots += std::string(plots.empty() ? "" : ", \\\n     ") + data +
             " using 1:2 with linespoints lw 2 pt 7 lc " + std::to_string(n + 1) + " title " + quoted(name) +
             ", " + data + " using 1:3 with lines dt 2 lc " + std::to_string(n + 1) + " notitle";
    ++n;
  }
  // Both axes say when they are logarithmic; the ticks then stay at plain numbers.
  const bool log_y = low > 0 && high / low > 20;
  if (log_y) script += "set logscale y\n";
  script += "set xlabel " + quoted(r.x + " (log scale)") + " noenhanced\nset ylabel " +
            quoted(y_label + (log_y ? " (log scale)" : "")) + " noenhanced\n";
  script +=
      "set logscale x 2\nset key " + std::string(work ? "top right" : "top left") + " noenhanced\nset grid\n";
  script +=
      "set label 1 'dashed: ideal scaling from the smallest run' at graph 0.98, graph 0.04 right font "
      "',10'\n";
  return script + "plot " + plots + "\n";
}

// Every run as a point, and the Pareto front through the runs that no other run beats on both x and y
// (lower is better on both: fewer GPUs or less memory, shorter time).
std::string pareto(const StudyTable& table,
                   const std::vector<const std::map<std::string, std::string>*>& rows, const PlotRequest& r) {
  require_column(table, r.x, "--x");
  require_column(table, r.y, "--y");
  const auto [x_label, x_factor] = axis_unit(r.x);
  const auto [y_label, y_factor] = axis_unit(r.y);
  std::vector<std::pair<double, double>> points;
  for (const auto* row : rows) {
    double x = 0, y = 0;
    if (!numeric(cell(*row, r.x), x)) throw Error("--x: '" + r.x + "' is not numeric: " + cell(*row, r.x));
    if (!numeric(cell(*row, r.y), y)) throw Error("--y: '" + r.y + "' is not numeric: " + cell(*row, r.y));
    points.emplace_back(x * x_factor, y * y_factor);
  }
  std::sort(points.begin(), points.end());
  std::string script = "$all << EOD\n", front = "$front << EOD\n";
  double best = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    char line[64];
    std::snprintf(line, sizeof line, "%.17g %.17g\n", points[i].first, points[i].second);
    script += line;
    if (i == 0 || points[i].second < best) {
      best = points[i].second;
      front += line;
    }
  }
  script += "EOD\n" + front + "EOD\n";
  script += "set xlabel " + quoted(x_label) + " noenhanced\nset ylabel " + quoted(y_label) + " noenhanced\n";
  script += "set key top right noenhanced\nset grid\n";
  return script +
         "plot $all using 1:2 with points pt 7 ps 0.6 lc rgb 'gray' title 'plans', "
         "$front using 1:2 with linespoints lw 2 pt 7 lc 1 title 'Pareto front'\n";
}

std::string bars(const StudyTable& table, const std::vector<const std::map<std::string, std::string>*>& rows,
                 const std::vector<std::pair<std::string, std::string>>& stacks, double factor,
                 const std::string& y_label, const std::string& capacity_column) {
  // The stacked columns, then the capacity marker's when there is one.
  std::vector<std::string> columns;
  for (const auto& stack : stacks) columns.push_back(stack.first);
  if (!capacity_column.empty()) columns.push_back(capacity_column);
  std::string script = "$bars << EOD\n";
  for (const auto* row : rows) {
    script += data_label(run_label(table, *row));
    for (const std::string& column : columns) {
      double v = 0;
      numeric(cell(*row, column), v);
      char value[40];
      std::snprintf(value, sizeof value, " %.17g", v * factor);
      script += value;
    }
    script += "\n";
  }
  script += "EOD\n";
  script +=
      "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n";
  // Past a dozen runs the labels stand upright in a smaller font (the canvas widens with the runs).
  const bool many = rows.size() > 12;
  script += std::string("set boxwidth 0.75\nset xtics ") +
            (many ? "rotate by 90 right font ',8'" : "rotate by -35 font ',9'") + " noenhanced\nset ylabel " +
            quoted(y_label) + "\nset key outside right top vertical\nset grid ytics\nset bmargin " +
            (many ? "14" : "10") + "\nset rmargin 28\n";
  std::string plots;
  for (std::size_t i = 0; i < stacks.size(); ++i)
    plots += std::string(plots.empty() ? "" : ", ") + "$bars using " + std::to_string(i + 2) +
             (i == 0 ? ":xtic(1)" : "") + " title " + quoted(stacks[i].second);
  if (!capacity_column.empty())
    plots += ", $bars using 0:" + std::to_string(stacks.size() + 2) +
             " with points pt 5 ps 1.2 lc rgb 'red' title 'GPU memory capacity'";
  return script + "plot " + plots + "\n";
}

}  // namespace

std::string gnuplot_script(const StudyTable& table, const PlotRequest& request) {
  std::vector<const std::map<std::string, std::string>*> rows;
  for (const auto& row : table.rows)
    if (cell(row, "status") == "ok") rows.push_back(&row);
  if (rows.empty()) throw Error("the study has no finished run to plot (run simtrain sweep first)");
  const bool is_bar_chart = request.kind == PlotKind::Breakdown || request.kind == PlotKind::Memory;
  std::string script = terminal(request.output, is_bar_chart ? rows.size() : 0) + "set output " +
                       quoted(request.output) + "\n";
  if (!request.title.empty()) script += "set title " + quoted(request.title) + " font ',14' noenhanced\n";
  switch (request.kind) {
    case PlotKind::Scaling:
      return script + scaling(table, rows, request);
    case PlotKind::Breakdown: {
      require_column(table, "breakdown.compute_s", "breakdown");
      std::vector<std::pair<std::string, std::string>> stacks = {
          {"breakdown.compute_s", "compute"},
          {"breakdown.exposed_comm_s", "exposed communication"},
          {"breakdown.pipeline_bubble_s", "pipeline bubble"}};
      if (has_column(table, "breakdown.host_bound_s"))
        stacks.push_back({"breakdown.host_bound_s", "host-bound"});
      if (has_column(table, "breakdown.offload_bound_s"))
        stacks.push_back({"breakdown.offload_bound_s", "offload-bound"});
      stacks.push_back({"breakdown.idle_s", "idle"});
      return script + bars(table, rows, stacks, 1e3, "iteration time (ms)", "");
    }
    case PlotKind::Pareto:
      return script + pareto(table, rows, request);
    case PlotKind::Memory: {
      require_column(table, "peak_memory_bytes", "memory");
      // What holds the memory, when the runs say it; else the peak alone.
      std::vector<std::pair<std::string, std::string>> stacks;
      for (const char* part :
           {"weights", "gradients", "optimizer_states", "activations", "communication_buffers", "workspace"})
        if (has_column(table, std::string("memory_breakdown_bytes.") + part))
          stacks.push_back({std::string("memory_breakdown_bytes.") + part, part});
      if (stacks.empty()) stacks.push_back({"peak_memory_bytes", "peak memory per GPU"});
      return script +
             bars(table, rows, stacks, 1.0 / (1u << 30), "memory per GPU (GiB)", "memory_capacity_bytes");
    }
  }
  return script;
}

}  // namespace simtrain::study
