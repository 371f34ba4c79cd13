// The nccl-tests text parser: a line-by-line state machine over the output (header, device list, column
// header, data rows, footer; one run after another). The -J JSON reader is in nccl_tests_json.cc.
#include "calibration/nccl_tests_log.h"

#include "calibration/collective_fit.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/input_limits.h"
#include "common/number_checks.h"

namespace simtrain::calibration {
namespace {

constexpr std::pair<std::string_view, std::string_view> kBinaries[] = {
    {"all_reduce_perf", "all_reduce"},
    {"all_gather_perf", "all_gather"},
    {"reduce_scatter_perf", "reduce_scatter"},
    {"alltoall_perf", "all_to_all"},
    {"broadcast_perf", "broadcast"},
    {"sendrecv_perf", "send_recv"},
    {"reduce_perf", "reduce"}};

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) tokens.push_back(text.substr(i, j - i));
    i = j;
  }
  return tokens;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

template <typename Number>
bool parse_number(std::string_view text, Number& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

bool is_number(std::string_view text) {
  double value = 0;
  return parse_number(text, value);
}

std::string_view basename(std::string_view path) {
  while (!path.empty() && (path.back() == '"' || path.back() == '\'')) path.remove_suffix(1);
  if (const auto slash = path.rfind('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
  return path;
}

// The *_perf binary a line names (an echoed command, "# Collective test starting: ..."), if any.
std::string binary_in(std::string_view line) {
  for (std::string_view token : split(line)) {
    token = basename(token);
    if (token.ends_with("_perf") || token.ends_with("_perf_mpi")) return std::string(token);
  }
  return {};
}

// NCCL_ALGO from an echoed command or environment ("-x NCCL_ALGO=Ring", "NCCL_ALGO set by environment to").
std::string algorithm_in(std::string_view line) {
  for (std::string_view key : {"NCCL_ALGO=", "NCCL_ALGO set by environment to "}) {
    if (const auto at = line.find(key); at != std::string_view::npos) {
      std::string_view rest = line.substr(at + key.size());
      auto tokens = split(rest);
      if (!tokens.empty()) return std::string(basename(tokens.front()));
    }
  }
  return {};
}

// Removes mpirun's --tag-output / --timestamp-output prefix ("[1,0]<stdout>:").
std::string_view strip_tag(std::string_view line) {
  for (std::string_view tag : {"<stdout>:", "<stderr>:"}) {
    if (const auto at = line.find(tag); at != std::string_view::npos && at < 64)
      return line.substr(at + tag.size());
  }
  return line;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
  return first == std::string_view::npos ? std::string_view() : text.substr(first, last - first + 1);
}

std::string op_for(const std::string& name, const std::string& origin, int line, const std::string& field) {
  if (name.empty())
    throw Error(origin, line, field,
                "the log does not say which collective this is (no '# Collective test starting' line or "
                "*_perf command); name it with --op, e.g. --op all_reduce");
  auto op = nccl_tests_op_name(name);
  if (!op) throw Error(origin, line, field, "'" + name + "' is not a collective simtrain models");
  return *op;
}

// Where each field sits in a data row: "size", "count", "type", "redop", "root", then "time0", "algbw0",
// "busbw0", "#wrong0" (out-of-place) and the same with 1 (in-place); "cputime" and "error" are renamed.
struct Columns {
  std::map<std::string, int> at;
  std::vector<std::string> names;
  int operator[](const std::string& key) const {
    const auto it = at.find(key);
    return it == at.end() ? -1 : it->second;
  }
};

class TextParser {
 public:
  TextParser(std::string origin, NcclTestsLogHints hints)
      : origin_(std::move(origin)), hints_(std::move(hints)) {}

  NcclTestsLog parse(const std::string& text) {
    int number = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string_view line(text.data() + start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ++number;
      if (!(end == text.size() && line.empty())) handle(strip_tag(line), number);
      start = end + 1;
    }
    if (state_ == State::Table)
      fail(last_row_line_ + 1, "",
           "the log ends inside a table, before its '# Avg bus bandwidth' footer: truncated?");
    if (run_) {
      if (state_ != State::Done) fail(run_->first_line, "", "this run has no result table");
      finish_run();
    }
    if (log_.runs.empty()) fail(number, "", "no nccl-tests result table found");
    return std::move(log_);
  }

 private:
  enum class State { None, Header, Table, Done };

  [[noreturn]] void fail(int line, const std::string& field, const std::string& message) const {
    throw Error(origin_, line, field, message);
  }

  void handle(std::string_view line, int number) {
    auto tokens = split(line);
    if (tokens.empty()) return;
    if (tokens.front().starts_with("#")) {
      handle_comment(line.substr(line.find('#') + 1), number);
    } else if (state_ == State::Table && is_number(tokens.front())) {
      // Any number opens a data row, "-1" and "nan" included, so that a bad size is an error rather than
      // a row silently skipped as foreign output.
      read_row(tokens, number);
    } else if (all_digits(tokens.front()) && tokens.size() >= 8 && all_digits(tokens[1])) {
      fail(number, "", "a data row without a column header before it ('#  size  count  type ...')");
    } else {
      // Not nccl-tests' own output: it may still be the command that started the next run.
      if (std::string algorithm = algorithm_in(line); !algorithm.empty())
        (state_ == State::Table ? run_->algorithm : pending_algorithm_) = algorithm;
      if (std::string binary = binary_in(line); !binary.empty() && state_ != State::Table)
        pending_binary_ = binary;
    }
  }

  void handle_comment(std::string_view body, int number) {
    auto tokens = split(body);
    if (tokens.empty()) return;
    if (body.find("Collective test starting:") != std::string_view::npos) {
      end_previous_run(number);
      pending_binary_ = binary_in(body.substr(body.find(':') + 1));
    } else if (tokens.front() == "nccl-tests" || tokens.front() == "rccl-tests") {
      end_previous_run(number);
    } else if (tokens.front() == "nThread") {
      end_previous_run(number);
      start_run(number);
    } else if (body.find("Using devices") != std::string_view::npos && state_ != State::Header) {
      end_previous_run(number);  // an excerpt without the "# nThread" line
      start_run(number);
    } else if (tokens.front() == "Rank" && state_ == State::Header) {
      read_rank(body, tokens, number);
    } else if (tokens.front() == "size" && std::find(tokens.begin(), tokens.end(), "busbw") != tokens.end()) {
      if (state_ == State::Table)
        fail(number, "", "a new table starts before the previous one's footer: truncated?");
      if (state_ == State::Done) {  // a second table of the same run (same header and devices)
        NcclTestsRun next = *run_;
        next.rows.clear();
        next.avg_bus_bandwidth_GBps.reset();
        finish_run();
        run_ = std::move(next);
      }
      if (!run_) start_run(number);
      read_columns(tokens, number);
      state_ = State::Table;
    } else if (body.find("Avg bus bandwidth") != std::string_view::npos && state_ == State::Table) {
      if (run_->rows.empty()) fail(number, "", "the table has no data rows");
      const auto value = split(body.substr(body.find(':') + 1));  // then "OK" or "FAILED" with -G
      double average = 0;
      if (value.empty() || !parse_number(value.front(), average))
        fail(number, "Avg bus bandwidth", "not a number");
      run_->avg_bus_bandwidth_GBps = average;
      state_ = State::Done;
    }
  }

  // A run ends where the next one's header begins; ending one in the middle of its table means truncation.
  void end_previous_run(int number) {
    if (state_ == State::Table)
      fail(number, "", "a new run starts before the previous table's footer: truncated?");
    if (run_ && state_ == State::Header) fail(run_->first_line, "", "this run has no result table");
    if (run_) finish_run();
  }

  void start_run(int number) {
    run_ = NcclTestsRun{};
    run_->first_line = number;
    run_->binary = std::exchange(pending_binary_, {});
    run_->algorithm = std::exchange(pending_algorithm_, {});
    hosts_.clear();
    max_rank_ = -1;
    state_ = State::Header;
  }

  void read_rank(std::string_view body, const std::vector<std::string_view>& tokens, int number) {
    int rank = 0;
    auto on = std::find(tokens.begin(), tokens.end(), "on");
    if (tokens.size() < 2 || !parse_number(tokens[1], rank) || on == tokens.end() || on + 1 == tokens.end())
      return;  // a device line cut by nccl-tests' own 2 KB limit ("..."): not data
    // The run's rank count is the highest rank + 1.
    if (rank < 0 || rank >= kMaxRanks)
      fail(number, "Rank",
           std::to_string(rank) + " is outside [0, " + std::to_string(kMaxRanks) +
               "), the ranks simtrain simulates");
    hosts_.insert(std::string(on[1]));
    max_rank_ = std::max(max_rank_, rank);
    if (const auto bracket = body.find(']'); run_->gpu.empty() && bracket != std::string_view::npos)
      run_->gpu = std::string(trim(body.substr(bracket + 1)));
  }

  void read_columns(const std::vector<std::string_view>& tokens, int number) {
    columns_ = Columns{};
    int half = -1;
    for (int i = 0; i < static_cast<int>(tokens.size()); ++i) {
      std::string name(tokens[i] == "cputime" ? "time" : tokens[i] == "error" ? "#wrong" : tokens[i]);
      if (name == "time" && ++half > 1) break;  // per-iteration statistics follow; not needed
      columns_.names.push_back(name);
      columns_.at.emplace(half < 0 ? name : name + std::to_string(half), i);
    }
    for (const char* key : {"size", "count", "type", "time0", "algbw0", "busbw0", "#wrong0", "time1",
                            "algbw1", "busbw1", "#wrong1"})
      if (columns_[key] < 0)
        fail(number, "",
             "column header not understood: expected size, count, type, then time, algbw, busbw and "
             "#wrong (or error) for out-of-place and in-place");
  }

  std::string column_name(int index) const {
    if (index >= columns_["time1"]) return columns_.names[index] + " (in-place)";
    if (index >= columns_["time0"]) return columns_.names[index] + " (out-of-place)";
    return columns_.names[index];
  }

  void read_row(const std::vector<std::string_view>& tokens, int number) {
    const int needed = columns_["#wrong1"] + 1;
    if (static_cast<int>(tokens.size()) < needed)
      fail(number, column_name(static_cast<int>(tokens.size())),
           "data row cut short: " + std::to_string(tokens.size()) + " of " + std::to_string(needed) +
               " fields");
    // Sizes and times are bounded so that the measurements derived from them stay finite.
    constexpr NumberRange kSize{0, true, kMaxBytes}, kTime_us{0, true, kMaxDuration_s * 1e6};
    auto number_at = [&](int index, auto& value, const NumberRange& range = kNonNegative) {
      if (!parse_number(tokens[index], value))
        fail(number, column_name(index), "'" + std::string(tokens[index]) + "' is not a number");
      if (auto why = range_violation(double(value), range)) fail(number, column_name(index), *why);
    };
    NcclTestsRow row;
    row.line = number;
    number_at(columns_["size"], row.bytes, kSize);
    number_at(columns_["count"], row.count);
    row.type = std::string(tokens[columns_["type"]]);
    if (const int redop = columns_["redop"]; redop >= 0) row.redop = std::string(tokens[redop]);
    if (const int root = columns_["root"]; root >= 0 && !parse_number(tokens[root], row.root))
      fail(number, "root", "'" + std::string(tokens[root]) + "' is not a number");
    for (int h = 0; h < 2; ++h) {
      NcclTestsTiming& timing = h == 0 ? row.out_of_place : row.in_place;
      const std::string half = std::to_string(h);
      number_at(columns_["time" + half], timing.time_us, kTime_us);
      number_at(columns_["algbw" + half], timing.algbw_GBps);
      number_at(columns_["busbw" + half], timing.busbw_GBps);
      if (const int w = columns_["#wrong" + half]; tokens[w] != "N/A") {
        double wrong = 0;
        number_at(w, wrong);
        timing.wrong = wrong;
      }
    }
    run_->rows.push_back(std::move(row));
    last_row_line_ = number;
  }

  void finish_run() {
    NcclTestsRun run = std::move(*run_);
    run_.reset();
    state_ = State::None;
    run.op = op_for(!run.binary.empty() ? run.binary : hints_.op, origin_, run.first_line, "op");
    if (max_rank_ >= 0) {
      run.ranks = max_rank_ + 1;
      run.nodes = static_cast<int>(hosts_.size());
    } else {
      run.ranks = hints_.ranks;
      run.nodes = hints_.nodes;
    }
    if (run.ranks <= 0 || run.nodes <= 0)
      fail(run.first_line, "ranks",
           "no '# Using devices' list: the number of ranks and nodes is unknown; give --ranks and --nodes "
           "(or --nodes and --gpus-per-node)");
    log_.runs.push_back(std::move(run));
  }

  std::string origin_;
  NcclTestsLogHints hints_;
  NcclTestsLog log_{origin_, {}};
  std::optional<NcclTestsRun> run_;
  State state_ = State::None;
  Columns columns_;
  std::set<std::string> hosts_;
  int max_rank_ = -1;
  int last_row_line_ = 0;
  std::string pending_binary_, pending_algorithm_;
};

}  // namespace

std::optional<std::string> nccl_tests_op_name(std::string_view binary_or_op) {
  std::string_view name = basename(binary_or_op);
  if (name.ends_with("_mpi")) name.remove_suffix(4);
  for (const auto& [binary, op] : kBinaries)
    if (name == binary || name == op) return std::string(op);
  return std::nullopt;
}

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& origin,
                                  const NcclTestsLogHints& hints) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return parse_nccl_tests_json(text, origin, hints);
  return TextParser(origin, hints).parse(text);
}

