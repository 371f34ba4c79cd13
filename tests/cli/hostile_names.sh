#!/usr/bin/env bash
# Names others chose reach simtrain as text, never as commands, and its files land only where asked: hostile
# study, model, platform and path names (quotes, backquotes, $(), newlines, ../, absolute paths) through
# sweep, --slurm and plot run nothing, and links planted in a results directory are not followed.
source "$(dirname "$0")/lib.bash"

# Every hostile name tries to create a file named PWNED* in whatever directory runs it; all of them run here.
mkdir -p "$work/cwd"
cd "$work/cwd" || exit 1
nothing_ran() { test -z "$(find "$work" -name 'PWNED*' -print -quit)"; }
listing() { (cd "$work" && find . -path ./cwd/results -prune -o -print | LC_ALL=C sort); }
payload="x\"; system('touch PWNED1'); # \`touch PWNED2\` \$(touch PWNED3) '; touch PWNED4; '
../../../PWNED5"

# A study's name names its results directory: anything but a plain name is refused before anything is written.
for name in "../../escaped" "/tmp/absolute" ".hidden" "a\`touch PWNED6\`" "\$(touch PWNED7)" "new
line"; do
  printf '[study]\nname = """%s"""\n[base]\nmodel = "resnet50"\n' "$name" >"$work/named.toml"
  expect_error "study name '${name//$'\n'/\\n}' is refused" "named.toml:2: study.name: must be a plain name" \
    sweep "$work/named.toml"
done
check "refused study names wrote nothing" test ! -e "$work/cwd/results" -a ! -e "$work/escaped"

# Hostile model and platform names: the runs fail as bad input (exit 2 each) and the sweep exits 1.
cat >"$work/hostile.toml" <<TOML
[study]
name = "hostile"
[base]
gpus = 8
[[zip]]
model = ['''$payload''', "../../../etc/passwd", "resnet50"]
platform = ["dgx-a100", "/dev/null", '''\$(touch PWNED8)\`touch PWNED9\`''']
TOML
touch "$work/hostile.out"
before=$(listing)
status=0
"$simtrain" sweep "$work/hostile.toml" -j 2 >"$work/hostile.out" 2>&1 || status=$?
check "a sweep of hostile model and platform names fails its runs (status $status)" test "$status" -eq 1
check "  records all three as failed" grep -q "3 runs: 0 done before, 0 by other workers, 0 ok, 3 failed" \
  "$work/hostile.out"
check "  runs nothing" nothing_ran
check "  writes only under results/hostile" test "$before" = "$(listing)"
check "  leaves only records there" \
  test "$(find results/hostile -type f ! -name '*.json' | wc -l)" -eq 0 -a "$(find results/hostile -type f | wc -l)" -eq 3

# --slurm with a hostile scenario path and results directory: the generated script is valid bash, hands
# sbatch each value unchanged, and its jobs' commands (run by sh, as sbatch --wrap does) get them unchanged.
hostile_dir="$work/it's \$(touch PWNED10) \`touch PWNED11\` \"q\"
nl"
mkdir -p "$hostile_dir"
printf '[study]\nname = "slurm"\n[base]\nmodel = "resnet50"\n' >"$hostile_dir/study.toml"
results="$work/r'\$(touch PWNED12)\`touch PWNED13\`
x"
"$simtrain" sweep "$hostile_dir/study.toml" --slurm "$work/submit.sh" --shards 4 --results "$results" >/dev/null
check "the Slurm script is valid bash" bash -n "$work/submit.sh"
mkdir -p "$work/bin"
# sbatch and simtrain stand-ins: each records its arguments, NUL-separated, one file per call.
cat >"$work/bin/sbatch" <<'SH'
#!/bin/bash
n=$(ls "$RECORD" | wc -l)
printf '%s\0' "$@" >"$RECORD/sbatch.$n"
echo 4242
SH
cat >"$work/bin/simtrain" <<'SH'
#!/bin/bash
n=$(ls "$RECORD" | wc -l)
printf '%s\0' "$@" >"$RECORD/simtrain.$n"
SH
chmod +x "$work/bin/sbatch" "$work/bin/simtrain"
mkdir -p "$work/record"
PATH="$work/bin:$PATH" RECORD="$work/record" bash "$work/submit.sh" >/dev/null
check "the script submits two jobs" test -f "$work/record/sbatch.0" -a -f "$work/record/sbatch.1"
# Each job's command, as Slurm's /bin/sh would run it, in task 3 of the array.
for call in 0 1; do
  wrap=$(while IFS= read -r -d '' arg; do [[ $arg == --wrap=* ]] && printf '%s' "${arg#--wrap=}"; done \
    <"$work/record/sbatch.$call")
  PATH="$work/bin:$PATH" RECORD="$work/record" SLURM_ARRAY_TASK_ID=3 sh -c "$wrap"
