#!/usr/bin/env bash
# Megatron's communication overlaps, each switchable and each shown in the breakdown as what stays exposed:
# Transformer Engine's userbuffers (--tp-comm-overlap), the distributed optimizer's parameter gather under
# the next forward pass (on by default; --no-overlap-param-gather), the interleaved schedule's
# asynchronous sends (on by default; --no-overlap-p2p-communication) and the combined 1F1B's all-to-alls
# (--overlap-moe-expert-parallel-comm).
source "$(dirname "$0")/lib.bash"

# exposed RESULT.json DIMENSION: the seconds of DIMENSION's communication the step waits for.
exposed() {
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["breakdown"].get("exposed_comm_by_dimension_s", {}).get(sys.argv[2], 0.0))' "$1" "$2"
}

# op_seconds TIMELINE NAME: the seconds rank 0's ops whose names end in NAME take in a --timeline file.
op_seconds() {
  python3 -c 'import json, sys
events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
print(sum(e["dur"] for e in events if e.get("ph") == "X" and e.get("pid") == 0
          and e["name"].endswith(sys.argv[2])) / 1e6)' "$1" "$2"
}

iteration() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["iteration_time_s"])' "$1"; }

# Userbuffers on Llama-3-70B, TP 8 with sequence parallelism, one DGX H100 node per pipeline stage.
tp=(--model llama3-70b --gpus 32 --platform dgx-h100 --tp 8 --sp --pp 4 --micro-batch 1 --global-batch 16
  --seq-len 8192 --precision fp8 --distributed-optimizer --omit-wall-time)
"$simtrain" run "${tp[@]}" --json "$work/tp.json" >/dev/null
"$simtrain" run "${tp[@]}" --tp-comm-overlap --json "$work/tp_overlap.json" >/dev/null
check "--tp-comm-overlap hides TP communication under the GEMMs" \
  less "$(exposed "$work/tp_overlap.json" tp)" "$(exposed "$work/tp.json" tp)"
check "... and the step gets faster" less "$(iteration "$work/tp_overlap.json")" "$(iteration "$work/tp.json")"
check "the Result records it" python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["inputs"]["workload"]["tp_comm_overlap"] is True' "$work/tp_overlap.json"
expect_infeasible "userbuffers without sequence parallelism" "--tp-comm-overlap: overlapping TP communication" \
  run --model llama3-70b --gpus 16 --platform dgx-h100 --tp 8 --pp 2 --tp-comm-overlap

# The distributed optimizer's parameter gather: 128 data-parallel ranks of Llama-3-8B.
dp=(--model llama3-8b --gpus 128 --platform dgx-h100 --micro-batch 1 --global-batch 256 --seq-len 8192
  --precision fp8 --distributed-optimizer --omit-wall-time)
"$simtrain" run "${dp[@]}" --json "$work/dp.json" >/dev/null
"$simtrain" run "${dp[@]}" --no-overlap-param-gather --json "$work/dp_after.json" >/dev/null
check "parameter gathers under the forward pass leave less DP communication exposed" \
  less "$(exposed "$work/dp.json" dp)" "$(exposed "$work/dp_after.json" dp)"
check "the Result records both" python3 -c 'import json, sys
on, off = (json.load(open(p))["inputs"]["workload"]["overlap_param_gather"] for p in sys.argv[1:])
assert on is True and off is False, (on, off)' "$work/dp.json" "$work/dp_after.json"
# Megatron's own flag means the same as simtrain's default.
"$simtrain" run --model llama3-8b --gpus 128 --platform dgx-h100 --micro-batch-size 1 --global-batch-size 256 \
  --seq-length 8192 --bf16 --fp8-format hybrid --use-distributed-optimizer --overlap-grad-reduce \
  --overlap-param-gather --omit-wall-time --json "$work/dp_megatron.json" >/dev/null
check "Megatron's --overlap-param-gather gives simtrain's default" \
  test "$(iteration "$work/dp_megatron.json")" = "$(iteration "$work/dp.json")"

