#!/usr/bin/env bash
# Timelines people can read: Perfetto flow events linking send/receive pairs and collective members, a
# memory counter track, and the Kineto-style per-rank files Holistic Trace Analysis and TensorBoard open.
source "$(dirname "$0")/lib.bash"

"$simtrain" run --model megatron-gpt-1.7b --gpus 16 --tp 4 --pp 4 --micro-batch 1 --global-batch 8 --no-lockstep \
  --timeline "$work/pp.json" --timeline-ranks 16 >/dev/null
python3 - "$work/pp.json" <<'PY' || failures=$((failures + 1))
import json, sys, collections
events = json.load(open(sys.argv[1]))["traceEvents"]
slices = [e for e in events if e["ph"] == "X"]
flows = collections.defaultdict(list)
for e in events:
    if e["ph"] in "stf" and len(e["ph"]) == 1:
        flows[(e["cat"], e["id"])].append(e)
p2p = [f for (cat, _), f in flows.items() if cat == "p2p"]
coll = [f for (cat, _), f in flows.items() if cat == "collective"]
assert p2p and coll, (len(p2p), len(coll))
# A flow starts once, ends once, and every step lies inside a slice of its rank and stream.
for f in p2p + coll:
    phases = [e["ph"] for e in f]
    assert phases[0] == "s" and phases[-1] == "f" and phases.count("s") == phases.count("f") == 1, phases
    for e in f:
        assert any(s["pid"] == e["pid"] and s["tid"] == e["tid"] and s["ts"] <= e["ts"] <= s["ts"] + s["dur"]
                   for s in slices), e
# A send flows to the next or previous pipeline stage (4 ranks on); a tensor-parallel collective spans its
# 4 ranks, the tied embeddings' all-reduce the first and last stage's 2.
assert all(f[1]["pid"] - f[0]["pid"] in (4, -4) for f in p2p), p2p[0]
sizes = collections.Counter(len(f) for f in coll)
assert set(sizes) == {2, 4} and sizes[4] > sizes[2], sizes
print(f"ok   flows: {len(p2p)} send/receive pairs, {len(coll)} collectives across their members")
PY

# A memory counter per rank: the state throughout, activations rising in forward and falling in backward up
# to the estimate's peak.
"$simtrain" run --model megatron-gpt-1.7b --gpus 8 --tp 2 --pp 4 --micro-batch 1 --global-batch 8 \
  --timeline "$work/memory.json" --json "$work/memory-result.json" >/dev/null
python3 - "$work/memory.json" "$work/memory-result.json" <<'PY' || failures=$((failures + 1))
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
memory = json.load(open(sys.argv[2]))["memory_breakdown_bytes"]
counters = [e for e in events if e["ph"] == "C" and e["name"] == "memory (GiB)" and e["pid"] == 0]
assert counters, "no memory counter"
peak = max(e["args"]["activations"] for e in counters)
assert abs(peak - memory["activations"] / 2**30) < 1e-9 * peak, (peak, memory["activations"])
state = sum(v for k, v in memory.items() if k != "activations") / 2**30
assert all(abs(e["args"]["state"] - state) < 1e-9 * state for e in counters)
assert counters[-1]["args"]["activations"] < 0.5 * peak, counters[-1]  # freed by the end of backward
print(f"ok   a memory counter: {state:.1f} GiB of state, activations up to {peak:.1f} GiB")
PY

"$simtrain" run --model llama2-7b --gpus 16 --platform dgx-h100 --tp 2 --micro-batch 1 --global-batch 32 \
  --timeline "$work/kineto" --timeline-format kineto --timeline-ranks 2 >/dev/null
python3 - "$work" <<'PY' || failures=$((failures + 1))
import glob, json, sys
files = sorted(glob.glob(sys.argv[1] + "/kineto.rank*.pt.trace.json"))
assert len(files) == 2, files
for path in files:
    d = json.load(open(path))
    info = d["distributedInfo"]
    assert info["world_size"] == 16 and f"rank{info['rank']}." in path, (info, path)
    assert d["deviceProperties"][0]["name"] == "H100-SXM5-80GB"
    kernels = [e for e in d["traceEvents"] if e.get("cat") == "kernel"]
    assert all({"stream", "correlation", "device"} <= e["args"].keys() for e in kernels)
    nccl = [e for e in kernels if e["name"].startswith("ncclDevKernel_AllReduce_Sum_f16")]
    # Tensor-parallel all-reduces over 2 ranks, data-parallel ones over 8.
    assert nccl and {e["args"]["Group size"] for e in nccl} == {2, 8}, {e["args"]["Group size"] for e in nccl}
    step = [e for e in d["traceEvents"] if e.get("name") == "ProfilerStep#0"]
    assert {e["cat"] for e in step} == {"user_annotation", "gpu_user_annotation"}, step
print(f"ok   --timeline-format kineto: {len(files)} rank files with distributedInfo, kernels, NCCL names, ProfilerStep#0")
PY
expect_error "a Kineto timeline to stdout" "--timeline-format kineto writes one file per rank" \
  run --gpus 8 --timeline - --timeline-format kineto
expect_error "an unknown timeline format" "--timeline-format: unknown format 'hta'" run --gpus 8 --timeline x --timeline-format hta
finish
