#!/usr/bin/env bash
# simtrain sweep: a killed study resumes with nothing lost or duplicated, shards run as separate processes
# merge into the same table as one run, failed runs are recorded without stopping the others, and bad
# scenario files end with one line naming file, line and key.
source "$(dirname "$0")/lib.bash"

# 48 small runs: enough that a kill lands in the middle.
cat >"$work/study.toml" <<'TOML'
[study]
name = "small"
skip_invalid = true

[base]
model = "resnet50"
platform = "dgx-a100"
precision = "amp"

[sweep]
gpus = [8, 16, 24, 32, 48, 64]
batch-per-gpu = [32, 64, 96, 128]

[[zip]]
bucket-mb = [10, 25]
grad-accum = [1, 2]

[[exclude]]
gpus = 8
batch-per-gpu = 32
TOML

"$simtrain" sweep "$work/study.toml" --dry-run >"$work/dry"
check "dry run lists 6 x 4 x 2 - 2 excluded = 46 runs" grep -qx "46 runs" "$work/dry"

# The reference: one uninterrupted sweep.
"$simtrain" sweep "$work/study.toml" -j 2 --results "$work/whole" >/dev/null 2>&1
"$simtrain" sweep "$work/study.toml" --results "$work/whole" --collect -o "$work/whole.csv"
check "every run of the uninterrupted sweep is ok" \
  test "$(grep -c ',ok,' "$work/whole.csv")" -eq 46

# Kill a sweep mid-way with SIGKILL, then resume it.
"$simtrain" sweep "$work/study.toml" -j 2 --results "$work/killed" >/dev/null 2>&1 &
sweep_pid=$!
for _ in $(seq 1 200); do
  done_runs=$(find "$work/killed" -name '*.json' ! -name '*.scratch.*' ! -name '*.tmp.*' 2>/dev/null | wc -l)
  ((done_runs >= 10)) && break
  sleep 0.05
done
kill -KILL "$sweep_pid"
wait "$sweep_pid" 2>/dev/null
partial=$(find "$work/killed" -name '*.json' ! -name '*.scratch.*' ! -name '*.tmp.*' | wc -l)
check "the kill landed mid-way ($partial of 46 runs recorded)" test "$partial" -ge 10 -a "$partial" -lt 46
"$simtrain" sweep "$work/study.toml" -j 2 --results "$work/killed" >"$work/resume.out" 2>/dev/null
check "the resumed sweep skips the runs recorded before the kill" grep -q "46 runs: $partial done before" "$work/resume.out"
"$simtrain" sweep "$work/study.toml" --results "$work/killed" --collect -o "$work/killed.csv"
check "killed + resumed gives the uninterrupted table, byte for byte" cmp -s "$work/whole.csv" "$work/killed.csv"
check "no run is recorded twice" test "$(cut -d, -f2 "$work/killed.csv" | sort | uniq -d | wc -l)" -eq 0

# Three shards as three concurrent processes writing one results directory.
for k in 1 2 3; do
  "$simtrain" sweep "$work/study.toml" --shard "$k/3" --results "$work/sharded" >/dev/null 2>&1 &
done
wait
"$simtrain" sweep "$work/study.toml" --results "$work/sharded" --collect -o "$work/sharded.csv"
check "three shards merge into the unsharded table" cmp -s "$work/whole.csv" "$work/sharded.csv"

# Two sweeps of one study started at once share its runs through claims: each run happens once in all.
for w in 1 2; do
  "$simtrain" sweep "$work/study.toml" -j 2 --results "$work/shared" >"$work/worker$w.out" 2>/dev/null &
done
wait
runs_made=0
for w in 1 2; do
  runs_made=$((runs_made + $(sed -n 's/.* \([0-9]*\) ok, .*/\1/p' "$work/worker$w.out")))
