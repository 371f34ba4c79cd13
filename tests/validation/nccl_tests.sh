#!/usr/bin/env bash
# Validation against every published nccl-tests table (validation/reference/nccl/, multinode/ included), all
# collectives simtrain simulates, with the figures fitted per hardware generation scored leave-one-table-out.
# Each table is held to its guard in tools/validate_nccl.py (the figures reached now: a regression fails);
# the targets, busbw MAPE <= 10% from 1 MiB and time within 25% under 64 KiB, are printed beside them.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_nccl.py" --simtrain "$simtrain" --reference "$root/validation/reference/nccl" \
  --platforms "$root/platforms" --max-mape 10 --max-small-error 25 --verbose
