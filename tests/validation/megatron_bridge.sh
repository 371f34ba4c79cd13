#!/usr/bin/env bash
# Validation against NVIDIA Megatron-Bridge's published pre-training throughputs (DGX H100, B200, B300, GB200,
# GB300), predicted from the spec profiles; no figure is fitted to this table. The target is 10% MAPE
# per system and it is not met: over the 52 configurations expressible today (Llama, Qwen3 MoE, GPT-OSS)
# the MAPEs are H100 46.9%, B200 76.8%, B300 64.2%, GB200 48.4%, GB300 27.5% (Llama alone 23.2%); the MoE
# rows are predicted far too fast (grouped-GEMM, router and permutation costs of fine-grained experts). The
# limits below guard today's figures against regressions; they are not the target. Configurations whose
# model or option simtrain lacks (Nemotron 3, DeepSeek-V3 and Qwen3-235B splits, which need the uneven
# pipeline options per recipe) are listed and not counted, so the MAPEs move as they become expressible.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-h100=50 dgx-b200=80 dgx-b300=70 dgx-gb200=52 dgx-gb300=30
