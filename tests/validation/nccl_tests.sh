#!/usr/bin/env bash
# Validation against published nccl-tests all-reduce tables (shared/reference/nccl/). The 8x A100 table meets
# issue 5's targets (busbw MAPE <= 10% from 1 MiB, time within 25% under 64 KiB) and is held to them; the
# H100/H200 NVLS, 2-node EFA and DeepBench P100 PCIe tables do not yet (README, "Collectives") and are
# printed, not enforced.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_nccl.py" --simtrain "$simtrain" --reference "$root/../shared/reference/nccl" \
  --only nda100v4 --max-mape 10 --max-small-error 25
python3 "$root/tools/validate_nccl.py" --simtrain "$simtrain" --reference "$root/../shared/reference/nccl" \
  --max-mape 1000 --max-small-error 1000
