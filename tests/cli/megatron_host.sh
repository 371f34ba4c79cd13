#!/usr/bin/env bash
# The host thread in front of a Megatron step (--host): at micro-batch 1 a dropless MoE model's layers are
# too small to hide the launches, so the step is host-bound; padding the experts' input to capacity removes
# the host's wait for the token counts; CUDA graphs take launches off the host; pipeline stages synchronise
# the device after their batched exchanges; the schedule can cost the host per pass; a large micro-batch hides
# the host again.
source "$(dirname "$0")/lib.bash"


host=(--host "$root/calibration/hosts/h200-run-a.json")
moe=(--model qwen3-30b-a3b --gpus 8 --platform dgx-b200 --ep 8 --global-batch 64 --seq-len 4096 --precision fp8
  --fp8-recipe mxfp8 --distributed-optimizer --omit-wall-time)
"$simtrain" run "${moe[@]}" --micro-batch 1 --json "$work/gpu_only.json" >/dev/null
"$simtrain" run "${moe[@]}" --micro-batch 1 "${host[@]}" --json "$work/host.json" >/dev/null
"$simtrain" run "${moe[@]}" --micro-batch 1 "${host[@]}" --moe-pad-expert-input-to-capacity \
  --moe-expert-capacity-factor 1 --json "$work/padded.json" >/dev/null
check "without --host nothing is host-bound" \
  python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["breakdown"]["host_bound_s"] == 0' "$work/gpu_only.json"
check "with --host the micro-batch-1 MoE step waits for launches" less 0 "$(field "$work/host.json" breakdown.host_bound_s)"
check "... and takes longer" less "$(field "$work/gpu_only.json" iteration_time_s)" "$(field "$work/host.json" iteration_time_s)"
check "padded to capacity, the host does not wait for token counts and the step is shorter" \
  less "$(field "$work/padded.json" iteration_time_s)" "$(field "$work/host.json" iteration_time_s)"
check "the Result records the host, Megatron-Core's host overhead and the padding" python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))["inputs"]["workload"]
assert w["host"]["dispatch_per_kernel_s"] > 0 and w["host"]["overhead"] == 4, w["host"]
assert w["moe_pad_expert_input_to_capacity"] is True' "$work/padded.json"

# Megatron-Core's host takes twice the profile's eager cost per launch (host_profile.h); --host-overhead 1
# runs the profile as measured, so the host-bound step is shorter.
"$simtrain" run "${moe[@]}" --micro-batch 1 "${host[@]}" --host-overhead 1 --json "$work/eager_host.json" >/dev/null
check "--host-overhead 1 shortens the host-bound step" \
  less "$(field "$work/eager_host.json" iteration_time_s)" "$(field "$work/host.json" iteration_time_s)"
check "... and it still waits for launches" less 0 "$(field "$work/eager_host.json" breakdown.host_bound_s)"

# CUDA graphs: the router and preprocessing parts captured take launches off the host; the whole iteration
# captured takes them all; Megatron's rule against capturing a dropless MoE block is a one-line error.
"$simtrain" run "${moe[@]}" --micro-batch 1 "${host[@]}" --cuda-graph-impl transformer_engine \
  --cuda-graph-scope attn moe_router moe_preprocess --json "$work/graphs.json" >/dev/null
"$simtrain" run "${moe[@]}" --micro-batch 1 "${host[@]}" --cuda-graph-impl full_iteration \
  --json "$work/full_graph.json" >/dev/null
check "per-layer CUDA graphs shorten the host-bound step" \
  less "$(field "$work/graphs.json" iteration_time_s)" "$(field "$work/host.json" iteration_time_s)"
check "a full-iteration graph leaves nothing host-bound" \
  python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["breakdown"]["host_bound_s"] == 0' \
  "$work/full_graph.json"
check "the Result records the graphs" python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))["inputs"]["workload"]
assert w["cuda_graphs"] == {"impl": "per_layer", "scope": "attn,moe_router,moe_preprocess"}, w["cuda_graphs"]' \
  "$work/graphs.json"
expect_infeasible "a dropless MoE block cannot be captured" "only for drop-and-pad MoE" \
  run "${moe[@]}" --micro-batch 1 "${host[@]}" --cuda-graph-impl local --cuda-graph-scope moe
expect_error "an unknown CUDA graph implementation" "unknown implementation 'te'" \
  run "${moe[@]}" --micro-batch 1 "${host[@]}" --cuda-graph-impl te

# GPT-OSS's experts without Transformer Engine's op fuser: Megatron clamps the activation's input and adds
# fc2's biases expert by expert in PyTorch, and the host waits once more per MoE forward; the op fuser does
# both inside its fused ops.
oss=(--model gpt-oss-120b --gpus 8 --platform dgx-b200 --ep 8 --micro-batch 1 --global-batch 32 --seq-len 4096
  --distributed-optimizer --allow-oom --omit-wall-time "${host[@]}")
