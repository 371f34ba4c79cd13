#!/usr/bin/env bash
# `simtrain run` produces a complete Result, a loadable timeline, job times, and replays its own traces.
source "$(dirname "$0")/lib.bash"

"$simtrain" run >"$work/default.txt"
check "the built-in default runs and prints an iteration time" grep -q "iteration time" "$work/default.txt"

"$simtrain" run --model resnet50 --gpus 64 --platform dgx-a100 --batch-per-gpu 256 --precision amp \
  --json "$work/r.json" --timeline "$work/timeline.json" --epochs 2 >/dev/null
check "Result has every field of DESIGN.md §3" python3 - "$work/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
need = ["iteration_time_s", "samples_per_s", "mfu", "breakdown", "peak_memory_bytes", "fits_in_memory",
        "profile_kind", "sim_wall_s", "job_time_s", "steps"]
missing = [k for k in need if k not in r] + [k for k in ["compute_s", "exposed_comm_s", "idle_s"] if k not in r["breakdown"]]
assert not missing, missing
b = r["breakdown"]
# The breakdown's parts are the mean rank's iteration split three ways.
assert abs(b["compute_s"] + b["exposed_comm_s"] + b["pipeline_bubble_s"] + b["idle_s"] - r["iteration_time_s"]) < 1e-9 * r["iteration_time_s"] + 1e-12
assert r["profile_kind"] == "spec" and r["gpus"] == 64 and r["nodes"] == 8
# Two epochs of ImageNet-1k at a global batch of 64 * 256: ceil(1281167 / 16384) = 79 steps per epoch.
assert r["steps"] == 158, r["steps"]
# Plus PyTorch DDP's default start-up (workload/framework.h) and no per-step overhead.
assert r["startup_s"] == 3 and r["step_overhead"] == 0, (r["startup_s"], r["step_overhead"])
assert abs(r["job_time_s"] - (3 + 158 * r["iteration_time_s"])) < 1e-9 * r["job_time_s"]
assert 0 < r["mfu"] < 1
PY
check "timeline is a Trace Event Format document with one process per simulated rank" python3 - \
  "$work/timeline.json" "$work/r.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
# DDP over whole DGX nodes: each node's first rank stands for the node (node lockstep), and the timeline
# shows the first 8 simulated ranks.
lockstep = json.load(open(sys.argv[2]))["fidelity"]["lockstep_group_size"]
assert lockstep == 8, lockstep
events = t["traceEvents"]
complete = [e for e in events if e["ph"] == "X"]
assert complete and all(e["dur"] >= 0 for e in complete)
assert {e["pid"] for e in complete} == set(range(0, 64, lockstep))
names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
assert names == {"compute", "comm"}, names
PY

"$simtrain" trace --model bert-large --gpus 16 --batch-per-gpu 32 --grad-accum 2 -o "$work/bert.json.gz" >/dev/null
"$simtrain" run --trace "$work/bert.json.gz" --platform dgx-a100 --json "$work/from-trace.json" >/dev/null
"$simtrain" run --model bert-large --gpus 16 --batch-per-gpu 32 --grad-accum 2 --platform dgx-a100 \
  --json "$work/direct.json" >/dev/null
check "replaying a written trace gives the same iteration time as generating it" python3 - "$work/from-trace.json" "$work/direct.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["iteration_time_s"] == b["iteration_time_s"], (a["iteration_time_s"], b["iteration_time_s"])
PY

"$simtrain" run --trace "$root/traces/sample-ddp-2rank.json" --platform dgx-h100 --json "$work/sample.json" >/dev/null
check "the sample trace in traces/ replays" test -s "$work/sample.json"
"$simtrain" run --model lenet5 --gpus 4 --batch-per-gpu 128 --platform "$root/platforms/xml/two-nodes-star.xml" \
  --gpus-per-node 2 --profile v100-sxm2-16gb --json "$work/xml.json" >/dev/null
check "a SimGrid XML platform runs" test -s "$work/xml.json"
"$simtrain" run --model resnet50 --gpus 64 --fidelity fast --json "$work/fast.json" >/dev/null
check "--fidelity fast is reported in the Result" python3 -c "
import json, sys; f = json.load(open('$work/fast.json'))['fidelity']; sys.exit(f['level'] != 'fast')"
expect_error "an unknown fidelity level" "--fidelity" run --fidelity medium
# Replica sampling (engine/lockstep.h): 16 replicas of TP 4 x PP 2, two per node, on a fat-tree without
# oversubscription; the 4 on each stage's first two nodes stand for all, to the last digit.
sampled_run=(run --model llama2-7b --gpus 128 --platform dgx-h100 --tp 4 --pp 2 --distributed-optimizer
  --micro-batch 1 --global-batch 64 --omit-wall-time)
"$simtrain" "${sampled_run[@]}" --json "$work/sampled.json" >/dev/null
"$simtrain" "${sampled_run[@]}" --every-replica --json "$work/every.json" >/dev/null
check "full fidelity samples replicas where that is exact, and says so" python3 -c "
import json, sys; f = json.load(open('$work/sampled.json'))['fidelity']
sys.exit(f['level'] != 'full' or not f['replicas'].startswith('4 of 16 data-parallel replicas simulated'))"
check "--every-replica gives the sampled iteration time" python3 -c "
import json, sys; a, b = (json.load(open('$work/' + n + '.json')) for n in ('sampled', 'every'))
sys.exit(a['iteration_time_s'] != b['iteration_time_s'] or a['breakdown'] != b['breakdown'])"
# Collectives hold SMs (engine/replay_state.h, comm_sm_fraction): the data-parallel reduce-scatters under the
# backward pass slow its kernels, so the step's compute grows; --no-comm-sms leaves it as alone.
sms_run=(run --model llama2-7b --gpus 16 --platform dgx-h100 --tp 2 --sp --distributed-optimizer
  --micro-batch 1 --global-batch 64 --omit-wall-time)
"$simtrain" "${sms_run[@]}" --json "$work/sms.json" >/dev/null
"$simtrain" "${sms_run[@]}" --no-comm-sms --json "$work/no-sms.json" >/dev/null
check "collectives' SMs slow the kernels beside them; --no-comm-sms is recorded" python3 -c "
import json, sys; a, b = (json.load(open('$work/' + n + '.json')) for n in ('sms', 'no-sms'))
sys.exit(not (a['breakdown']['compute_s'] > b['breakdown']['compute_s'] and
              a['iteration_time_s'] > b['iteration_time_s'] and
              b['inputs']['what_ifs'].get('comm_sms') is False and 'comm_sms' not in a['inputs']['what_ifs']))"
finish
