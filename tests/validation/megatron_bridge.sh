#!/usr/bin/env bash
# Validation against NVIDIA Megatron-Bridge's published pre-training throughputs (DGX H100, B200, B300, GB200,
# GB300), predicted from the spec profiles. The target is 10% MAPE per system; DGX H100 meets it
# (9.2% over the 3 Llama configurations expressible today). The Blackwell systems do not yet (B200 15.6%,
# GB300 15.0%, GB200 33.0%, all over-predicted: README, Megatron-Bridge): their limits guard today's figures.
# Configurations whose model or option simtrain lacks are listed and not counted, so the MAPEs move as the
# zoo grows (DeepSeek-V3, Qwen3, GPT-OSS, Nemotron, Llama 3.1 405B's uneven pipeline split).
set -euo pipefail
simtrain=$1
root=$2
python3 "$root/tools/validate_megatron_bridge.py" --simtrain "$simtrain" -j 2 --timeout 300 \
  --reference "$root/validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv" --max-mape 10 \
  --system-max-mape dgx-b200=18 dgx-gb300=18 dgx-gb200=36