done
check "two concurrent sweeps of one study run its 46 scenarios once in all ($runs_made runs)" test "$runs_made" -eq 46
"$simtrain" sweep "$work/study.toml" --results "$work/shared" --collect -o "$work/shared.csv"
check "two concurrent sweeps give the table of one" cmp -s "$work/whole.csv" "$work/shared.csv"
check "no claim or scratch file is left behind" \
  test "$(find "$work/shared" -name '*.claim' -o -name '*.scratch.*' -o -name '*.tmp.*' | wc -l)" -eq 0

# A result is stale when a file the run read has changed: the platform given by path, or by the name of a
# shipped spec (resolved under SIMTRAIN_PLATFORM_DIR here).
mkdir -p "$work/platforms"
cp "$root/platforms/dgx-a100.toml" "$work/platforms/dgx-a100.toml"
cat >"$work/stale.toml" <<TOML
[study]
name = "stale"
[base]
model = "resnet50"
gpus = 16
[sweep]
platform = ["dgx-a100", "$work/platforms/dgx-a100.toml"]
TOML
iteration_times() {  # the column of the collected CSV; quoted fields (commas inside) are blanked first
  SIMTRAIN_PLATFORM_DIR="$work/platforms" "$simtrain" sweep "$work/stale.toml" --results "$work/stale" --collect |
    sed 's/"[^"]*"//g' | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "iteration_time_s") c = i; next } { print $c }' | paste -sd' '
}
SIMTRAIN_PLATFORM_DIR="$work/platforms" "$simtrain" sweep "$work/stale.toml" --results "$work/stale" >/dev/null 2>&1
before=$(iteration_times)
sed -i 's/^bandwidth_Gbps = 200/bandwidth_Gbps = 25/' "$work/platforms/dgx-a100.toml"
SIMTRAIN_PLATFORM_DIR="$work/platforms" "$simtrain" sweep "$work/stale.toml" --results "$work/stale" \
  >"$work/stale.out" 2>/dev/null
after=$(iteration_times)
check "a sweep after the platform file changed runs both runs again" grep -q "2 runs: 0 done before" "$work/stale.out"
check "and reports the new iteration times ($before, then $after)" \
  awk -v b="$before" -v a="$after" 'BEGIN { split(b, x, " "); split(a, y, " "); exit !(y[1] > x[1] && y[2] > x[2]) }'
SIMTRAIN_PLATFORM_DIR="$work/platforms" "$simtrain" sweep "$work/stale.toml" --results "$work/stale" \
  >"$work/stale.out" 2>/dev/null
check "an unchanged platform file keeps the results" grep -q "2 runs: 2 done before" "$work/stale.out"

# A run simtrain refuses is recorded (skipped, with its error) and the others still run.
cat >"$work/mixed.toml" <<'TOML'
[study]
name = "mixed"
skip_invalid = true
[base]
model = "gpt3-175b"
platform = "dgx-a100"
gpus = 64
[sweep]
tp = [8, 3]
TOML
"$simtrain" sweep "$work/mixed.toml" --results "$work/mixed" >/dev/null 2>&1
"$simtrain" sweep "$work/mixed.toml" --results "$work/mixed" --collect -o "$work/mixed.csv"
check "an impossible plan is recorded as skipped with its error" grep -q ',skipped,.*tp' "$work/mixed.csv"
check "the other run of that study still ran" test "$(grep -c ',ok,\|,skipped,' "$work/mixed.csv")" -eq 2

# A misspelt model is a mistake in the study, not a plan to skip: it fails, and so does the sweep.
cat >"$work/typo.toml" <<'TOML'
[study]
name = "typo"
skip_invalid = true
[base]
platform = "dgx-a100"
gpus = 8
[sweep]
model = ["resnet50", "resnet5"]
TOML
status=0
"$simtrain" sweep "$work/typo.toml" --results "$work/typo" >"$work/typo.out" 2>/dev/null || status=$?
"$simtrain" sweep "$work/typo.toml" --results "$work/typo" --collect -o "$work/typo.csv"
check "a misspelt model is recorded as failed, not skipped" grep -q ',failed,.*resnet5' "$work/typo.csv"
check "a sweep with a failed run exits 1" test "$status" -eq 1
check "its summary counts the failure" grep -q "1 ok, 1 failed, 0 skipped" "$work/typo.out"

