#!/usr/bin/env bash
# Validation against NVIDIA Megatron-Bridge's published pre-training throughputs (DGX H100, B200, B300, GB200,
# GB300), predicted from the spec profiles; no figure is fitted to this table. The target is 10% MAPE
# per system and it is not met. Measured 2026-12-01, all 88 expressible configurations counted, with MoE
# layers costed as Megatron-Core's all-to-all dispatcher and TE's per-expert grouped GEMMs run them, and the
# H200 machine's host launching every kernel (dropless MoE layers waiting for their token counts; README
# "Megatron-Bridge on Hopper and Blackwell"): H100 31.1%, B200 45.2%, B300 49.1%, GB200 40.5%, GB300 21.9%
# (Llama 24.4%, Qwen3 34.4%, GPT-OSS 63.5%, DeepSeek-V3 and Kimi K2 27.5%, Nemotron 3 Nano 50.6%); GPT-OSS
# and Nemotron 3 Nano stay far too fast. The limits below sit just above those figures and guard against
# regressions; they are not the target. Rows that run past --timeout are listed and not counted.
# Configurations whose model simtrain lacks (Nemotron 3 Super/Ultra/3.5, DeepSeek-V4) or whose pipeline shape
# no recipe lays out are listed and not counted.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-h100=32 dgx-b200=32 dgx-b300=35 dgx-gb200=36 dgx-gb300=23
