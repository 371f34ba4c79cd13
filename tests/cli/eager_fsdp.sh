#!/usr/bin/env bash
# PyTorch FSDP, activation checkpointing, FlashAttention-2 and its Triton port in the eager generator (--impl
# hf): what the run reports, and the one-line errors for what that generator does not run.
source "$(dirname "$0")/lib.bash"

run=(run --model llama2-7b --impl hf --gpus 16 --platform dgx-h100 --batch-per-gpu 1 --seq-len 2048
  --precision amp-bf16 --omit-wall-time)
"$simtrain" "${run[@]}" --fsdp full --json "$work/fsdp.json" >/dev/null
"$simtrain" "${run[@]}" --fsdp full --recompute full --json "$work/ckpt.json" >/dev/null
"$simtrain" "${run[@]}" --fsdp full --attention flash2 --json "$work/flash2.json" >/dev/null
"$simtrain" "${run[@]}" --fsdp full --attention triton --json "$work/triton.json" >/dev/null
"$simtrain" "${run[@]}" --allow-oom --json "$work/ddp.json" >/dev/null
"$simtrain" "${run[@]}" --fsdp hybrid --json "$work/hybrid.json" >/dev/null
check "FSDP is the run's parallelism" test "$(field "$work/fsdp.json" parallelism)" = fsdp
check "hybrid sharding is named" test "$(field "$work/hybrid.json" parallelism)" = fsdp-hybrid
check "hybrid sharding keeps 1/8 of the weights" python3 -c 'import json, sys
h, d = (json.load(open(p))["memory_breakdown_bytes"]["weights"] for p in sys.argv[1:])
assert abs(h * 8 / d - 1) < 1e-9' "$work/hybrid.json" "$work/ddp.json"
python3 - "$work"/{fsdp,ddp,ckpt,flash2,triton}.json <<'PY' || failures=$((failures + 1))
import json, sys
fsdp, ddp, ckpt, flash2, triton = (json.load(open(p)) for p in sys.argv[1:])
memory = lambda r: r["memory_breakdown_bytes"]
for part in ("weights", "gradients", "optimizer_states"):
    assert abs(memory(fsdp)[part] * 16 / memory(ddp)[part] - 1) < 1e-9, part  # 1/16 on each of 16 GPUs
assert memory(ckpt)["activations"] < memory(fsdp)["activations"] / 4
# Checkpointing reruns the blocks' forward: about a third more compute.
ratio = ckpt["breakdown"]["compute_s"] / fsdp["breakdown"]["compute_s"]
assert 1.2 < ratio < 1.45, ratio
# FlashAttention-2 reaches less of an H100's peak than cuDNN's attention.
assert flash2["iteration_time_s"] > fsdp["iteration_time_s"]
# FlashAttention's Triton port computes the same at a lower rate still.
assert triton["breakdown"]["compute_s"] > flash2["breakdown"]["compute_s"]
PY
echo "ok   FSDP shards the state 16 ways; checkpointing reruns the blocks; flash2, then triton, slower on an H100"

# Below Hopper SDPA's fused kernel is FlashAttention-2's: the two names cost the same on an A100.
ampere=(run --model llama2-7b --impl hf --gpus 8 --platform dgx-a100 --batch-per-gpu 1 --seq-len 2048
  --precision amp-bf16 --omit-wall-time --fsdp full)
"$simtrain" "${ampere[@]}" --json "$work/a100_flash.json" >/dev/null
"$simtrain" "${ampere[@]}" --attention flash2 --json "$work/a100_flash2.json" >/dev/null
check "flash is FlashAttention-2 on an A100" test "$(field "$work/a100_flash.json" iteration_time_s)" \
  = "$(field "$work/a100_flash2.json" iteration_time_s)"

expect_error "an unknown sharding is named" "--fsdp: unknown sharding 'zero3' (full, hybrid)" \
  "${run[@]}" --fsdp zero3
expect_error "selective recompute is Megatron's" "--recompute selective: the eager generator checkpoints" \
  "${run[@]}" --recompute selective
expect_error "DDP's buckets do not apply to FSDP" "--bucket-mb: DDP's buckets do not apply to --fsdp" \
  "${run[@]}" --fsdp full --bucket-mb 10
expect_error "FSDP does not run under DeepSpeed" "--fsdp: PyTorch FSDP does not run under --framework deepspeed" \
  "${run[@]}" --fsdp full --framework deepspeed
expect_error "unfused attention is not an eager choice" "--attention unfused: the eager generator runs" \
  "${run[@]}" --attention unfused
expect_error "an unknown attention is named" "--attention: unknown implementation 'flash3' (flash, flash2," \
  "${run[@]}" --attention flash3
expect_error "a CNN has no blocks to checkpoint" "--recompute full: resnet50 has no transformer blocks" \
  run --model resnet50 --impl torchvision --gpus 8 --recompute full
finish
