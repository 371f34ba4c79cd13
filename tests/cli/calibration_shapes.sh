#!/usr/bin/env bash
# simtrain trace shapes: the kernel shapes a generated or recorded workload runs, as simtrain-calibrate's
# --shapes file.
source "$(dirname "$0")/lib.bash"

# Whether FILE has every LINE given, whole.
has_lines() {
  local file=$1 line
  shift
  for line in "$@"; do grep -qxF "$line" "$file" || return 1; done
}

"$simtrain" trace shapes -o "$work/vit.shapes" --model vit-b16 --batch-per-gpu 64 >"$work/out.txt"
check "a zoo model the standalone tool has no copy of: ViT's attention, patch embedding and MLP" \
  has_lines "$work/vit.shapes" "attention 64 12 197 64" "conv 64 3 224 224 768 16 16 16 0" "gemm 12608 3072 768 nt"
check "every line is a comment or a kernel the tool parses" python3 - "$work/vit.shapes" <<'PY'
import sys
kinds = {"gemm": (3, 4), "conv": (9,), "batch_norm": (4,), "pool": (7,), "softmax": (2,), "attention": (4,)}
for line in open(sys.argv[1]):
    words = line.split("#")[0].split()
    if words:
        assert words[0] in kinds and len(words) - 1 in kinds[words[0]], line
PY
"$simtrain" trace shapes -o "$work/tp.shapes" --model llama3-8b --gpus 8 --tp 8 --batch-per-gpu 1 >/dev/null
check "a tensor-parallel plan lists its shards: gate and up projections of 2 x 14,336 over 8 ranks" \
  has_lines "$work/tp.shapes" "gemm 8192 3584 4096 nt"
"$simtrain" trace shapes "$root/traces/pytorch/llama2-7b_2_layers_seq4096_b1_bf16_adamw.json.gz" -o "$work/kineto.shapes" >/dev/null
# A recorded GEMM does not say its pass, so its layout is the plain one (the simulator averages a shape's
# layouts).
check "a Kineto trace's GEMMs and attention from its recorded shapes: the LM head, Llama's SDPA" \
  has_lines "$work/kineto.shapes" "gemm 4096 32000 4096 nn" "attention 1 32 4096 128"
"$simtrain" trace shapes -o "$work/again.shapes" --model vit-b16 --batch-per-gpu 64 >/dev/null
check "deterministic" cmp -s "$work/vit.shapes" "$work/again.shapes"

expect_error "a trace and a model are not both taken" "--model" \
  trace shapes "$root/traces/sample-ddp-2rank.json" --model resnet50 -o "$work/x"
expect_error "an unknown model is named" "unknown model 'alexnet'" trace shapes --model alexnet -o "$work/x"
expect_error "the output is required" "output" trace shapes --model resnet50
finish
