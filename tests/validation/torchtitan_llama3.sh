#!/usr/bin/env bash
# Validation against torchtitan's Llama 3.1 benchmarks on H100 (end of 2024) and H200 (June 2025), which no
# simtrain figure was fitted to: the gain torch.compile brings is the check of the eager pointwise kernels;
# the throughputs, the Float8 and async-TP gains and the peak memory are guarded at today's figures (GAINS,
# --max-mape, --max-memory-mape).
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_torchtitan.py" --simtrain "$simtrain" \
  --reference "$root/validation/reference/training/torchtitan_llama3_h100_202412.csv" \
  "$root/validation/reference/training/torchtitan_llama3_h200_202506.csv"