done
expected_args() { printf '%s\0' "$@"; }
check "the array job gets the scenario and results paths unchanged, and its task's shard" \
  cmp -s "$work/record/simtrain.2" <(expected_args sweep "$hostile_dir/study.toml" --results "$results" \
    --shard 3/4 -j 1)
check "the collecting job gets them unchanged" \
  cmp -s "$work/record/simtrain.3" <(expected_args sweep "$hostile_dir/study.toml" --results "$results" \
    --collect -o "$results/results.csv")
check "the collecting job waits for the array" grep -qa -- "--dependency=afterany:4242" "$work/record/sbatch.1"
check "submitting and running the jobs ran nothing else" nothing_ran

# Plots of runs whose labels (a platform file's path, the title, the plot's own name) are hostile.
plat="$work/p'\`touch PWNED14\`\$(touch PWNED15)\"; system('touch PWNED16'); #.toml"
cp "$root/platforms/dgx-a100.toml" "$plat"
cat >"$work/plot.toml" <<TOML
[study]
name = "plot"
[base]
model = "resnet50"
[sweep]
gpus = [8, 16]
platform = ['''$plat''', "dgx-a100"]
TOML
"$simtrain" sweep "$work/plot.toml" >/dev/null 2>&1
plot_file="$work/plot'\`touch PWNED17\`\$(touch PWNED18).svg"
"$simtrain" plot "$work/plot.toml" --kind breakdown -o "$plot_file" --title "$payload" >/dev/null
check "a breakdown plot with hostile labels and title is written where asked" test -s "$plot_file"
"$simtrain" plot "$work/plot.toml" -o "$work/scaling.svg" --x gpus --title "$payload" >/dev/null
check "a scaling plot with hostile series names is written" test -s "$work/scaling.svg"
check "  its series keep their names" grep -qF "touch PWNED14" "$work/scaling.svg"
check "plotting ran nothing" nothing_ran

# Links planted in a shared results directory are not followed: the files they point to stay as they were.
echo "precious" >"$work/victim"
printf '[study]\nname = "links"\n[base]\nmodel = "resnet50"\n[sweep]\ngpus = [8, 16]\n' >"$work/links.toml"
mapfile -t keys < <("$simtrain" sweep "$work/links.toml" --dry-run | awk 'NF > 2 { print $2 }')
mkdir -p results/links
ln -s "$work/victim" "results/links/${keys[0]}.claim"
expect_error "a link at a claim's name stops the sweep" "${keys[0]}.claim: a symbolic link where a claim file belongs" \
  sweep "$work/links.toml"
rm "results/links/${keys[0]}.claim"
ln -s "$work/victim" "results/links/${keys[1]}.json"
status=0
"$simtrain" sweep "$work/links.toml" >/dev/null 2>&1 || status=$?
check "a link at a record's name is refused (status $status)" test "$status" -ne 0
check "  the files the links point to are unchanged" test "$(cat "$work/victim")" = "precious"
check "  the link is still a link" test -L "results/links/${keys[1]}.json"

# --json into a FIFO writes into it, not over it; into a link to a regular file, not at all.
mkfifo "$work/fifo"
cat "$work/fifo" >"$work/fifo.out" &
"$simtrain" run --json "$work/fifo" >/dev/null
wait
check "--json into a FIFO keeps the FIFO" test -p "$work/fifo"
check "  and sends it the Result" grep -q '"iteration_time_s"' "$work/fifo.out"
ln -s "$work/victim" "$work/link.json"
expect_error "--json into a link to a regular file is refused" "link.json: cannot write: a symbolic link" \
  run --json "$work/link.json"
check "  the file it points to is unchanged" test "$(cat "$work/victim")" = "precious"
"$simtrain" run --json - >"$work/stdout.json"
check "--json - writes the Result to standard output" grep -q '"iteration_time_s"' "$work/stdout.json"
check "nothing ran anywhere" nothing_ran
finish
