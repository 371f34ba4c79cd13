#!/usr/bin/env bash
# Validation against NVIDIA Megatron-Bridge's published pre-training throughputs (DGX H100, B200, B300, GB200,
# GB300), predicted from the spec profiles; no figure is fitted to this table. The target is 10% MAPE
# per system and it is not met. Measured 2026-12-03, all 96 expressible configurations counted, with MoE
# layers costed as Megatron-Core's dispatchers and TE's per-expert grouped GEMMs run them (the flex
# dispatcher, the recompute modules and the 16-bit last layers where the row's recipe sets them), gradients
# reduced in bf16 as the recipes do, and the H200 machine's host launching every kernel (README
# "Megatron-Bridge on Hopper and Blackwell"): H100 33.6%, B200 36.7%, B300 37.5%, GB200 34.3%, GB300 22.0%
# (Llama 16.2%, Qwen3 32.7%, GPT-OSS 61.0%, DeepSeek-V3 and Kimi K2 17.2%, Nemotron 3 Nano and Super 47.8%);
# GPT-OSS and Nemotron stay far too fast. The limits below sit just above those figures and guard against
# regressions; they are not the target. (H100's went from 32.5 to 34 when the flex dispatcher followed the
# recipes: DeepSeek-V3 on 1,024 H100s -26.4% to -11.2%, Qwen3-30B-A3B on 16 -11.7% to +55.9%.) Rows that run
# past --timeout are listed and not counted. Configurations whose model simtrain lacks (Nemotron 3 Ultra and
# 3.5, DeepSeek-V4) or whose pipeline shape no recipe lays out are listed and not counted.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-h100=34 dgx-b200=37 dgx-b300=38 dgx-gb200=34.5 dgx-gb300=22.5
