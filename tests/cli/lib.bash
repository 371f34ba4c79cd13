# Helpers for the end-to-end CLI tests; sourced, not run. Usage in a test: source "$(dirname "$0")/lib.bash".
set -uo pipefail
simtrain=$1
root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect_error "what" "expected substring" simtrain-args...: the command must fail with exit status 1 and
# print exactly one line on stderr containing the substring.
expect_error() {
  local what=$1 needle=$2
  shift 2
  local status=0
  "$simtrain" "$@" >"$work/out" 2>"$work/err" || status=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [[ $status -ne 1 ]]; then
    echo "FAIL $what: exit status $status (want 1): $(cat "$work/err")"; failures=$((failures + 1))
  elif [[ $lines -ne 1 ]]; then
    echo "FAIL $what: $lines lines on stderr (want 1):"; cat "$work/err"; failures=$((failures + 1))
  elif ! grep -qF -- "$needle" "$work/err"; then
    echo "FAIL $what: '$needle' not in: $(cat "$work/err")"; failures=$((failures + 1))
  else
    echo "ok   $what: $(cat "$work/err")"
  fi
}

check() {
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}

finish() {
  if ((failures)); then echo "$failures failure(s)"; exit 1; fi
  echo "all passed"
}
