// The Slurm job-array script of `simtrain sweep --slurm`, and the shell quoting it needs: the script pastes
// file names that others chose (a scenario path, a results directory) into commands that a shell reads twice.
#pragma once

#include <string>

namespace simtrain::study {

// `text` as one word of a POSIX shell command, whatever it contains: in single quotes, each ' written '\''.
// Nothing inside single quotes is special to the shell ($, `, \, newlines included).
std::string shell_quote(const std::string& text);

// A bash script that submits a job array whose task i runs shard i of `shards` with `jobs` runs at a time,
// then a job that waits for them all and collects the table into RESULTS/results.csv. Each job's command is
// given to sbatch --wrap, which runs it with /bin/sh: the command is quoted for that shell, and the whole of
// it quoted again for the bash that reads this script.
std::string slurm_script(const std::string& scenario, const std::string& results, int shards, int jobs);

}  // namespace simtrain::study
