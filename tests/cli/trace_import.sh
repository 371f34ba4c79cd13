#!/usr/bin/env bash
# simtrain trace import and run --trace on recorded PyTorch traces: a real Kineto trace of one H200 step
# (traces/pytorch/), converted, replayed, scaled out as DDP; and the one-line errors for traces that cannot be
# replayed.
source "$(dirname "$0")/lib.bash"
resnet="$root/traces/pytorch/resnet50_b32_amp_channels-last_sgd.json.gz"

# Import, then replay the native file: the same iteration time as replaying the recording directly.
"$simtrain" trace import "$resnet" -o "$work/resnet.json.gz" >"$work/import.out" 2>&1
check "import reports the format and the op count" grep -q "imported Kineto (torch.profiler) trace into .*: 1 ranks, 1 program(s), [0-9]* ops" "$work/import.out"
"$simtrain" run --trace "$work/resnet.json.gz" --gpus 1 --platform hgx-h200 --profile h200-sxm --json "$work/native.json" --omit-wall-time >/dev/null
"$simtrain" run --trace "$resnet" --gpus 1 --platform hgx-h200 --profile h200-sxm --json "$work/direct.json" --omit-wall-time >/dev/null
# The same Result but for `inputs`, which names the file each was read from.
check "an imported trace replays as its recording" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["inputs"]["workload"]["files"][0]["name"] == "resnet.json.gz", a["inputs"]
a.pop("inputs"), b.pop("inputs")
sys.exit(a != b)' "$work/native.json" "$work/direct.json"
check "the same recording gives byte-identical results" bash -c \
  "'$simtrain' run --trace '$resnet' --gpus 1 --platform hgx-h200 --profile h200-sxm --json '$work/again.json' --omit-wall-time >/dev/null && cmp -s '$work/direct.json' '$work/again.json'"

# ResNet-50 at batch 32 is host-bound: most of the step is the GPU waiting for launches.
python3 - "$work/direct.json" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
b = r["breakdown"]
assert b["host_bound_s"] > b["compute_s"], b
assert abs(b["compute_s"] + b["host_bound_s"] + b["idle_s"] + b["exposed_comm_s"] - r["iteration_time_s"]) < 1e-6, r
print("ok   a host-bound step's breakdown says so and adds up")
PY

# A faster host shortens a host-bound step; --step picks the other window.
"$simtrain" run --trace "$resnet" --gpus 1 --platform hgx-h200 --profile h200-sxm --host-speed 2 --json "$work/fast.json" --omit-wall-time >/dev/null
"$simtrain" run --trace "$resnet" --gpus 1 --platform hgx-h200 --profile h200-sxm --step 2 --json "$work/step2.json" --omit-wall-time >/dev/null
python3 - "$work/direct.json" "$work/fast.json" "$work/step2.json" <<'PY' || failures=$((failures + 1))
import json, sys
base, fast, step2 = (json.load(open(p))["iteration_time_s"] for p in sys.argv[1:])
assert fast < 0.7 * base, (fast, base)
assert step2 != base, (step2, base)
print("ok   --host-speed 2 shortens the host-bound step; --step 2 replays the other window")
PY

# Scale-out: 8 and 1,024 GPUs as DDP; throughput grows with the GPUs.
"$simtrain" run --trace "$resnet" --gpus 8 --platform hgx-h200 --json "$work/g8.json" --omit-wall-time >/dev/null
"$simtrain" run --trace "$resnet" --gpus 1024 --platform dgx-h100 --json "$work/g1024.json" --omit-wall-time >/dev/null
python3 - "$work/direct.json" "$work/g8.json" "$work/g1024.json" <<'PY' || failures=$((failures + 1))
import json, sys
one, g8, g1024 = (json.load(open(p)) for p in sys.argv[1:])
assert g8["gpus"] == 8 and g1024["gpus"] == 1024, (g8["gpus"], g1024["gpus"])
assert g8["samples_per_s"] > 7 * one["samples_per_s"], (g8["samples_per_s"], one["samples_per_s"])
assert g1024["samples_per_s"] > 100 * g8["samples_per_s"], g1024["samples_per_s"]
print("ok   DDP scale-out to 8 and 1,024 GPUs")
PY