"$simtrain" sweep "$work/study.toml" --slurm "$work/submit.sh" --shards 4 --results "$work/slurm" >/dev/null
check "--slurm writes an array of 4 shard tasks and a collecting job" \
  grep -q -- "--array=1-4" "$work/submit.sh"

# Plots of the finished study, with gnuplot.
"$simtrain" plot "$work/study.toml" --results "$work/whole" -o "$work/scaling.svg" --x gpus --series batch-per-gpu >/dev/null
check "a scaling plot is an SVG with a curve per batch size" \
  test "$(grep -c 'batch-per-gpu' "$work/scaling.svg")" -ge 4
"$simtrain" plot "$work/study.toml" --results "$work/whole" -o "$work/breakdown.png" --kind breakdown >/dev/null
check "a breakdown plot is a PNG" test "$(head -c 4 "$work/breakdown.png" | tail -c 3)" = "PNG"
expect_error "plotting a metric the results lack" "--y: no column 'samples_per_hour'" \
  plot "$work/study.toml" --results "$work/whole" -o "$work/x.svg" --y samples_per_hour

# Bad scenario files: one line naming file, line and key.
bad() {
  printf '%b' "$2" >"$work/bad.toml"
  expect_error "$1" "$3" sweep "$work/bad.toml" --dry-run
}
bad "unknown option" '[study]\nname = "x"\n[base]\nmodle = "resnet50"\n' 'bad.toml:4: base.modle: unknown option'
bad "switch given a number" '[study]\nname = "x"\n[base]\nsp = 1\n' 'bad.toml:4: base.sp: a switch'
bad "option given a boolean" '[study]\nname = "x"\n[sweep]\ngpus = [true]\n' 'sweep.gpus: takes a value'
bad "empty axis" '[study]\nname = "x"\n[sweep]\ngpus = []\n' 'bad.toml:4: sweep.gpus: an empty axis'
bad "zipped axes of unequal length" '[study]\nname = "x"\n[[zip]]\ntp = [1, 2]\npp = [1]\n' 'bad.toml:5: zip.pp: zipped axes must have equal lengths'
bad "an option set twice" '[study]\nname = "x"\n[base]\ngpus = 8\n[sweep]\ngpus = [8, 16]\n' 'sweep.gpus: set twice: already set on line 4'
bad "a reserved option" '[study]\nname = "x"\n[base]\njson = "r.json"\n' 'base.json: set by simtrain sweep'
bad "an unknown table" '[study]\nname = "x"\n[axes]\ngpus = [8]\n' 'bad.toml:3: axes: unknown table'
bad "TOML syntax" '[study\nname = "x"\n' 'bad.toml:1: TOML syntax'
bad "a study name that climbs out of results/" '[study]\nname = "../../x"\n' 'bad.toml:2: study.name: must be a plain name'
bad "a time limit that is not finite" '[study]\nname = "x"\ntime_limit_s = inf\n' 'bad.toml:3: study.time_limit_s: expected a finite'
expect_error "a shard with trailing junk" "--shard: expected K/N (e.g. 2/8), got '1/2junk'" \
  sweep "$work/study.toml" --results "$work/junk" --shard 1/2junk
expect_error "a time limit that is not a number" "--time-limit: must be a finite number > 0, got nan" \
  sweep "$work/study.toml" --results "$work/junk" --time-limit nan
check "refused options write nothing" test ! -e "$work/junk"
# 4 axes of 2^16 values: 2^64 runs, which a 64-bit count wraps around to 0.
values=$(seq -s ', ' 1 65536)
printf '[study]\nname = "huge"\n[sweep]\n' >"$work/huge.toml"
for option in gpus batch-per-gpu grad-accum seq-len; do echo "$option = [$values]" >>"$work/huge.toml"; done
expect_error "a study of 2^64 runs is refused, not expanded to 0 runs" "more than 1000000 runs" \
  sweep "$work/huge.toml" --dry-run
bad "a study without a name" '[base]\ngpus = 8\n' 'study.name: missing'
finish
