#!/usr/bin/env bash
# Validation against torchtitan's Llama 3.1 benchmarks on H100 (end of 2024), which no simtrain figure was
# fitted to: the gain torch.compile brings is the check of the eager pointwise kernels (within 3.5 points);
# the throughputs and the Float8 and async-TP gains are guarded at today's figures (the script's docstring
# says what is not modelled).
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_torchtitan.py" --simtrain "$simtrain" \
  --reference "$root/validation/reference/training/torchtitan_llama3_h100_202412.csv"
