// Implements slurm_script.h.
#include "simulator/study/slurm_script.h"

namespace simtrain::study {

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string slurm_script(const std::string& scenario, const std::string& results, int shards, int jobs) {
  const std::string sweep = "simtrain sweep " + shell_quote(scenario) + " --results " + shell_quote(results);
  // What each job's /bin/sh runs. SLURM_ARRAY_TASK_ID is expanded there, in the job, not when submitting.
  const std::string shard_job =
      sweep + " --shard \"${SLURM_ARRAY_TASK_ID}\"/" + std::to_string(shards) + " -j " + std::to_string(jobs);
  const std::string collect_job = sweep + " --collect -o " + shell_quote(results + "/results.csv");
  return "#!/bin/bash\n"
         "# Submit with: bash THIS_FILE (it submits the array, then the collecting job after it).\n"
         "set -euo pipefail\n"
         "array=$(sbatch --parsable --job-name=simtrain-sweep --array=1-" +
         std::to_string(shards) + " --cpus-per-task=" + std::to_string(jobs) +
         " --wrap=" + shell_quote(shard_job) +
         ")\n"
         "sbatch --dependency=afterany:\"${array}\" --job-name=simtrain-collect --wrap=" +
         shell_quote(collect_job) + "\n";
}

}  // namespace simtrain::study
