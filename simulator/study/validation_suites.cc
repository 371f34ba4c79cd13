// Implements validation_suites.h: each suite a python3 process whose output comes back through a pipe.
#include "simulator/study/validation_suites.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "common/error.h"

extern char** environ;

namespace simtrain::study {

const std::vector<ValidationSuite>& validation_suites() {
  static const std::vector<ValidationSuite> suites = {
      {"nccl",
       "nccl-tests all-reduce tables (Azure, AWS, OCI, DeepBench) against simulated sweeps",
       "tools/validate_nccl.py",
       {"--reference", "validation/reference/nccl"}},
      {"dle",
       "NVIDIA DeepLearningExamples ResNet-50 and BERT throughputs (DGX A100, DGX-1)",
       "tools/validate_dle.py",
       {"--reference", "validation/reference/training/nvidia_dle_resnet50_bert_throughput.csv"}},
      {"megatron",
       "Megatron-LM on Selene: SC21 Table 1 and Korthikanti et al. iteration times",
       "tools/validate_megatron.py",
       {"--reference", "validation/reference/training/megatron_a100_selene.csv"}},
      {"megatron-bridge",
       "Megatron-Bridge pre-training throughputs on DGX H100, B200, B300, GB200 and GB300",
       "tools/validate_megatron_bridge.py",
       {"--reference", "validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv"}},
      {"system-pairs",
       "Megatron-Bridge configurations measured on two systems: predicted against measured throughput ratios",
       "tools/validate_system_pairs.py",
       {"--reference", "validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv"}},
      {"llm-foundry",
       "MosaicML llm-foundry's MPT throughputs on H100 and A100 (PyTorch FSDP, BF16 and FP8)",
       "tools/validate_llm_foundry.py",
       {"--reference", "validation/reference/training/llm_foundry_mpt_h100.csv", "--a100-reference",
        "validation/reference/training/llm_foundry_mpt_a100.csv"}},
      {"nemo",
       "NeMo's DGX H100 pre-training (24.07) and long-sequence context-parallel runs (H100, B200), held out",
       "tools/validate_nemo_summaries.py",
       {"--pretrain", "validation/reference/training/nemo_2407_h100_pretrain.csv", "--long-sequence",
        "validation/reference/training/nemo_long_sequence_cp.csv", "--compare-attention"}},
      {"torchtitan",
       "torchtitan's Llama 3.1 benchmarks on H100 and H200 (FSDP2, CP, TP): throughput, the gains of compile "
       "and Float8",
       "tools/validate_torchtitan.py",
       {"--reference", "validation/reference/training/torchtitan_llama3_h100_202412.csv",
        "validation/reference/training/torchtitan_llama3_h200_202506.csv"}},
      {"h200",
       "stock PyTorch steps timed on one H200, from the measured H200 profile",
       "tools/validate_h200.py",
       {}},
      {"h200-zoo",
       "the zoo's eager steps (issue 14's seven) against H200 step times and allocator peaks",
       "tools/validate_h200_steps.py",
       {"--max-time-mape", "10", "--max-time-row", "20", "--max-memory-row", "10"}},
      {"kernel-classes",
       "the zoo's kernel lists per class against the H200 traces' kernels",
       "tools/compare_kernel_classes.py",
       {"--max-total-error", "10"}},
      {"traces",
       "recorded PyTorch steps (Kineto) replayed against their unprofiled step times",
       "tools/validate_traces.py",
       {}},
      {"trace-scale-out",
       "recorded steps scaled out as DDP and FSDP; ResNet-50 rescaled to A100 against DLE",
       "tools/validate_traces.py",
       {"--scale-out"}},
  };
  return suites;
}

SuiteOutcome run_validation_suite(const ValidationSuite& suite, const std::string& source_dir,
                                  const std::string& simtrain) {
  const std::string script = (std::filesystem::path(source_dir) / suite.script).string();
  if (!std::filesystem::is_regular_file(script))
    throw Error(script, 0, "", "validation script not found (simtrain validate runs from its source tree)");
  std::vector<std::string> args = {"python3", script, "--simtrain", simtrain};
  for (const std::string& arg : suite.args) {
    // Paths in the suite table are relative to the source tree.
    const bool is_path = arg.find('/') != std::string::npos && !arg.starts_with("-");
    args.push_back(is_path ? (std::filesystem::path(source_dir) / arg).string() : arg);
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw Error("simtrain validate: cannot create a pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  const auto started = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "python3", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    throw Error("simtrain validate: cannot run python3 (tools/setup.sh installs it)");
  }
  SuiteOutcome outcome;
  outcome.name = suite.name;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) outcome.output.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  outcome.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return outcome;
}

}  // namespace simtrain::study
