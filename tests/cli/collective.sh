#!/usr/bin/env bash
# simtrain collective: nccl-tests' columns and sizes, busbw from algbw by nccl-tests' factors, and errors.
source "$(dirname "$0")/lib.bash"

"$simtrain" collective all_reduce --platform dgx-h100 --nodes 2 -b 1K -e 1M -f 4 --json "$work/ar.json" >"$work/ar.txt"
check "sizes run from -b to -e by -f: 1K 4K 16K 64K 256K 1M" \
  test "$(grep -v '^#' "$work/ar.txt" | awk '{print $1}' | paste -sd,)" = "1024,4096,16384,65536,262144,1048576"
check "rows have nccl-tests' 8 columns" test "$(grep -v '^#' "$work/ar.txt" | awk '{print NF}' | sort -u)" = "8"
check "all-reduce busbw is algbw x 2(N-1)/N for 16 GPUs, and time grows with size" python3 - "$work/ar.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert all(abs(r["busbw_GBps"] - r["algbw_GBps"] * 2 * 15 / 16) <= 1e-9 * r["busbw_GBps"] for r in rows), rows
assert all(a["time_us"] < b["time_us"] for a, b in zip(rows, rows[1:])), rows
PY
"$simtrain" collective all_gather --platform dgx-a100 -g 8 -b 64M -e 64M --json "$work/ag.json" >/dev/null
check "all-gather busbw is algbw x (N-1)/N" python3 -c "
import json; r = json.load(open('$work/ag.json'))[0]
assert abs(r['busbw_GBps'] - r['algbw_GBps'] * 7 / 8) <= 1e-9 * r['busbw_GBps'], r"

expect_error "unknown collective" "unknown collective 'allreduce'" collective allreduce
expect_error "bad size" "-b: unknown size suffix" collective all_reduce -b 1X2
expect_error "not a size" "-e: expected a size" collective all_reduce -e lots
expect_error "an infinite size" "-b/-e: need 1 <= min <= max bytes, finite" collective all_reduce -e inf
expect_error "one GPU" "--gpus: a collective needs at least 2 GPUs" collective all_reduce -g 1
expect_error "step factor" "-f: the size factor must be at least 2" collective all_reduce -f 1
finish
