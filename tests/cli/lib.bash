# Helpers for the end-to-end CLI tests; sourced, not run. Usage in a test: source "$(dirname "$0")/lib.bash".
set -uo pipefail
simtrain=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect_status STATUS "what" "expected substring" simtrain-args...: the command must fail with exit status
# STATUS and print exactly one line on stderr containing the substring.
expect_status() {
  local want=$1 what=$2 needle=$3
  shift 3
  local status=0
  "$simtrain" "$@" >"$work/out" 2>"$work/err" || status=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [[ $status -ne $want ]]; then
    echo "FAIL $what: exit status $status (want $want): $(cat "$work/err")"; failures=$((failures + 1))
  elif [[ $lines -ne 1 ]]; then
    echo "FAIL $what: $lines lines on stderr (want 1):"; cat "$work/err"; failures=$((failures + 1))
  elif ! grep -qF -- "$needle" "$work/err"; then
    echo "FAIL $what: '$needle' not in: $(cat "$work/err")"; failures=$((failures + 1))
  else
    echo "ok   $what: $(cat "$work/err")"
  fi
}

# Bad input (a typo, a malformed file, an option out of range) exits 2; a well-formed plan that cannot run
# (it does not divide, or does not fit in memory) exits 4 (common/exit_codes.h).
expect_error() { expect_status 2 "$@"; }
expect_infeasible() { expect_status 4 "$@"; }

check() {
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}

# field FILE KEY.PATH: a Result JSON's value at the dotted path (0 where absent); less A B: A < B as numbers.
field() { python3 -c 'import json, sys
value = json.load(open(sys.argv[1]))
for key in sys.argv[2].split("."): value = value.get(key, 0)
print(value)' "$1" "$2"; }
less() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "$1" "$2"; }

finish() {
  if ((failures)); then echo "$failures failure(s)"; exit 1; fi
  echo "all passed"
}
