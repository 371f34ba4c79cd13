#!/usr/bin/env bash
# What-ifs: a straggler GPU holds every data-parallel rank back by its slowdown, a degraded link slows the
# collectives that cross it, and bad specifications are one-line errors.
source "$(dirname "$0")/lib.bash"

run() { "$simtrain" run --model resnet50 --gpus 32 --batch-per-gpu 64 --omit-wall-time --json "$@" >/dev/null; }
run "$work/base.json"
run "$work/straggler.json" --straggler rank=5,slowdown=1.2
check "one rank 1.2x slower makes the synchronous step at least 1.2x the compute" python3 - "$work" <<'PY'
import json, sys
base = json.load(open(sys.argv[1] + "/base.json"))
slow = json.load(open(sys.argv[1] + "/straggler.json"))
compute = base["breakdown"]["compute_s"]
assert slow["iteration_time_s"] >= 1.2 * compute * (1 - 1e-9), (slow["iteration_time_s"], compute)
assert slow["iteration_time_s"] <= 1.2 * base["iteration_time_s"] + 1e-3, slow["iteration_time_s"]
PY
# BERT-Large's 1.3 GB of gradients over 4 nodes: its all-reduce crosses every node's uplink.
bert() { "$simtrain" run --model bert-large --gpus 32 --batch-per-gpu 8 --omit-wall-time --json "$@" >/dev/null; }
bert "$work/bert.json"
bert "$work/bert-degraded.json" --degrade link=node2-uplink,factor=0.1
check "a node uplink at 10% of its bandwidth exposes more communication" python3 - "$work" <<'PY'
import json, sys
base = json.load(open(sys.argv[1] + "/bert.json"))
slow = json.load(open(sys.argv[1] + "/bert-degraded.json"))
assert slow["breakdown"]["exposed_comm_s"] > 2 * base["breakdown"]["exposed_comm_s"], (base["breakdown"], slow["breakdown"])
assert slow["iteration_time_s"] > base["iteration_time_s"]
PY

expect_error "a link that does not exist" "--degrade: no link named 'node9-uplink'" \
  run --gpus 32 --degrade link=node9-uplink,factor=0.5
expect_error "a GPU's NVLink port (analytic inside a node)" "--degrade: 'node0-gpu2-link' is a GPU's NVLink port" \
  run --degrade link=node0-gpu2-link,factor=0.5
expect_error "a key given twice" "--straggler: rank= given twice" run --straggler rank=1,rank=2,slowdown=2
expect_error "a fractional rank" "--straggler: rank must be a whole number" run --straggler rank=1.5,slowdown=2
expect_error "a malformed degradation" "--degrade: missing factor=" run --degrade link=node0-uplink
expect_error "a zero factor" "--degrade: factor must be a finite number in [0.001, 1000], got 0" run --degrade link=node0-uplink,factor=0
expect_error "a straggler outside the job" "--straggler: rank 40 is not in 0..31" \
  run --gpus 32 --straggler rank=40,slowdown=2
expect_error "a non-numeric slowdown" "--straggler: expected a number, got 'slow'" \
  run --straggler rank=1,slowdown=slow
finish
