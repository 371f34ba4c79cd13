// Implements kineto_events.h: one pass over traceEvents, keeping the categories the importer uses.
#include "simulator/trace/kineto_events.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "common/input_limits.h"

namespace simtrain::trace {
namespace {

using nlohmann::json;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// Reads the fields of one event, naming it in every error.
class EventReader {
 public:
  EventReader(const json& event, std::size_t index, const std::string& origin)
      : event_(event), index_(index), origin_(origin) {}

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    std::string what = "traceEvents[" + std::to_string(index_) + "]";
    const auto name = event_.find("name");
    if (name != event_.end() && name->is_string()) {
      std::string text = name->get<std::string>();
      if (text.size() > 60) text = text.substr(0, 57) + "...";
      what += " ('" + text + "')";
    }
    throw Error(origin_, 0, what + (field.empty() ? "" : "." + field), message);
  }

  const json* find(const json& object, const char* key) const {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  std::string string(const char* key) const {
    const json* value = find(event_, key);
    if (!value || !value->is_string()) fail(key, "missing or not a string");
    return value->get<std::string>();
  }

  // A time in µs: finite and within kMaxDuration_s of zero (Kineto's timestamps are µs since an epoch
  // near the process start, or since 1970 in older versions: both fit).
  double time(const char* key, double low) const {
    const json* value = find(event_, key);
    if (!value || !value->is_number()) fail(key, "missing or not a number");
    const double t = value->get<double>();
    if (!std::isfinite(t) || t < low || t > 1e18) fail(key, "out of range");
    return t;
  }

  double duration() const {
    const double d = time("dur", 0);
    if (d > kMaxDuration_s * 1e6) fail("dur", "longer than " + std::to_string(kMaxDuration_s) + " s");
    return d;
  }

  std::int64_t integer(const json& object, const char* key, const std::string& path, bool required) const {
    const json* value = find(object, key);
    if (!value) {
      if (required) fail(path, "missing");
      return -1;
    }
    if (value->is_number_integer()) return value->get<std::int64_t>();
    // Kineto writes some ids as strings ("Spans"), and thread ids may be strings in older exports.
    if (value->is_string()) {
      const std::string& text = value->get_ref<const std::string&>();
      std::int64_t n = 0;
      if (!text.empty() && text.size() < 19 &&
          std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
        for (char c : text) n = n * 10 + (c - '0');
        return n;
      }
    }
    fail(path, "not an integer");
  }

  const json& args() const {
    static const json empty = json::object();
    const json* a = find(event_, "args");
    if (!a) return empty;
    if (!a->is_object()) fail("args", "not an object");
    return *a;
  }

  std::int64_t arg(const char* key, bool required) const {
    return integer(args(), key, std::string("args.") + key, required);
  }

  double number_arg(const char* key) const {
    const json* value = find(args(), key);
    if (!value) return 0;
    if (!value->is_number() || !std::isfinite(value->get<double>()) || value->get<double>() < 0 ||
        value->get<double>() > kMaxBytes)
      fail(std::string("args.") + key, "not a size");
    return value->get<double>();
  }

  std::string string_arg(const char* key) const {
    const json* value = find(args(), key);
    if (!value) return {};
    if (value->is_string()) return value->get<std::string>();
    if (value->is_number_integer()) return std::to_string(value->get<std::int64_t>());
    fail(std::string("args.") + key, "not a string");
  }

  std::int64_t thread() const { return integer(event_, "tid", "tid", true); }

  const json& event() const { return event_; }

 private:
  const json& event_;
  std::size_t index_;
  const std::string& origin_;
};

// "[0, 1, 2]" or [0, 1, 2]: the ranks of a process group.
std::vector<int> parse_ranks(const json* value, const EventReader& in) {
  std::vector<int> ranks;
  if (!value) return ranks;
  json list = *value;
  if (value->is_string()) {
    try {
      list = json::parse(value->get<std::string>());
    } catch (const json::exception&) {
      in.fail("args.Process Group Ranks", "not a list of ranks");
    }
  }
  if (!list.is_array()) in.fail("args.Process Group Ranks", "not a list of ranks");
  if (static_cast<std::int64_t>(list.size()) > kMaxRanks) in.fail("args.Process Group Ranks", "too many ranks");
  for (const json& r : list) {
    if (!r.is_number_integer() || r.get<std::int64_t>() < 0 || r.get<std::int64_t>() >= kMaxRanks)
      in.fail("args.Process Group Ranks", "not a list of ranks");
    ranks.push_back(static_cast<int>(r.get<std::int64_t>()));
  }
  return ranks;
}

KinetoCpuOp read_cpu_op(const EventReader& in, std::size_t index) {
  KinetoCpuOp op;
  op.event = index;
  op.name = in.string("name");
  op.start_us = in.time("ts", -1e18);
  op.duration_us = in.duration();
  op.thread = in.thread();
  const json& args = in.args();
  if (const auto dims = args.find("Input Dims"); dims != args.end()) {
    if (!dims->is_array()) in.fail("args.Input Dims", "not a list");
    for (const json& d : *dims) {
      std::vector<std::int64_t> shape;
      // A tensor list argument nests one level deeper: keep its first tensor's shape.
      const json* tensor = &d;
      if (d.is_array() && !d.empty() && d[0].is_array()) tensor = &d[0];
      if (tensor->is_array()) {
        for (const json& n : *tensor) {
          if (!n.is_number_integer() || n.get<std::int64_t>() < 0 || n.get<std::int64_t>() > (1LL << 40))
            in.fail("args.Input Dims", "not a list of dimensions");
          shape.push_back(n.get<std::int64_t>());
        }
      }
      op.input_dims.push_back(std::move(shape));
    }
  }
  const auto strings = [&](const char* key, std::vector<std::string>& out) {
    const auto it = args.find(key);
    if (it == args.end()) return;
    if (!it->is_array()) in.fail(std::string("args.") + key, "not a list");
    for (const json& t : *it) out.push_back(t.is_string() ? t.get<std::string>() : std::string());
  };
  strings("Input type", op.input_types);
  strings("Concrete Inputs", op.concrete_inputs);
  op.collective = in.string_arg("Collective name");
  if (!op.collective.empty()) {
    const auto elements = [&](const char* key) {
      const std::int64_t n = in.arg(key, false);
      if (n < -1 || n > static_cast<std::int64_t>(kMaxBytes)) in.fail(std::string("args.") + key, "out of range");
      return std::max<std::int64_t>(n, 0);
    };
    op.in_elements = elements("In msg nelems");
    op.out_elements = elements("Out msg nelems");
    op.comm_dtype = in.string_arg("dtype");
    op.process_group_ranks = parse_ranks(in.find(args, "Process Group Ranks"), in);
    op.process_group_name = in.string_arg("Process Group Name");
  }
  return op;
}

bool is_step_annotation(const std::string& name, int& number) {
  static const std::string prefix = "ProfilerStep#";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size() || name.size() > prefix.size() + 9)
    return false;
  number = 0;
  for (std::size_t i = prefix.size(); i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
    number = number * 10 + (name[i] - '0');
  }
  return true;
}

// Categories a torch.profiler export has that the replay does not need: flow arrows, metadata, the
// profiler's own spans, Python stacks, GPU-side copies of annotations.
bool is_ignored_category(const std::string& category) {
  static const char* const kIgnored[] = {"ac2g",        "fwdbwd",           "trace",
                                         "python_function", "gpu_user_annotation", "cpu_instant_event",
                                         "overhead",    "forward_backward"};
  return std::any_of(std::begin(kIgnored), std::end(kIgnored),
                     [&](const char* known) { return category == known; });
}

void read_header(const json& doc, KinetoTrace& trace) {
  if (const auto info = doc.find("distributedInfo"); info != doc.end() && info->is_object()) {
    const auto rank = info->find("rank");
    const auto world = info->find("world_size");
    if (rank != info->end() && rank->is_number_integer()) {
      if (rank->get<std::int64_t>() < 0 || rank->get<std::int64_t>() >= kMaxRanks)
        throw Error(trace.origin, 0, "distributedInfo.rank", "out of range");
      trace.rank = static_cast<int>(rank->get<std::int64_t>());
    }
    if (world != info->end() && world->is_number_integer()) {
      if (world->get<std::int64_t>() < 1 || world->get<std::int64_t>() > kMaxRanks)
        throw Error(trace.origin, 0, "distributedInfo.world_size", "out of range");
      trace.world_size = static_cast<int>(world->get<std::int64_t>());
    }
  }
  if (const auto devices = doc.find("deviceProperties");
      devices != doc.end() && devices->is_array() && !devices->empty() && (*devices)[0].is_object()) {
    const auto name = (*devices)[0].find("name");
    if (name != (*devices)[0].end() && name->is_string()) trace.gpu_name = name->get<std::string>();
  }
}

}  // namespace

