#!/usr/bin/env bash
# Validation against NVIDIA's published ResNet-50 and BERT-Large training throughputs (DeepLearningExamples),
# predicted from spec profiles. Fails when the mean absolute percentage error exceeds 25%, this target.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_dle.py" --simtrain "$simtrain" \
  --reference "$root/validation/reference/training/nvidia_dle_resnet50_bert_throughput.csv" --max-mape 25
