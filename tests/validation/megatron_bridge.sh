#!/usr/bin/env bash
# Validation against NVIDIA Megatron-Bridge's published pre-training throughputs (DGX H100, B200, B300, GB200,
# GB300), predicted from the spec profiles; no figure is fitted to this table. The target is 10% MAPE
# per system and it is not met. Measured 2026-12-03, all 96 expressible configurations counted, with MoE
# layers costed as Megatron-Core's dispatchers and TE's per-expert grouped GEMMs run them (the flex
# dispatcher, the recompute modules and the 16-bit last layers where the row's recipe sets them, the
# combined 1F1B where the row's release sets it), userbuffers and overlapped gradient reduction except where
# the recipe turns them off, gradients reduced in bf16 as the recipes do, the H200 machine's host
# launching every kernel, and collectives holding their NCCL channels' SMs (README "Megatron-Bridge on
# Hopper and Blackwell"): H100 34.6%, B200 36.2%, B300 35.6%, GB200 31.3%, GB300 19.2% (Llama 11.6%, Qwen3
# 31.7%, GPT-OSS 64.1%, DeepSeek-V3 and Kimi K2 14.0%, Nemotron 3 Nano and Super 47.5%); GPT-OSS and
# Nemotron stay far too fast. The limits below sit just above
# those figures and guard against regressions; they are not the target. (H100's went from 34 to 36.5 when
# the combined 1F1B followed the releases: DeepSeek-V3 and Qwen3-235B-A22B, which run it, went from 11-17% too
# slow to 14-20% too fast, Qwen3-30B-A3B's outlier from +157.5% to +181.8%.) Rows that run past --timeout are listed and not counted. Configurations whose model simtrain lacks
# (Nemotron 3 Ultra and 3.5, DeepSeek-V4) or whose pipeline shape no recipe lays out are listed and not
# counted.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-h100=35 dgx-b200=37.5 dgx-b300=35.5 dgx-gb200=27 dgx-gb300=18
