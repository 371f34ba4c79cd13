#!/usr/bin/env bash
# simtrain plan: a small search end to end (estimate, simulate the best, ranked table, JSON and CSV, the
# chosen plan's commands), the printed run command reproducing the simulated time, and impossible
# constraints ending in one line that names the constraint and the nearest feasible setting.
source "$(dirname "$0")/lib.bash"

small=(--model megatron-gpt-1.7b --global-batch 64 --platform dgx-a100)
plan() { "$simtrain" plan "${small[@]}" --gpus 16 "$@"; }

plan --top 4 -j 2 --json "$work/plans.json" --csv "$work/plans.csv" >"$work/out" 2>"$work/progress"
check "the search ends well" test $? -eq 0
check "it reports the rank correlation of estimate and simulation" grep -q "rank correlation of estimate and simulation (Spearman, 4 plans)" "$work/out"
check "the best plan comes with its simtrain run command" grep -q "^  simtrain run --model megatron-gpt-1.7b" "$work/out"
check "and with Megatron-LM's arguments" grep -q "^  Megatron-LM: --tensor-model-parallel-size" "$work/out"
check "the runner's progress goes to stderr" grep -q "sweep: 4/4 done" "$work/progress"
fitting=$(sed -n 's/^searched [0-9]* combinations: \([0-9]*\) plans fit.*/\1/p' "$work/out")
check "JSON: every plan that fits, the first four simulated and best first" python3 - "$work/plans.json" "$fitting" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["plans"]
assert len(rows) == int(sys.argv[2]) > 10, (len(rows), sys.argv[2])
simulated = [r["simulated_iteration_time_s"] for r in rows[:4]]
assert all(t is not None and t > 0 for t in simulated), simulated
assert simulated == sorted(simulated), simulated
assert all(r["simulated_iteration_time_s"] is None for r in rows[4:])
for r in rows:
    assert r["tp"] * r["pp"] * r["cp"] * r["dp"] == r["gpus"] == 16, r
    assert r["memory_bytes"] < 80 * 2**30
PY
check "CSV: a header and the same rows" test "$(wc -l <"$work/plans.csv")" -eq $((fitting + 1))
# The command printed for the best plan simulates the time the table reports for it.
cmd=$(grep "^  simtrain run " "$work/out" | sed 's/^  simtrain run //')
# shellcheck disable=SC2086
"$simtrain" run $cmd --fidelity fast --json "$work/best.json" --omit-wall-time >/dev/null
check "the printed command reproduces the best plan's simulated time" python3 - "$work/plans.json" "$work/best.json" <<'PY'
import json, sys
best = json.load(open(sys.argv[1]))["plans"][0]
run = json.load(open(sys.argv[2]))
assert abs(run["iteration_time_s"] - best["simulated_iteration_time_s"]) < 1e-9, (run["iteration_time_s"], best)
PY

"$simtrain" plot --plans "$work/plans.json" --kind pareto --x memory_bytes -o "$work/pareto.svg" >/dev/null
check "the Pareto front of time against memory is an SVG" grep -q "Pareto front" "$work/pareto.svg"
expect_error "a Pareto plot of a study" "--kind pareto: plots a plan search" \
  plot "$root/scenarios/resnet50-scaling.toml" --kind pareto -o "$work/x.svg"

"$simtrain" plan "${small[@]}" --gpus 8..32 --objective tokens-per-gpu --top 0 >"$work/range"
check "a range of GPU counts chooses the cluster size too" grep -qE "^best plan: .* on (8|16|24|32) GPUs" "$work/range"
plan --objective cost --gpu-hour-price 2.5 --top 0 >"$work/cost"
check "the cost objective prices an iteration" grep -qE "^best plan: .*, [0-9.]+ per iteration$" "$work/cost"

expect_infeasible "a fixed value that does not divide" "--fix tp=3: --gpus 16: no multiple of tp 3" plan "${small[@]}" --gpus 16 --fix tp=3
expect_infeasible "... names the nearest feasible value" "nearest feasible: --fix tp=2" plan "${small[@]}" --gpus 16 --fix tp=3
expect_infeasible "layers that do not divide" "--fix pp=16: --pp 16 --vpp 1: 24 layers are not divisible by pp x vpp = 16" \
  plan "${small[@]}" --gpus 16 --fix pp=16
expect_infeasible "a model that fits on no plan" "gpt3-175b does not fit in GPU memory on any plan" \
  plan --model gpt3-175b --gpus 8 --global-batch 64
expect_infeasible "... and the cluster size where it does" "nearest feasible: --gpus " \
  plan --model gpt3-175b --gpus 8 --global-batch 64
expect_error "an unknown --fix key" "--fix: unknown key 'xp'" plan "${small[@]}" --gpus 16 --fix xp=2
expect_error "an empty range" "--gpus 32..8: the range is empty" plan "${small[@]}" --gpus 32..8
expect_error "cost without a price" "--objective cost: give --gpu-hour-price" plan "${small[@]}" --gpus 16 --objective cost
expect_error "a model that is not a transformer" "plans split transformer models" plan --model resnet50 --gpus 16 --global-batch 64
expect_error "a missing batch" "--global-batch: required" plan --model gpt3-175b --gpus 8
expect_error "a loss implementation without the fused loss" \
  "--cross-entropy-fusion-impl: has no effect without --cross-entropy-loss-fusion" \
  plan "${small[@]}" --gpus 16 --cross-entropy-fusion-impl te
expect_error "an unknown loss implementation" "--cross-entropy-fusion-impl: unknown implementation 'liger'" \
  plan "${small[@]}" --gpus 16 --cross-entropy-loss-fusion --cross-entropy-fusion-impl liger
finish