"$simtrain" run "${oss[@]}" --json "$work/oss_pytorch.json" >/dev/null
"$simtrain" run "${oss[@]}" --use-transformer-engine-op-fuser --json "$work/oss_fused.json" >/dev/null
check "the op fuser shortens GPT-OSS's step" \
  less "$(field "$work/oss_fused.json" iteration_time_s)" "$(field "$work/oss_pytorch.json" iteration_time_s)"
check "the Result records the op fuser" python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))["inputs"]["workload"]
assert w["use_transformer_engine_op_fuser"] is True, w' "$work/oss_fused.json"

# Pipeline stages without virtual stages exchange activations in batches after which Megatron-Core
# synchronises the device: the host restarts from an idle GPU after each, which --no-batch-p2p-sync avoids.
pipe=(--model llama3-8b --gpus 4 --platform dgx-h100 --pp 2 --micro-batch 1 --global-batch 16 --seq-len 4096
  --precision amp-bf16 --distributed-optimizer --omit-wall-time "${host[@]}")
"$simtrain" run "${pipe[@]}" --json "$work/p2p_sync.json" >/dev/null
"$simtrain" run "${pipe[@]}" --no-batch-p2p-sync --json "$work/p2p_nosync.json" >/dev/null
check "synchronising after each pipeline exchange leaves the GPU waiting for launches longer" \
  less "$(field "$work/p2p_nosync.json" breakdown.host_bound_s)" "$(field "$work/p2p_sync.json" breakdown.host_bound_s)"
check "... and does not shorten the step" python3 -c 'import json, sys
sync, nosync = (json.load(open(f))["iteration_time_s"] for f in sys.argv[1:])
assert sync >= nosync, (sync, nosync)' "$work/p2p_sync.json" "$work/p2p_nosync.json"
check "the Result records --no-batch-p2p-sync" python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["inputs"]["workload"]["host"]["batch_p2p_sync"] is False' "$work/p2p_nosync.json"

# Interleaved stages that do not overlap their exchanges: the receives are posted ahead of the host, as
# Megatron batches them, so the dropless dispatcher's host wait cannot close a cycle with the neighbour.
inter=(--model qwen3-30b-a3b --platform dgx-h100 --gpus 32 --ep 8 --pp 4 --vpp 2 --micro-batch 1 --global-batch 64
  --seq-len 4096 --precision fp8 --fp8-recipe tensorwise --distributed-optimizer --allow-oom --omit-wall-time
  "${host[@]}")
"$simtrain" run "${inter[@]}" --no-overlap-p2p-communication --json "$work/interleaved_batched.json" >/dev/null ||
  true
check "interleaved without overlap, a dropless MoE step with a host replays to a step time" \
  less 0 "$(field "$work/interleaved_batched.json" iteration_time_s)"
expect_infeasible "interleaved without overlap on two stages, as Megatron refuses it" "need --pp > 2, got --pp 2" \
  run --model qwen3-30b-a3b --gpus 16 --ep 8 --pp 2 --vpp 2 --global-batch 64 --no-overlap-p2p-communication

# Megatron's schedule costs the host per pass (a micro-batch through a model chunk, each way), none by default:
# with two virtual stages per stage it runs twice as many passes, and given a cost the host-bound interleaved
# step is longer.
"$simtrain" run "${inter[@]}" --json "$work/interleaved.json" >/dev/null
"$simtrain" run "${inter[@]}" --host-pass-overhead 100 --json "$work/interleaved_pass.json" >/dev/null
check "the schedule's cost per pass lengthens the host-bound interleaved step" \
  less "$(field "$work/interleaved.json" iteration_time_s)" "$(field "$work/interleaved_pass.json" iteration_time_s)"
check "the Result records it" python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["inputs"]["workload"]["host"]["pass_overhead"] == 100' \
  "$work/interleaved_pass.json"

# A MoE layer's Python costs the host per forward pass after the dispatcher's sync point, where the GPU has
# nothing queued: a larger cost than the default lengthens the step, and the Result records it.
"$simtrain" run "${inter[@]}" --host-moe-layer-overhead 160 --json "$work/interleaved_moe_layer.json" >/dev/null
check "a MoE layer's host cost lengthens the step" \
  less "$(field "$work/interleaved.json" iteration_time_s)" "$(field "$work/interleaved_moe_layer.json" iteration_time_s)"
check "the Result records the MoE layer's host cost" python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["inputs"]["workload"]["host"]["moe_layer_overhead"] == 160' \
  "$work/interleaved_moe_layer.json"

# Micro-batch 8: the GPU work per launch is eight times larger and hides most of the host's. (Its activations
# do not fit a B200's memory, which is why Megatron-Bridge runs micro-batch 8 on B300 and GB300 only: simulated
# anyway.)
"$simtrain" run "${moe[@]}" --micro-batch 8 --allow-oom --json "$work/big_gpu_only.json" >/dev/null
"$simtrain" run "${moe[@]}" --micro-batch 8 --allow-oom "${host[@]}" --json "$work/big_host.json" >/dev/null
share() { python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); print(r["breakdown"]["host_bound_s"] / r["iteration_time_s"])' "$1"; }
check "a larger micro-batch leaves a smaller share of the step host-bound" \
  less "$(share "$work/big_host.json")" "$(share "$work/host.json")"
finish