# FSDP (full shard) from the same recording: every parameter gathered twice and reduce-scattered once, so
# with ResNet-50's 25.6 M parameters in one unit (nothing to overlap the first gather with) it exposes more
# communication than DDP, while the optimizer's work shrinks to the local shard.
"$simtrain" run --trace "$resnet" --gpus 8 --platform hgx-h200 --fsdp full --json "$work/fsdp8.json" --omit-wall-time >/dev/null
"$simtrain" trace import "$resnet" --gpus 8 --fsdp full --fsdp-min-params 5e6 -o "$work/fsdp_units.json" >/dev/null
python3 - "$work/g8.json" "$work/fsdp8.json" "$work/fsdp_units.json" <<'PY' || failures=$((failures + 1))
import json, sys
ddp, fsdp, units = (json.load(open(p)) for p in sys.argv[1:])
assert fsdp["parallelism"] == "fsdp", fsdp["parallelism"]
assert fsdp["breakdown"]["exposed_comm_s"] > ddp["breakdown"]["exposed_comm_s"], (fsdp["breakdown"], ddp["breakdown"])
names = [op["name"] for op in units["programs"][0]["ops"]]
gathers = [n for n in names if n.startswith("fsdp unit") and "all-gather" in n]
scatters = [n for n in names if n.endswith("reduce-scatter")]
# 25.6 M parameters in units of at least 5 M: at most 6 units; each one gathered for forward, each but the
# root again for backward, and reduce-scattered once.
assert 2 <= len(scatters) <= 6, scatters
assert len(gathers) == 2 * len(scatters) - 1, (len(gathers), len(scatters))
print(f"ok   FSDP scale-out: {len(scatters)} units, exposed comm {fsdp['breakdown']['exposed_comm_s']*1e3:.2f} ms "
      f"against DDP's {ddp['breakdown']['exposed_comm_s']*1e3:.2f} ms")
PY

# Calibrating the host from an unprofiled step time reproduces it (the step is host-bound).
"$simtrain" run --trace "$resnet" --gpus 1 --platform hgx-h200 --profile h200-sxm --host-step-time 0.0296 --json "$work/cal.json" --omit-wall-time >/dev/null
python3 - "$work/cal.json" <<'PY' || failures=$((failures + 1))
import json, sys
t = json.load(open(sys.argv[1]))["iteration_time_s"]
assert abs(t / 0.0296 - 1) < 0.05, t
print(f"ok   --host-step-time 29.6 ms gives {t*1e3:.2f} ms")
PY

