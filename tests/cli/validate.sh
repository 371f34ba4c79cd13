#!/usr/bin/env bash
# simtrain validate: runs the shipped validations against this simtrain and reports each one's table and
# verdict; --json for scripts; unknown suites are one line.
source "$(dirname "$0")/lib.bash"

check "--list names every suite" bash -c "'$simtrain' validate --list | awk '{print \$1}' | paste -sd, | grep -qx 'nccl,dle,megatron,megatron-bridge,system-pairs,llm-foundry,nemo,torchtitan,h200,h200-zoo,kernel-classes,traces,trace-scale-out'"
status=0
"$simtrain" validate dle --json >"$work/dle.json" || status=$?
python3 - "$work/dle.json" "$status" <<'PY' || failures=$((failures + 1))
import json, sys
outcomes = json.load(open(sys.argv[1]))
assert [o["suite"] for o in outcomes] == ["dle"], outcomes
o = outcomes[0]
# The exit status follows the verdict: 0 when the suite meets its target.
assert (o["exit_status"] == 0) == (o["verdict"] == "meets its target") == (sys.argv[2] == "0"), o
assert "mean absolute percentage error" in o["output"], o["output"][-300:]
print(f"ok   validate dle --json: {o['verdict']}, {o['output'].strip().splitlines()[-2][:60]}")
PY
expect_error "an unknown suite" "unknown suite 'nccll' (did you mean 'nccl'?)" validate nccll
finish
