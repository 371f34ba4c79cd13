#!/usr/bin/env bash
# Validation of generated eager steps against the seven stock PyTorch steps timed on an H200
# (traces/pytorch/: run B = h200_steps.json, run A = the README's table), each run predicted with its own
# host profile (calibration/hosts/, tools/calibrate_host.py). Issue 14's targets: step-time MAPE <= 10% and no
# row beyond 20%, peak allocated memory within 10% per row. Memory and run B (whose host the Kineto traces
# recorded) meet them and are checked at the targets; run A misses them (MAPE 13.8%, ViT-B/16 -32%: README.md,
# "The model zoo against stock PyTorch steps on an H200"), so it is guarded at today's figures: 15% / 35%.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_h200_steps.py" --simtrain "$simtrain" --max-memory-row 10 \
  --max-time-mape 10 --max-time-row 20 --max-time-mape-a 15 --max-time-row-a 35
