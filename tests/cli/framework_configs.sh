#!/usr/bin/env bash
# DeepSpeed JSON and torchtitan TOML files run as those frameworks read them: the plan they describe, the
# settings with no effect listed, unknown keys warned once, conflicts and unmodelled settings one line.
source "$(dirname "$0")/lib.bash"
data="$(dirname "$0")/data"

"$simtrain" run --model llama2-7b --gpus 64 --platform dgx-a100 --deepspeed-config "$data/deepspeed_zero3.json" \
  --json "$work/ds.json" --omit-wall-time >/dev/null 2>"$work/ds.err"
"$simtrain" run --model llama2-7b --gpus 64 --platform dgx-a100 --zero 3 --micro-batch 2 --global-batch 512 \
  --precision amp-bf16 --json "$work/own.json" --omit-wall-time >/dev/null
python3 - "$work/ds.json" "$work/own.json" <<'PY' || failures=$((failures + 1))
import json, sys
ds, own = (json.load(open(p)) for p in sys.argv[1:])
w = ds["inputs"]["workload"]
assert (w["parallel"]["zero"], w["micro_batch"], w["global_batch"], w["precision"]) == (3, 2, 512, "amp-bf16"), w
assert w["config_files"][0]["name"] == "deepspeed_zero3.json", w
assert ds["iteration_time_s"] == own["iteration_time_s"], (ds["iteration_time_s"], own["iteration_time_s"])
print("ok   a DeepSpeed ZeRO-3 config runs the plan of --zero 3 --micro-batch 2 --global-batch 512 --precision amp-bf16")
PY
check "DeepSpeed settings with no effect are listed" grep -q "note: DeepSpeed settings that do not change a step's time in simtrain's model: gradient_clipping optimizer scheduler" "$work/ds.err"

"$simtrain" run --gpus 64 --platform dgx-a100 --torchtitan-config "$data/torchtitan_llama3_70b.toml" \
  --json "$work/tt.json" --omit-wall-time >/dev/null 2>"$work/tt.err"
python3 - "$work/tt.json" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
w = r["inputs"]["workload"]
p = w["parallel"]
assert w["model"] == "llama3-70b" and (p["tp"], p["dp"], p["fsdp"], p["sp"]) == (8, 8, "full", True), w
assert (w["micro_batch"], w["global_batch"], w["seq_len"], w["recompute"], w["precision"]) == (8, 64, 8192, "full", "amp-bf16"), w
assert r["steps"] == 1000 and r["fits_in_memory"], r
# Uncompiled, PyTorch SDPA's FlashAttention-2 (the CLI's torchtitan default on Hopper and before), fp32 reduction.
assert w.get("eager_pointwise") and w.get("attention_kernel") == "flash2" and w.get("fsdp_reduce_in_fp32"), w
print(f"ok   torchtitan's Llama 3 70B job on 64 A100s: FSDP 8 x TP 8, {r['iteration_time_s']:.2f} s per step")
PY
check "torchtitan sections with no effect are listed" grep -q "\[checkpoint\] \[float8\] \[job\]" "$work/tt.err"

printf '{"train_micro_batch_size_per_gpu": 1, "zero_optimisation": {"stage": 2}}' >"$work/typo.json"
"$simtrain" run --model llama2-7b --gpus 8 --deepspeed-config "$work/typo.json" >/dev/null 2>"$work/typo.err"
check "unknown DeepSpeed keys are warned about, listed once" grep -q "warning: keys DeepSpeed's configuration does not have (ignored): zero_optimisation" "$work/typo.err"

expect_error "a DeepSpeed setting given twice" "--deepspeed-config, --zero: the file sets it" \
  run --model llama2-7b --gpus 64 --deepspeed-config "$data/deepspeed_zero3.json" --zero 1
expect_error "offload" "zero_optimization.offload_optimizer.device: offloading to cpu is not modelled" \
  run --model llama2-7b --gpus 8 --deepspeed-config <(echo '{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}}')
printf '[model]\nname = "llama3"\nflavor = "8B"\n[training]\nbatch_size = 1\ndata_parallel_shard_degree = -1\n' >"$work/old.toml"
expect_error "a torchtitan file of the older schema" "old.toml:6: training.data_parallel_shard_degree: an older torchtitan schema" \
  run --gpus 8 --torchtitan-config "$work/old.toml"
expect_error "two workload descriptions" "each describe the workload: give one" \
  run --gpus 8 --torchtitan-config "$data/torchtitan_llama3_70b.toml" --deepspeed-config "$data/deepspeed_zero3.json"
finish