# Interleaved pipelines: blocking sends (Megatron-LM before 2023) leave more pipeline time exposed.
pp=(--model llama3-70b --gpus 64 --platform dgx-h100 --tp 4 --sp --pp 8 --vpp 5 --micro-batch 1
  --global-batch 128 --seq-len 8192 --precision fp8 --distributed-optimizer --omit-wall-time)
"$simtrain" run "${pp[@]}" --json "$work/pp.json" >/dev/null
"$simtrain" run "${pp[@]}" --no-overlap-p2p-communication --json "$work/pp_blocking.json" >/dev/null
check "asynchronous sends leave less pipeline communication exposed" \
  less "$(exposed "$work/pp.json" pp)" "$(exposed "$work/pp_blocking.json" pp)"

# Expert parallelism across nodes: the flex dispatcher (DeepEP, HybridEP) sends a token once per node.
ep=(--model qwen3-30b-a3b --gpus 32 --platform dgx-b200 --ep 32 --micro-batch 1 --global-batch 32
  --seq-len 4096 --precision amp-bf16 --distributed-optimizer --omit-wall-time)
"$simtrain" run "${ep[@]}" --json "$work/ep.json" >/dev/null
"$simtrain" run "${ep[@]}" --moe-token-dispatcher-type flex --json "$work/ep_flex.json" >/dev/null
check "the flex dispatcher leaves less expert-parallel communication exposed across nodes" \
  less "$(exposed "$work/ep_flex.json" ep)" "$(exposed "$work/ep.json" ep)"
check "the Result records it" python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["inputs"]["workload"]["moe_token_dispatcher_type"] == "flex"' "$work/ep_flex.json"
# Megatron-LM's default all-gather dispatcher brings every rank its expert group's tokens, all of them. Across
# nodes that is each token once per node (NCCL's all-gather enters a node once), where the all-to-all sends
# Qwen3's 8 copies: less to expose. Inside one node Mixtral's 2 copies per token are less than all 8 ranks'
# tokens: more to expose.
"$simtrain" run "${ep[@]}" --moe-token-dispatcher-type allgather --json "$work/ep_gather.json" \
  --timeline "$work/ep_gather.trace.json" >/dev/null
check "across nodes the all-gather dispatcher exposes less expert-parallel communication than 8 copies" \
  less "$(exposed "$work/ep_gather.json" ep)" "$(exposed "$work/ep.json" ep)"
