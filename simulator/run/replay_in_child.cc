// Implements replay_in_child.h: the child writes its ReplayResult as JSON (or its error) to a pipe.
#include "simulator/run/replay_in_child.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace simtrain::run {
namespace {

using nlohmann::json;

json to_json(const engine::ReplayResult& r) {
  json ranks = json::array();
  for (const engine::RankTimes& t : r.ranks)
    ranks.push_back({{"end_s", t.end_s},
                     {"compute_s", t.compute_s},
                     {"exposed_comm_s", t.exposed_comm_s},
                     {"idle_s", t.idle_s},
                     {"pipeline_bubble_s", t.pipeline_bubble_s},
                     {"host_bound_s", t.host_bound_s},
                     {"offload_bound_s", t.offload_bound_s},
                     {"exposed_by_group_s", t.exposed_by_group_s}});
  return {{"makespan_s", r.makespan_s},
          {"ranks", ranks},
          {"flows", r.flows},
          {"compute_waits", r.compute_waits},
          {"nodes", r.nodes},
          {"gpus_per_node", r.gpus_per_node},
          {"lockstep_size", r.lockstep_size},
          {"replicas_folded", r.replicas_folded},
          {"replicas_simulated", r.replicas_simulated},
          {"replicas", r.replicas},
          {"replicas_sampled_exactly", r.replicas_sampled_exactly},
          {"collective_algorithms", r.collective_algorithms}};
}

engine::ReplayResult from_json(const json& j) {
  engine::ReplayResult r;
  r.makespan_s = j.at("makespan_s").get<double>();
  for (const json& t : j.at("ranks")) {
    engine::RankTimes times;
    times.end_s = t.at("end_s").get<double>();
    times.compute_s = t.at("compute_s").get<double>();
    times.exposed_comm_s = t.at("exposed_comm_s").get<double>();
    times.idle_s = t.at("idle_s").get<double>();
    times.pipeline_bubble_s = t.at("pipeline_bubble_s").get<double>();
    times.host_bound_s = t.at("host_bound_s").get<double>();
    times.offload_bound_s = t.at("offload_bound_s").get<double>();
    times.exposed_by_group_s = t.at("exposed_by_group_s").get<std::map<std::string, double>>();
    r.ranks.push_back(std::move(times));
  }
  r.flows = j.at("flows").get<std::uint64_t>();
  r.compute_waits = j.at("compute_waits").get<std::uint64_t>();
  r.nodes = j.at("nodes").get<int>();
  r.gpus_per_node = j.at("gpus_per_node").get<int>();
  r.lockstep_size = j.at("lockstep_size").get<int>();
  r.replicas_folded = j.at("replicas_folded").get<bool>();
  r.replicas_simulated = j.at("replicas_simulated").get<int>();
  r.replicas = j.at("replicas").get<int>();
  r.replicas_sampled_exactly = j.at("replicas_sampled_exactly").get<bool>();
  r.collective_algorithms = j.at("collective_algorithms").get<std::map<std::string, std::uint64_t>>();
  return r;
}

void write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace

ReplayInChild::ReplayInChild(const std::function<engine::ReplayResult()>& replay) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error("cannot start a second replay: pipe failed");
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // or output buffered so far would be written twice
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error("cannot start a second replay: fork failed");
  }
  if (pid_ == 0) {
    ::close(fds[0]);
    json message;
    try {
      message = {{"result", to_json(replay())}};
    } catch (const Error& error) {
      message = {{"error", error.what()}, {"infeasible", error.kind() == ErrorKind::Infeasible}};
    } catch (const std::exception& error) {
      message = {{"error", error.what()}, {"infeasible", false}};
    }
    write_all(fds[1], message.dump());
    ::_exit(0);  // not exit(): SimGrid's and the parent's exit handlers are the parent's business
  }
  ::close(fds[1]);
  from_child_ = fds[0];
}

ReplayInChild::~ReplayInChild() {
  if (from_child_ >= 0) ::close(from_child_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

engine::ReplayResult ReplayInChild::result() {
  std::string text;
  char buffer[65536];
  for (ssize_t n = 0; (n = ::read(from_child_, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  ::close(from_child_);
  from_child_ = -1;
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  const json message = json::parse(text, nullptr, false);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || message.is_discarded())
    throw Error("a replay in a child process died (wait status " + std::to_string(status) + ")");
  if (message.contains("error"))
    throw Error(message.at("error").get<std::string>(),
                message.at("infeasible").get<bool>() ? ErrorKind::Infeasible : ErrorKind::BadInput);
  return from_json(message.at("result"));
}

}  // namespace simtrain::run
