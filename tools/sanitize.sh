#!/usr/bin/env bash
# Builds simtrain with AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/) and runs the whole test
# suite under them. Their reports go to files, not stderr: SimGrid switches actor stacks behind ASan's back,
# and ASan's one warning about it ("ignoring requested __asan_handle_no_return") would otherwise add a line to
# stderr that the CLI tests judge. The script fails when a test fails or when any report holds a finding.
# usage: tools/sanitize.sh [ctest arguments, e.g. -R unit]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-sanitize
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMTRAIN_SANITIZE=ON >/dev/null
cmake --build "$build" -j "$(nproc)"

reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
suppressions=$(pwd)/tests/sanitize/lsan.supp
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$suppressions:print_suppressions=0"
status=0
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@" || status=$?

# The context-switch warning is expected; every other report is a finding.
findings=0
for report in "$reports"/*; do
  [[ -e $report ]] || continue
  if grep -v -e "WARNING: ASan is ignoring requested __asan_handle_no_return" \
             -e "False positive error reports may follow" \
             -e "For details see https://github.com/google/sanitizers/issues/189" "$report" | grep -q .; then
    echo "sanitizer finding in $(basename "$report"):"
    cat "$report"
    findings=$((findings + 1))
  fi
done
echo "sanitize: ctest status $status, $findings report(s) with findings"
((status == 0 && findings == 0))