NcclTestsLog read_nccl_tests_log(const std::string& path, NcclTestsLogHints hints) {
  const std::string text = read_file(path);
  if (hints.op.empty()) {
    // The longest binary name inside the file name ("reduce_perf" is inside "all_reduce_perf").
    const std::string file = std::string(basename(path));
    std::size_t best = 0;
    for (const auto& [binary, op] : kBinaries)
      if (file.find(binary) != std::string::npos && binary.size() > best) {
        best = binary.size();
        hints.op = std::string(binary);
      }
  }
  return parse_nccl_tests_log(text, path, hints);
}

std::vector<CollectiveMeasurement> to_collective_measurements(const NcclTestsLog& log) {
  std::vector<CollectiveMeasurement> measurements;
  for (const NcclTestsRun& run : log.runs)
    for (const NcclTestsRow& row : run.rows) {
      if (row.bytes <= 0 || row.out_of_place.time_us <= 0) continue;
      // Bus bandwidth from size and time rather than the printed column, which rounds small messages to 0.
      const double time_s = row.out_of_place.time_us * 1e-6;
      const double bus_Bps = row.bytes / time_s * nccl_bus_bandwidth_factor(run.op, run.ranks);
      measurements.push_back(
          {run.op, static_cast<double>(row.bytes), run.ranks, run.nodes, run.algorithm, time_s, bus_Bps});
    }
  return measurements;
}

}  // namespace simtrain::calibration
