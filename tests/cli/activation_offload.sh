#!/usr/bin/env bash
# Activation offloading (--cpu-offloading-num-layers, Transformer Engine's as Megatron-Core runs it): Llama-3
# 70B with FSDP at micro-batch 2 does not fit a GB200 until half its layers keep their activations in the
# Grace CPU's memory, as Megatron-Bridge's recipe runs it; over a DGX H100's PCIe the copies are slower than
# the layers they overlap and lengthen the step, as the breakdown's offload-bound time; a trace file keeps the
# copies; Megatron's refusals hold.
source "$(dirname "$0")/lib.bash"


# With Transformer Engine's loss, as the recipe runs it: Megatron's unfused one holds 8 GiB more of fp32
# logits and would not fit even so.
llama=(--model llama3-70b --gpus 64 --micro-batch 2 --global-batch 256 --seq-len 8192 --precision fp8
  --fp8-recipe tensorwise --fsdp full --cross-entropy-loss-fusion --cross-entropy-fusion-impl te --omit-wall-time)
expect_infeasible "without offloading the run does not fit a GB200" "does not fit in GPU memory" \
  run "${llama[@]}" --platform dgx-gb200
"$simtrain" run "${llama[@]}" --platform dgx-gb200 --cpu-offloading-num-layers 40 --json "$work/gb200.json" >/dev/null
check "offloading 40 of 80 layers fits" python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); assert r["fits_in_memory"] and r["peak_memory_bytes"] < r["memory_capacity_bytes"], r' \
  "$work/gb200.json"
check "the Result records the offloaded layers" python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["inputs"]["workload"]["cpu_offloading_num_layers"] == 40' "$work/gb200.json"

"$simtrain" run "${llama[@]}" --platform dgx-h100 --allow-oom --json "$work/h100.json" >/dev/null
"$simtrain" run "${llama[@]}" --platform dgx-h100 --allow-oom --cpu-offloading-num-layers 40 \
  --json "$work/h100_offload.json" >/dev/null
check "over PCIe the copies hold the step back" \
  less "$(field "$work/h100.json" iteration_time_s)" "$(field "$work/h100_offload.json" iteration_time_s)"
check "... which the breakdown shows as offload-bound, its parts adding up to the step" python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); b = r["breakdown"]
assert b["offload_bound_s"] > 0, b
parts = sum(b[k] for k in ("compute_s", "exposed_comm_s", "pipeline_bubble_s", "host_bound_s", "offload_bound_s",
                           "idle_s"))
assert abs(parts - r["iteration_time_s"]) < 1e-6 * r["iteration_time_s"], (parts, r["iteration_time_s"])' \
  "$work/h100_offload.json"
check "... and the GPU keeps fewer activations" \
  less "$(field "$work/h100_offload.json" peak_memory_bytes)" "$(field "$work/h100.json" peak_memory_bytes)"

# The plan search offloads where nothing else makes a plan without recomputation fit, as few layers as make
# it fit, and ranks it against recomputation: on GB200 it beats full recomputation.
plan=(plan --model llama3-70b --gpus 64 --global-batch 256 --seq-len 8192 --precision fp8 --platform dgx-gb200
  --fix tp=1,pp=1,cp=1,micro-batch=2,sharding=fsdp --top 0)
"$simtrain" "${plan[@]}" --json "$work/plan.json" >/dev/null
"$simtrain" "${plan[@]}" --no-offload --json "$work/plan_no_offload.json" >/dev/null
check "the best plan offloads some of the 80 layers, and is faster than recomputing" python3 -c 'import json, sys
best, *_ = json.load(open(sys.argv[1]))["plans"]
alternatives = json.load(open(sys.argv[2]))["plans"]
assert 0 < best["cpu_offloading_num_layers"] < 80 and "offload" in best["plan"], best
assert all(p["cpu_offloading_num_layers"] == 0 for p in alternatives), alternatives
assert best["estimated_iteration_time_s"] < min(p["estimated_iteration_time_s"] for p in alternatives)
assert best["memory_bytes"] <= 173.2 * 2**30, best["memory_bytes"]' "$work/plan.json" "$work/plan_no_offload.json"
"$simtrain" "${plan[@]}" --cross-entropy-loss-fusion --cross-entropy-fusion-impl te --json "$work/plan_te.json" \
  >"$work/plan_te.txt"
check "with Transformer Engine's loss (2 bytes a logit, not 6) the plan offloads fewer layers" \
  python3 -c 'import json, sys
unfused, te = (json.load(open(f))["plans"][0] for f in sys.argv[1:])
assert 0 < te["cpu_offloading_num_layers"] < unfused["cpu_offloading_num_layers"], (te, unfused)' \
  "$work/plan.json" "$work/plan_te.json"
check "... and its command lines run that loss" grep -q -- \
  "--cpu-offloading-num-layers [0-9]* --cross-entropy-loss-fusion --cross-entropy-fusion-impl te" "$work/plan_te.txt"
"$simtrain" "${plan[@]}" --no-offload --fix recompute=full --json "$work/plan_full.json" >/dev/null
check "without offloading, the best plan recomputes the fewest layers that fit, faster than all 80" \
  python3 -c 'import json, sys
best, full = (json.load(open(f))["plans"][0] for f in sys.argv[1:])
assert best["recompute"] == "full" and 0 < best["recompute_num_layers"] < 80, best
assert full["recompute_num_layers"] is None, full
assert best["estimated_iteration_time_s"] < full["estimated_iteration_time_s"], (best, full)
assert best["memory_bytes"] <= 173.2 * 2**30, best["memory_bytes"]' "$work/plan_no_offload.json" "$work/plan_full.json"

# The copies survive a trace file: replayed from it, the step is the same.
small=(--model llama3-8b --gpus 8 --micro-batch 2 --global-batch 32 --seq-len 4096 --precision amp-bf16 --fsdp full
  --cpu-offloading-num-layers 16)
"$simtrain" trace "${small[@]}" -o "$work/offload_trace.json" >/dev/null
"$simtrain" run "${small[@]}" --platform dgx-h100 --json "$work/direct.json" >/dev/null
"$simtrain" run --trace "$work/offload_trace.json" --platform dgx-h100 --json "$work/replayed.json" >/dev/null
check "a trace file keeps the host copies: the same step and offload-bound time" python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["breakdown"]["offload_bound_s"] > 0
assert a["iteration_time_s"] == b["iteration_time_s"], (a["iteration_time_s"], b["iteration_time_s"])
assert a["breakdown"]["offload_bound_s"] == b["breakdown"]["offload_bound_s"]' "$work/direct.json" "$work/replayed.json"

expect_infeasible "Megatron offloads fewer layers than the model has" "offloads fewer layers than the model's 80" \
  run "${llama[@]}" --platform dgx-gb200 --cpu-offloading-num-layers 80
expect_infeasible "... and not with pipeline parallelism" "without pipeline parallelism only" \
  run "${llama[@]}" --platform dgx-gb200 --pp 2 --cpu-offloading-num-layers 4
finish
