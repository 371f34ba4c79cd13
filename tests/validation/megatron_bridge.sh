#!/usr/bin/env bash
# Validation against NVIDIA Megatron-Bridge's published pre-training throughputs (DGX H100, B200, B300, GB200,
# GB300), predicted from the spec profiles; no figure is fitted to this table. The target is 10% MAPE
# per system and it is not met. Measured 2026-12-01, all 74 expressible configurations counted, with MoE
# layers costed as Megatron-Core's all-to-all dispatcher and TE's per-expert grouped GEMMs run them (README
# "Megatron-Bridge on Hopper and Blackwell"): H100 37.3%, B200 57.3%, B300 53.3%, GB200 38.9%, GB300 22.3%
# (Llama 24.4%, Qwen3 45.5%, GPT-OSS 64.2%, DeepSeek-V3 and Kimi K2 33.4%); MoE rows at small micro-batches
# and GPT-OSS stay far too fast. The limits below sit just above those figures and guard against
# regressions; they are not the target. Rows that run past --timeout are listed and not counted (each now
# takes at most 7.3 s of CPU, README "Speed"). Configurations whose model or option simtrain lacks (Nemotron
# 3, DeepSeek-V4, MoE parallel folding, a pipeline shape the recipe's layout map lacks) are listed and not
# counted.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-h100=40 dgx-b200=60 dgx-b300=56 dgx-gb200=43 dgx-gb300=25
