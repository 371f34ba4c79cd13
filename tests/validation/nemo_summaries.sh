#!/usr/bin/env bash
# Validation against NeMo's published performance tables that no simtrain figure was fitted to: NeMo 24.07
# pre-training on DGX H100 and the long-sequence context-parallel runs (Llama 2 7B on H100, Llama 3 8B on B200,
# 4K to 1M tokens). Each table is held to the MAPE it reached when added (GUARDS in the script); issue 16's
# target is 10% per table.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_nemo_summaries.py" --simtrain "$simtrain" -j 2 --compare-attention
