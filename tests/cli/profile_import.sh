#!/usr/bin/env bash
# `simtrain profile import nccl-tests` adds a real log's rows to a profile, refits the NCCL efficiencies,
# leaves the profile usable by `simtrain run`, and rejects bad logs with the line at fault.
source "$(dirname "$0")/lib.bash"
logs="$root/tests/unit/calibration/data/nccl-tests"

"$simtrain" profile show a100-sxm4-80gb --json >"$work/a100.json"
"$simtrain" profile import nccl-tests "$logs/oci_a100_2node16gpu_all_reduce_perf.log" --into "$work/a100.json" \
  --platform dgx-a100 >"$work/import.txt"
check "import reports the rows it added" grep -q "^added 31 measurements" "$work/import.txt"
check "the profile now holds the collective table" bash -c "'$simtrain' profile show '$work/a100.json' | grep -q '31 collective entries'"
check "the inter-node efficiency was refitted from the default 0.90" bash -c "! grep -q 'inter-node 0.900' '$work/import.txt'"
"$simtrain" run --model resnet50 --gpus 16 --profile "$work/a100.json" --json "$work/run.json" >/dev/null
check "a run uses the imported profile" test -s "$work/run.json"

expect_error "importing into a built-in profile needs -o" "-o" profile import nccl-tests \
  "$logs/oci_a100_2node16gpu_all_reduce_perf.log" --into a100-sxm4-80gb
sed '/^     1048576 /s/ 262144 .*/ 262144 float/' "$logs/oci_a100_2node16gpu_all_reduce_perf.log" >"$work/all_reduce_perf_cut.log"
expect_error "a row cut short names file and line" "all_reduce_perf_cut.log:" profile import nccl-tests \
  "$work/all_reduce_perf_cut.log" --into "$work/a100.json"
# A log without its device list (an excerpt) imports once told its ranks and nodes, as nccl-tests'
# --nodes / --gpus-per-node would have said; without them, one line says what is missing.
"$simtrain" collective all_reduce --platform dgx-h100 --nodes 2 -b 1M -e 64M -f 4 \
  | grep -v "Rank\|Using devices\|Collective test" >"$work/excerpt.txt"
"$simtrain" profile show h100-sxm5 --json >"$work/h100.json"
expect_error "an excerpt without its collective" "name it with --op, e.g. --op all_reduce" \
  profile import nccl-tests "$work/excerpt.txt" --into "$work/h100.json"
expect_error "an excerpt without its device list" "give --ranks and --nodes (or --nodes and --gpus-per-node)" \
  profile import nccl-tests "$work/excerpt.txt" --into "$work/h100.json" --op all_reduce
"$simtrain" profile import nccl-tests "$work/excerpt.txt" --into "$work/h100.json" --op all_reduce --nodes 2 \
  --gpus-per-node 8 >"$work/excerpt-import.txt"
check "--nodes 2 --gpus-per-node 8 makes the excerpt a 16-rank, 2-node table" \
  grep -q "all_reduce *16 ranks *2 nodes" "$work/excerpt-import.txt"
expect_error "ranks that disagree" "--ranks 8 and --nodes 2 x --gpus-per-node 8 disagree" \
  profile import nccl-tests "$work/excerpt.txt" --into "$work/h100.json" --op all_reduce --nodes 2 --gpus-per-node 8 --ranks 8
finish
