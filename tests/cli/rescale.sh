#!/usr/bin/env bash
# `simtrain run --trace` of a trace recorded on an H200 predicts it for another GPU: measured kernels are
# rescaled by class (simulator/cost/kernel_rescale.h), host ops are not, and the Result's fidelity counts
# each rule.
source "$(dirname "$0")/lib.bash"

write_trace() {  # write_trace FILE RECORDED_GPU
  cat >"$1" <<JSON
{"schema": "simtrain-trace", "version": 1, "world_size": 1,
 "metadata": {"model": "recorded-mlp", "generator": "hand-written", "parallelism": "single",
              "samples_per_iteration": 64, "tokens_per_iteration": 0, "model_flops_per_iteration": 0,
              "peak_memory_bytes": 0, "compute_dtype": "bf16", "recorded_gpu": "$2"},
 "groups": [{"name": "dp", "communicators": [[0]]}],
 "programs": [{"name": "step", "streams": ["compute", "host"], "ops": [
   {"name": "launch", "type": "compute", "stream": 1, "deps": [], "kind": "host", "pass": "other",
    "dtype": "fp32", "flops": 0, "bytes": 0, "shape": [], "duration_s": 0.00002},
   {"name": "fc1", "type": "compute", "stream": 0, "deps": [0], "kind": "gemm", "pass": "forward",
    "dtype": "bf16", "flops": 1099511627776, "bytes": 402653184, "shape": [8192, 8192, 8192],
    "duration_s": 0.002},
   {"name": "add", "type": "compute", "stream": 0, "deps": [], "kind": "elementwise", "pass": "forward",
    "dtype": "bf16", "flops": 500000000, "bytes": 2000000000, "shape": [], "duration_s": 0.0006},
   {"name": "unknown", "type": "compute", "stream": 0, "deps": [], "kind": "other", "pass": "other",
    "dtype": "bf16", "flops": 0, "bytes": 0, "shape": [], "duration_s": 0.0001},
   {"name": "tiny", "type": "compute", "stream": 0, "deps": [], "kind": "other", "pass": "other",
    "dtype": "bf16", "flops": 0, "bytes": 0, "shape": [], "duration_s": 0.000002}]}],
 "rank_programs": [{"program": 0, "ranks": [[0, 0]]}]}
JSON
}

write_trace "$work/h200.json" h200-sxm
"$simtrain" run --trace "$work/h200.json" --platform dgx-a100 --json "$work/a100.json" >"$work/a100.txt"
"$simtrain" run --trace "$work/h200.json" --platform dgx-a100 --profile h200-sxm --json "$work/same.json" >/dev/null
"$simtrain" run --trace "$work/h200.json" --platform dgx-a100 \
  --profile "$root/calibration/profiles/h200-sxm.json" --json "$work/measured.json" >/dev/null

check "on the recording GPU the kernels take their recorded time" python3 - "$work/same.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["fidelity"]
assert abs(r["iteration_time_s"] - (0.00002 + 0.002 + 0.0006 + 0.0001 + 0.000002)) < 1e-12, r["iteration_time_s"]
assert (f["ops_timed_in_trace"], f["ops_rescaled"], f["ops_rescaled_by_bandwidth"]) == (5, 0, 0), f
assert f["recorded_gpu"] == "h200-sxm" and f["compute"] == "trace durations as recorded", f
PY
check "an A100 takes longer, kernel by kernel class, and the fidelity counts each rule" python3 - \
  "$work/a100.json" "$work/same.json" <<'PY'
import json, sys
a, h = (json.load(open(p)) for p in sys.argv[1:3])
f = a["fidelity"]
assert (f["ops_timed_in_trace"], f["ops_rescaled"], f["ops_rescaled_by_bandwidth"]) == (2, 2, 1), f
assert f["ops_measured"] + f["ops_interpolated"] + f["ops_roofline"] == 0, f
assert f["compute"] == "trace durations rescaled from h200-sxm", f
# The GEMM by the dense bf16 rates (989 / 312 TFLOP/s) at each generation's efficiency (Hopper: 0.762 with
# 4,096 128x128 tiles in 32 waves over 132 SMs; Ampere 0.78), the rest by the bandwidths (4.8 / 2.039 TB/s)
# at each generation's memory-bound fraction (0.863 / 0.835).
gemm = 0.002 * (989 * 0.762 * 4096 / (32 * 132)) / (312 * 0.78)
rest = (0.0006 + 0.0001) * (4800 * 0.863) / (2039 * 0.835)
expected = 0.00002 + gemm + rest + 0.000002
assert abs(a["iteration_time_s"] / expected - 1) < 0.02, (a["iteration_time_s"], expected)
assert a["iteration_time_s"] > 2.5 * h["iteration_time_s"], (a["iteration_time_s"], h["iteration_time_s"])
PY
check "the summary says what was rescaled" grep -q "3 rescaled from h200-sxm (1 of unknown size by bandwidth), 2 as recorded" \
  "$work/a100.txt"
check "a measured profile file named after the recording GPU is that GPU" python3 - "$work/measured.json" \
  "$work/same.json" <<'PY'
import json, sys
m, h = (json.load(open(p)) for p in sys.argv[1:3])
assert m["profile_kind"] == "measured" and m["fidelity"]["ops_rescaled"] == 0, m["fidelity"]
assert m["iteration_time_s"] == h["iteration_time_s"], (m["iteration_time_s"], h["iteration_time_s"])
PY

write_trace "$work/tpu.json" tpu-v5
expect_error "a recorded GPU that names no profile" "recorded_gpu: unknown profile 'tpu-v5'" \
  run --trace "$work/tpu.json" --platform dgx-a100
write_trace "$work/bf16-on-v100.json" h200-sxm
expect_error "a bf16 kernel cannot be predicted for a V100" "no bf16 support" \
  run --trace "$work/bf16-on-v100.json" --platform dgx-1-v100
finish