check "... through all-gathers and reduce-scatters only" python3 -c 'import json, sys
names = {e["name"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"}
assert any(n.endswith("moe.dispatch_all_gather") for n in names), sorted(names)[:20]
assert any(n.endswith("moe.combine_reduce_scatter") for n in names)
assert not any("all_to_all" in n for n in names)' "$work/ep_gather.trace.json"
mixtral=(--model mixtral-8x7b --gpus 8 --platform dgx-b200 --ep 8 --micro-batch 1 --global-batch 8 --seq-len 4096
  --precision amp-bf16 --distributed-optimizer --omit-wall-time)
"$simtrain" run "${mixtral[@]}" --json "$work/mixtral.json" >/dev/null
"$simtrain" run "${mixtral[@]}" --moe-token-dispatcher-type allgather --json "$work/mixtral_gather.json" >/dev/null
check "inside one node it exposes more than the all-to-all's 2 copies of a token" \
  less "$(exposed "$work/mixtral.json" ep)" "$(exposed "$work/mixtral_gather.json" ep)"
one_node=(--model qwen3-30b-a3b --gpus 8 --platform dgx-b200 --ep 8 --micro-batch 1 --global-batch 8
  --seq-len 4096 --precision amp-bf16 --distributed-optimizer --omit-wall-time)
# Inside one node no token crosses a NIC, and the flex dispatcher's kernels move less of the NVLink line than
# NCCL's all-to-all (the B200 profile's moe_flex_dispatch_intra_node against nccl_intra_node): its token
# exchange takes longer, although it sends none of the all-to-all dispatcher's token counts and probabilities.
"$simtrain" run "${one_node[@]}" --timeline "$work/ep8.trace.json" >/dev/null
"$simtrain" run "${one_node[@]}" --moe-token-dispatcher-type flex --timeline "$work/ep8_flex.trace.json" >/dev/null
check "inside one node the flex dispatcher's kernels take longer than NCCL's all-to-all" \
  less "$(op_seconds "$work/ep8.trace.json" moe.dispatch_all_to_all)" \
  "$(op_seconds "$work/ep8_flex.trace.json" moe.dispatch_all_to_all)"
check "... and the all-to-all dispatcher exchanges counts and probabilities of its own" \
  less 0 "$(op_seconds "$work/ep8.trace.json" moe.probs_all_to_all)"

# The combined 1F1B: one micro-batch's expert-parallel all-to-alls under another's kernels.
combined=(--model qwen3-30b-a3b --gpus 8 --platform dgx-b200 --ep 8 --micro-batch 1 --global-batch 32
  --seq-len 4096 --precision amp-bf16 --distributed-optimizer --omit-wall-time)
"$simtrain" run "${combined[@]}" --json "$work/ep_serial.json" >/dev/null
"$simtrain" run "${combined[@]}" --overlap-moe-expert-parallel-comm --json "$work/ep_combined.json" >/dev/null
check "--overlap-moe-expert-parallel-comm leaves less expert-parallel communication exposed" \
  less "$(exposed "$work/ep_combined.json" ep)" "$(exposed "$work/ep_serial.json" ep)"
check "... and the step gets faster" \
  less "$(iteration "$work/ep_combined.json")" "$(iteration "$work/ep_serial.json")"
check "the Result records it" python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["inputs"]["workload"]["overlap_moe_expert_parallel_comm"] is True' \
  "$work/ep_combined.json"
# Interleaved pipeline stages: the pairs of the steady phase combined, across the stages' transfers.
interleaved=(--model qwen3-30b-a3b --gpus 16 --platform dgx-b200 --ep 8 --pp 2 --vpp 2 --micro-batch 1
  --global-batch 32 --seq-len 4096 --distributed-optimizer --omit-wall-time)
"$simtrain" run "${interleaved[@]}" --json "$work/pp_serial.json" >/dev/null
"$simtrain" run "${interleaved[@]}" --overlap-moe-expert-parallel-comm --json "$work/pp_combined.json" >/dev/null
check "the combined 1F1B with interleaved stages leaves less expert-parallel communication exposed" \
  less "$(exposed "$work/pp_combined.json" ep)" "$(exposed "$work/pp_serial.json" ep)"
# As many micro-batches as stages: Megatron runs them all as warm-up and cool-down, nothing combined.
"$simtrain" run --model qwen3-30b-a3b --gpus 16 --platform dgx-b200 --ep 8 --pp 2 --vpp 2 --micro-batch 1 \
  --global-batch 16 --seq-len 4096 --distributed-optimizer --overlap-moe-expert-parallel-comm --omit-wall-time \
  --json "$work/ep_all_warmup.json" >/dev/null
check "the combined 1F1B with no steady phase runs" test -s "$work/ep_all_warmup.json"
expect_infeasible "the combined 1F1B across pipeline stages without virtual stages" \
  "--overlap-moe-expert-parallel-comm: with --pp > 1 needs virtual stages" \
  run --model qwen3-30b-a3b --gpus 16 --platform dgx-b200 --ep 8 --pp 2 --overlap-moe-expert-parallel-comm

# Gradients reduced in bf16 (Megatron-Bridge's recipes) move half the data-parallel bytes.
"$simtrain" run "${dp[@]}" --no-overlap-grad-reduce --json "$work/dp_fp32.json" >/dev/null
"$simtrain" run "${dp[@]}" --no-overlap-grad-reduce --grad-reduce-in-bf16 --json "$work/dp_bf16.json" >/dev/null
check "--grad-reduce-in-bf16 leaves less DP communication exposed" \
  less "$(exposed "$work/dp_bf16.json" dp)" "$(exposed "$work/dp_fp32.json" dp)"

finish
