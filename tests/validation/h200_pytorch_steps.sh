#!/usr/bin/env bash
# Validation against real PyTorch training steps timed on an H200, predicted from the profile
# simtrain-calibrate measured on the same card (calibration/profiles/README.md). Issue 3's target is 10%;
# ResNet-50 meets it, the Llama decoder stack does not yet (-11% with issue 14's Hugging Face kernels, see the
# README), so this test guards the current figures against regressions at 15% per row until it does.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_h200.py" --simtrain "$simtrain" --max-row-error 15
