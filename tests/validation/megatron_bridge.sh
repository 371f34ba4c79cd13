#!/usr/bin/env bash
# Validation against NVIDIA Megatron-Bridge's published pre-training throughputs (DGX H100, B200, B300, GB200,
# GB300), predicted from the spec profiles; no figure is fitted to this table. The target is 10% MAPE
# per system and it is not met. Measured 2026-12-04, all 96 expressible configurations counted, with MoE
# layers costed as Megatron-Core's dispatchers and TE's per-expert grouped GEMMs run them (the flex
# dispatcher, the recompute modules, the CUDA graphs and the 16-bit last layers where the row's recipe sets
# them, the combined 1F1B where the row's release sets it), userbuffers and overlapped gradient reduction
# except where the recipe turns them off, gradients reduced in bf16 as the recipes do, the H200 machine's
# host (Grace's on GB200/GB300), collectives holding their NCCL channels' SMs, attention slower at heads
# below 128, GPT-OSS's experts as Megatron runs them without TE's op fuser and its YaRN RoPE unfused, and
# Blackwell Ultra's doubled exponential units, NCCL's channels per NIC as its topology search derives them and
# H100's all-to-all at the share of the NICs nccl-tests measures (README "Megatron-Bridge on Hopper and
# Blackwell"): H100 31.6%, B200 33.9%, B300 30.7%, GB200 22.0%, GB300 16.8% (Llama 12.8%, Qwen3 33.8%, GPT-OSS
# 40.2%, DeepSeek-V3 and Kimi K2 14.0%, Nemotron 3 Nano and Super 31.8%); GPT-OSS, Qwen3 and Nemotron stay too
# fast. B300 and GB300 rose with the exponential units, which bring the GB300/GB200 throughput ratio of the
# configurations measured on both nearer the table's (tests/validation/system_pairs.sh); H100 rose with the
# all-to-all's 0.90 of the NICs (it had 0.84, a ring channel's cap), which nccl-tests tables measure, making
# its MoE rows with expert parallelism across nodes, already too fast, faster. The limits below sit just above those
# figures and guard against regressions; they are not the target. Rows that run past --timeout are listed and not counted. Configurations whose model
# simtrain lacks (Nemotron 3 Ultra and 3.5, DeepSeek-V4) or whose pipeline shape no recipe lays out are
# listed and not counted.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-h100=32 dgx-b200=35 dgx-b300=31 dgx-gb200=23 dgx-gb300=17.5
