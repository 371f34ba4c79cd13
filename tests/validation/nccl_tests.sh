#!/usr/bin/env bash
# Validation against every published nccl-tests all-reduce table (validation/reference/nccl/), held to issue 5's
# targets: per table, busbw MAPE <= 10% from 1 MiB and time within 25% under 64 KiB.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_nccl.py" --simtrain "$simtrain" --reference "$root/validation/reference/nccl" \
  --max-mape 10 --max-small-error 25 --verbose
