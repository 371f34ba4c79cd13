// Pipeline schedules (GPipe, 1F1B, interleaved 1F1B) following Megatron-LM's
// megatron/core/pipeline_parallel/schedules.py, and their idealized simulation.
#include "simulator/workload/pipeline_schedule.h"

#include <algorithm>

#include "common/error.h"

namespace simtrain::workload {
namespace {

void check_sizes(int stages, int micro_batches, int chunks) {
  if (stages < 1) throw Error("pipeline schedule: --pp must be at least 1, got " + std::to_string(stages));
  if (micro_batches < 1)
    throw Error("pipeline schedule: the number of micro-batches must be at least 1, got " +
                std::to_string(micro_batches));
  if (chunks < 1) throw Error("pipeline schedule: --vpp must be at least 1, got " + std::to_string(chunks));
}

}  // namespace

PipelineOrder gpipe_order(int stages, int micro_batches) {
  check_sizes(stages, micro_batches, 1);
  PipelineOrder order(static_cast<std::size_t>(stages));
  for (auto& steps : order) {
    for (int mb = 0; mb < micro_batches; ++mb) steps.push_back({true, mb, 0});
    for (int mb = micro_batches; mb-- > 0;) steps.push_back({false, mb, 0});
  }
  return order;
}

PipelineOrder one_f_one_b_order(int stages, int micro_batches, int extra_warmup) {
  check_sizes(stages, micro_batches, 1);
  PipelineOrder order(static_cast<std::size_t>(stages));
  for (int stage = 0; stage < stages; ++stage) {
    auto& steps = order[static_cast<std::size_t>(stage)];
    const int warmup = std::min(stages - stage - 1 + extra_warmup, micro_batches);
    int next_forward = 0, next_backward = 0;
    while (next_forward < warmup) steps.push_back({true, next_forward++, 0});
    while (next_forward < micro_batches) {
      steps.push_back({true, next_forward++, 0, true});
      steps.push_back({false, next_backward++, 0, true});
    }
    while (next_backward < micro_batches) steps.push_back({false, next_backward++, 0});
  }
  return order;
}

PipelineOrder interleaved_order(int stages, int micro_batches, int chunks, int extra_warmup) {
  check_sizes(stages, micro_batches, chunks);
  if (micro_batches % stages != 0)
    throw Error("interleaved schedule: the number of micro-batches (" + std::to_string(micro_batches) +
                    ") must be a multiple of --pp (" + std::to_string(stages) + ")",
                ErrorKind::Infeasible);
  const int total = micro_batches * chunks;
  const int group = stages * chunks;
  // Megatron's get_model_chunk_id and micro-batch id of the k-th virtual micro-batch.
  const auto step = [&](int k, bool forward) {
    const int in_group = k % group;
    const int chunk = in_group / stages;
    return PipelineStep{forward, (k / group) * stages + in_group % stages,
                        forward ? chunk : chunks - 1 - chunk};
  };
  PipelineOrder order(static_cast<std::size_t>(stages));
  for (int stage = 0; stage < stages; ++stage) {
    auto& steps = order[static_cast<std::size_t>(stage)];
    // With as many micro-batches as stages Megatron runs all forwards first.
    const int warmup = micro_batches == stages
                           ? total
                           : std::min(total, (stages - stage - 1) * 2 + (chunks - 1) * stages + extra_warmup);
    for (int k = 0; k < warmup; ++k) steps.push_back(step(k, true));
    for (int k = 0; k < total - warmup; ++k) {
      PipelineStep forward = step(warmup + k, true), backward = step(k, false);
      forward.steady = backward.steady = true;
      steps.push_back(forward);
      steps.push_back(backward);
    }
    for (int k = total - warmup; k < total; ++k) steps.push_back(step(k, false));
  }
  return order;
}

PipelineOrder pipeline_order(PipelineSchedule schedule, int stages, int micro_batches, int chunks,
                             bool overlap_expert_parallel) {
  const int extra_warmup = overlap_expert_parallel ? 1 : 0;
  if (chunks > 1) {
    if (schedule == PipelineSchedule::GPipe)
      throw Error("--vpp: virtual stages need the interleaved 1F1B schedule, not GPipe");
    return interleaved_order(stages, micro_batches, chunks, extra_warmup);
  }
  if (schedule == PipelineSchedule::GPipe) return gpipe_order(stages, micro_batches);
  return one_f_one_b_order(stages, micro_batches, extra_warmup);
}

IdealPipelineRun simulate_ideal_pipeline(const PipelineOrder& order, int chunks, double forward_s,
                                         double backward_s) {
  const int stages = static_cast<int>(order.size());
  if (stages == 0) return {};
  const int micro_batches = static_cast<int>(order[0].size()) / (2 * chunks);
  // End time of each (stage, pass, micro-batch, chunk); negative until it has run.
  const auto key = [&](int stage, bool forward, int mb, int chunk) {
    return ((static_cast<std::size_t>(stage) * 2 + (forward ? 0 : 1)) * micro_batches + mb) * chunks + chunk;
  };
  std::vector<double> end(static_cast<std::size_t>(stages) * 2 * micro_batches * chunks, -1);
  // The step whose output a step consumes, or a negative stage when it has none.
  const auto input_of = [&](const PipelineStep& s, int stage) -> std::size_t {
    if (s.forward) {
      if (stage > 0) return key(stage - 1, true, s.micro_batch, s.chunk);
      if (s.chunk > 0) return key(stages - 1, true, s.micro_batch, s.chunk - 1);
      return end.size();
    }
    if (stage < stages - 1) return key(stage + 1, false, s.micro_batch, s.chunk);
    if (s.chunk < chunks - 1) return key(0, false, s.micro_batch, s.chunk + 1);
    return key(stage, true, s.micro_batch, s.chunk);
  };
  std::vector<std::size_t> next(static_cast<std::size_t>(stages), 0);
  std::vector<double> free_at(static_cast<std::size_t>(stages), 0);
  std::size_t remaining = 0;
  for (const auto& steps : order) remaining += steps.size();
  while (remaining > 0) {
    bool progressed = false;
    for (int stage = 0; stage < stages; ++stage) {
      const auto& steps = order[static_cast<std::size_t>(stage)];
      auto& i = next[static_cast<std::size_t>(stage)];
      while (i < steps.size()) {
        const PipelineStep& s = steps[i];
        const std::size_t input = input_of(s, stage);
        const double ready = input == end.size() ? 0 : end[input];
        if (ready < 0) break;
        const double start = std::max(ready, free_at[static_cast<std::size_t>(stage)]);
        const double finish = start + (s.forward ? forward_s : backward_s);
        end[key(stage, s.forward, s.micro_batch, s.chunk)] = finish;
        free_at[static_cast<std::size_t>(stage)] = finish;
        ++i;
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) throw Error("pipeline schedule deadlocks: a step waits for one its stage runs later");
  }
  IdealPipelineRun run;
  run.makespan_s = *std::max_element(free_at.begin(), free_at.end());
  run.busy_s = static_cast<double>(micro_batches) * chunks * (forward_s + backward_s);
  run.bubble_fraction = (run.makespan_s - run.busy_s) / run.busy_s;
  return run;
}

std::string to_string(const std::vector<PipelineStep>& steps, bool show_chunks) {
  std::string text;
  for (const PipelineStep& s : steps) {
    if (!text.empty()) text += ' ';
    text += s.forward ? 'F' : 'B';
    text += std::to_string(s.micro_batch);
    if (show_chunks) text += "." + std::to_string(s.chunk);
  }
  return text;
}

}  // namespace simtrain::workload
