#!/usr/bin/env bash
# Validation against Megatron-LM on Selene (SC21 throughputs, Korthikanti et al. iteration times), predicted
# from the A100 spec profile. Issue 4's target is a MAPE of 10% with no row beyond 20%; today's figures are
# 10.9% and 17.3% (README), so this test guards them against regressions at 15% / 25% until the target is met.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron.py" --simtrain "$simtrain" \
  --reference "$root/validation/reference/training/megatron_a100_selene.csv" --max-mape 15 --max-row-error 25
