#!/usr/bin/env bash
# Validation against NVIDIA Megatron-Bridge's published pre-training throughputs (DGX H100, B200, B300, GB200,
# GB300), predicted from the spec profiles. Two host figures are fitted to it, leaving one model family out
# (tools/fit_host_overhead.py): Megatron-Core's host overhead (4 operator dispatches' worth per simtrain step)
# and Grace's host cost (the x86 hosts', from the same-release pairs). The issue's target is 10% MAPE per
# system and it is not met. Measured 2026-12-05 (fourteenth session: Hopper's FP8 gradient GEMMs with the
# split accumulator), all 96 expressible configurations: H100 24.8%, B200 23.3%, B300 25.3%, GB200 24.6%,
# GB300 19.1%, all 23.0% (Llama 12.6%, Qwen3 23.1%, GPT-OSS 39.4%, DeepSeek-V3 and Kimi K2 15.4%, Nemotron
# 35.8%). Thirteenth session, before it: H100 27.3%, all 23.5%.
# README "Megatron-Bridge on Hopper and Blackwell" describes every modelling step. The guards sit just above
# the figures reached and catch regressions; they are not a target.
# Rows beyond --timeout are listed and not counted. Configurations whose model simtrain lacks (Nemotron 3
# Ultra and 3.5, DeepSeek-V4) or whose pipeline shape no recipe lays out are listed and not counted.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-h100=25 dgx-b200=24.5 dgx-b300=27 dgx-gb200=24 dgx-gb300=18.5
