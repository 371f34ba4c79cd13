#!/usr/bin/env bash
# Validation against NVIDIA Megatron-Bridge's published pre-training throughputs (DGX H100, B200, B300, GB200,
# GB300), predicted from the spec profiles; no figure is fitted to this table. The target is 10% MAPE
# per system and it is not met. Measured 2026-12-02, all 96 expressible configurations counted, with MoE
# layers costed as Megatron-Core's dispatchers and TE's per-expert grouped GEMMs run them (the flex
# dispatcher where the row's recipe sets it), gradients reduced in bf16 as the recipes do, and the H200
# machine's host launching every kernel (README "Megatron-Bridge on Hopper and Blackwell"): H100 31.5%,
# B200 37.8%, B300 38.3%, GB200 35.6%, GB300 23.0% (Llama 16.2%, Qwen3 30.9%, GPT-OSS 61.9%, DeepSeek-V3 and
# Kimi K2 18.4%, Nemotron 3 Nano and Super 53.4%); GPT-OSS and Nemotron stay far too fast. The limits below
# sit just above those figures and guard against regressions; they are not the target. Rows that run past
# --timeout are listed and not counted. Configurations whose model simtrain lacks (Nemotron 3 Ultra and 3.5,
# DeepSeek-V4) or whose pipeline shape no recipe lays out are listed and not counted.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-h100=32.5 dgx-b200=38.5 dgx-b300=39 dgx-gb200=36 dgx-gb300=23.5