# Bad input: one line naming the file (and the event), exit status 2.
printf '{"traceEvents": [' >"$work/truncated.json"
expect_error "truncated JSON" "truncated.json" run --trace "$work/truncated.json"
head -c 1000 "$resnet" >"$work/truncated.json.gz"
expect_error "truncated gzip" "truncated.json.gz" run --trace "$work/truncated.json.gz"
echo "not a trace" >"$work/text.txt"
expect_error "not JSON" "text.txt: not a trace" run --trace "$work/text.txt"
echo '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "ts": 1, "dur": 2, "tid": 1, "pid": 1}]}' >"$work/nokernels.json"
expect_error "no kernels" "nokernels.json: traceEvents: the step has no GPU kernels" run --trace "$work/nokernels.json"
cat >"$work/orphan.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1, "dur": 2, "tid": 1, "pid": 1, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "k1", "ts": 5, "dur": 2, "tid": 7, "pid": 0, "args": {"correlation": 1, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "orphan", "ts": 8, "dur": 2, "tid": 7, "pid": 0, "args": {"correlation": 9, "stream": 7}}]}
JSON
expect_error "kernel without a launch" "orphan.json: traceEvents[2] ('orphan'): no CUDA runtime call launched it" run --trace "$work/orphan.json"
sed 's/"correlation": 9, //' "$work/orphan.json" >"$work/nocorrelation.json"
expect_error "kernel without a correlation" "traceEvents[2] ('orphan').args.correlation: missing" run --trace "$work/nocorrelation.json"
expect_error "a step that is not there" "no ProfilerStep#7 window (the trace has 2, 3)" run --trace "$resnet" --step 7
expect_error "GPU-bound step for host calibration" "GPU-bound" run --trace "$root/traces/pytorch/llama2-7b_2_layers_seq4096_b1_bf16_adamw.json.gz" --platform hgx-h200 --host-step-time 0.04
expect_error "workload options with a trace" "--model: give either a workload or --trace FILE" run --trace "$resnet" --model resnet50
expect_error "FSDP hybrid for a trace" "--fsdp: a recorded trace scales out as FSDP full shard only" run --trace "$resnet" --gpus 8 --fsdp hybrid
expect_error "FSDP without GPUs" "--fsdp: give the GPUs to shard over with --gpus N" trace import "$resnet" --fsdp full -o "$work/never.json"
expect_error "DDP buckets under FSDP" "--bucket-mb: DDP's buckets do not apply to FSDP" run --trace "$resnet" --gpus 8 --fsdp full --bucket-mb 5
expect_error "model parallelism with a trace" "--tp: give either a workload or --trace FILE" run --trace "$resnet" --tp 2

# No step window: a warning, not an error; unknown event kinds are counted.
sed 's/"cat": "kernel", "name": "orphan"/"cat": "gpu_mystery", "name": "orphan"/' "$work/orphan.json" >"$work/nowindow.json"
"$simtrain" run --trace "$work/nowindow.json" --platform hgx-h200 >/dev/null 2>"$work/warn"
check "no ProfilerStep window is a warning" grep -q "no ProfilerStep#N window; the whole trace is taken as one step" "$work/warn"
check "unknown event kinds are counted" grep -q "1 events of kinds simtrain does not use were skipped (gpu_mystery x1)" "$work/warn"

# The other formats, by content: a PyTorch execution trace (costed from the profile), and Chakra files written
# from the imported Kineto trace (one per rank; measured durations travel with them).
"$simtrain" run --trace "$root/traces/pytorch/llama2-7b_2_layers_seq4096_b1_bf16_adamw.et.json.gz" \
  --platform hgx-h200 --json "$work/et.json" --omit-wall-time >/dev/null
check "an execution trace replays, its kernels costed from the profile" python3 -c "
import json; r = json.load(open('$work/et.json')); assert r['iteration_time_s'] > 0.005 and r['fidelity']['ops_timed_in_trace'] == 0, r"
"$simtrain" trace chakra "$work/resnet.json.gz" -o "$work/rn" >/dev/null
"$simtrain" run --trace "$work/rn.0.et" --platform hgx-h200 --json "$work/chakra.json" --omit-wall-time >/dev/null
check "Chakra files written from a recording replay" python3 -c "
import json; r = json.load(open('$work/chakra.json')); assert r['iteration_time_s'] > 0.005, r"
python3 - "$work/dangling.et.json" <<'PY'
import json, sys
node = lambda i, parent, name: {"id": i, "name": name, "ctrl_deps": parent, "attrs": [],
                                "inputs": {"values": [], "shapes": [], "types": []},
                                "outputs": {"values": [], "shapes": [], "types": []}}
nodes = [node(1, 1, "[pytorch|profiler|execution_trace|process]"), node(2, 77, "aten::mm")]
json.dump({"schema": "1.1.1-chakra.0.0.4", "pid": 1, "nodes": nodes}, open(sys.argv[1], "w"))
PY
expect_error "an execution trace whose node names a missing parent" "dangling.et.json: node 2 (aten::mm): ctrl_deps: names node 77" \
  run --trace "$work/dangling.et.json"
printf '\x07\x0a\x050.0.4\xff\xff\xff\xff\x0f' >"$work/bad.et"
expect_error "a Chakra file whose message overruns it" "bad.et" run --trace "$work/bad.et"
finish
