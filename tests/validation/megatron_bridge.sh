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
# Blackwell"), and the loss in Transformer Engine's fused kernels as the recipes run it: H100 35.5%, B200 36.9%,
# B300 34.1%, GB200 23.9%, GB300 18.4% (Llama 13.8%, Qwen3 37.3%, GPT-OSS 43.8%, DeepSeek-V3 and Kimi K2
# 16.6%, Nemotron 3 Nano and Super 34.5%); GPT-OSS, Qwen3 and Nemotron stay too fast. Every system rose
# (from 31.6, 33.9, 30.7, 22.0 and 16.8%) when the loss moved from Megatron-LM's unfused fp32 passes (52 bytes
# per logit) to the fused kernels the recipes set (22 bytes): the unfused loss had been hiding part of what
# the rows miss elsewhere. B300 and GB300 rose with the exponential units, which bring the GB300/GB200
# throughput ratio of the configurations measured on both nearer the table's (tests/validation/system_pairs.sh);
# H100 rose with the all-to-all's 0.90 of the NICs (it had 0.84, a ring channel's cap), which nccl-tests tables
# measure, making its MoE rows with expert parallelism across nodes, already too fast, faster. The limits below
# sit just above those figures and guard against regressions; they are not the target. Rows that run past
# --timeout are listed and not counted. Configurations whose model simtrain lacks (Nemotron 3 Ultra and 3.5,
# DeepSeek-V4) or whose pipeline shape no recipe lays out are listed and not counted.
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-h100=36 dgx-b200=37.5 dgx-b300=34.5 dgx-gb200=24.5 dgx-gb300=19
