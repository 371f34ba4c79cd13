#!/usr/bin/env bash
# The progress line: shown on a terminal for runs over ~2 s (SIMTRAIN_PROGRESS_AFTER=0: at once), never
# with TERM=dumb or when stderr is not a terminal (script(1) gives the run a terminal).
source "$(dirname "$0")/lib.bash"

long_run=(run --model gpt3-175b --gpus 512 --tp 8 --pp 8 --micro-batch 1 --global-batch 2048 --simulate-every-micro-batch
  --omit-wall-time)
if command -v script >/dev/null; then
  TERM=xterm SIMTRAIN_PROGRESS_AFTER=0 script -qec "$(printf '%q ' "$simtrain" "${long_run[@]}")" /dev/null >"$work/tty.txt"
  check "a long run on a terminal shows simulated time and events" grep -aq "simtrain: simulating: .* s simulated, .* events" "$work/tty.txt"
  check "and clears the line before the summary" grep -aq "iteration time" "$work/tty.txt"
  TERM=dumb SIMTRAIN_PROGRESS_AFTER=0 script -qec "$(printf '%q ' "$simtrain" "${long_run[@]}")" /dev/null >"$work/dumb.txt"
  check "TERM=dumb: no progress line" bash -c "! grep -aq 'simulating:' '$work/dumb.txt'"
else
  echo "skip progress on a terminal: script(1) is not installed"
fi
SIMTRAIN_PROGRESS_AFTER=0 "$simtrain" "${long_run[@]}" >"$work/out.txt" 2>"$work/err.txt"
check "stderr not a terminal: nothing on it" test ! -s "$work/err.txt"
finish