bool looks_like_kineto(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array();
}

KinetoTrace parse_kineto(const nlohmann::json& doc, const std::string& origin) {
  KinetoTrace trace;
  trace.origin = origin;
  if (!looks_like_kineto(doc)) throw Error(origin, 0, "traceEvents", "missing: not a Chrome trace");
  read_header(doc, trace);
  const json& events = doc["traceEvents"];
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& event = events[i];
    EventReader in(event, i, origin);
    if (!event.is_object()) in.fail("", "not an object");
    const json* phase = in.find(event, "ph");
    const json* category = in.find(event, "cat");
    const std::string ph = phase && phase->is_string() ? phase->get<std::string>() : "";
    const std::string cat = category && category->is_string() ? lower(category->get<std::string>()) : "";
    if (ph != "X") {
      // Flow arrows (s, f), metadata (M), instants (i) and counters carry no work.
      if (ph == "s" || ph == "f" || ph == "M" || ph == "i" || ph == "I" || ph == "C") continue;
      ++trace.unknown_kinds["ph " + ph];
      continue;
    }
    if (cat == "cpu_op" || cat == "operator") {
      trace.cpu_ops.push_back(read_cpu_op(in, i));
    } else if (cat == "user_annotation") {
      int number = 0;
      const std::string name = in.string("name");
      if (is_step_annotation(name, number)) {
        KinetoStep step{number, in.time("ts", -1e18), 0};
        step.end_us = step.start_us + in.duration();
        trace.steps.push_back(step);
      } else {
        // A record_function range: host work like any operator.
        trace.cpu_ops.push_back(read_cpu_op(in, i));
      }
    } else if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "runtime") {
      KinetoRuntimeCall call;
      call.event = i;
      call.name = in.string("name");
      call.start_us = in.time("ts", -1e18);
      call.duration_us = in.duration();
      call.thread = in.thread();
      call.correlation = in.arg("correlation", true);
      trace.runtime_calls.push_back(std::move(call));
    } else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "memcpy" ||
               cat == "memset") {
      KinetoGpuActivity activity;
      activity.event = i;
      activity.kind = cat == "kernel"                          ? GpuActivityKind::Kernel
                      : cat.find("memcpy") != std::string::npos ? GpuActivityKind::Memcpy
                                                                : GpuActivityKind::Memset;
      activity.name = in.string("name");
      activity.start_us = in.time("ts", -1e18);
      activity.duration_us = in.duration();
      activity.stream = in.arg("stream", true);
      activity.correlation = in.arg("correlation", true);
      activity.bytes = in.number_arg("bytes");
      trace.gpu_activities.push_back(std::move(activity));
    } else if (cat == "cuda_sync") {
      KinetoSync sync;
      sync.event = i;
      sync.name = in.string("name");
      sync.start_us = in.time("ts", -1e18);
      sync.stream = in.arg("stream", false);
      sync.wait_on_stream = in.arg("wait_on_stream", false);
      sync.correlation = in.arg("correlation", false);
      trace.syncs.push_back(std::move(sync));
    } else if (!is_ignored_category(cat)) {
      ++trace.unknown_kinds[cat.empty() ? "(no category)" : cat];
    }
  }
  const auto by_start = [](const auto& a, const auto& b) {
    return a.start_us < b.start_us || (a.start_us == b.start_us && a.event < b.event);
  };
  std::sort(trace.steps.begin(), trace.steps.end(),
            [](const KinetoStep& a, const KinetoStep& b) { return a.start_us < b.start_us; });
  // Operators that start together nest: the longer one encloses the shorter.
  std::sort(trace.cpu_ops.begin(), trace.cpu_ops.end(), [](const KinetoCpuOp& a, const KinetoCpuOp& b) {
    if (a.start_us != b.start_us) return a.start_us < b.start_us;
    if (a.duration_us != b.duration_us) return a.duration_us > b.duration_us;
    return a.event < b.event;
  });
  std::sort(trace.runtime_calls.begin(), trace.runtime_calls.end(), by_start);
  std::sort(trace.gpu_activities.begin(), trace.gpu_activities.end(), by_start);
  std::sort(trace.syncs.begin(), trace.syncs.end(), by_start);
  return trace;
}

}  // namespace simtrain::trace
