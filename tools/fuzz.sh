#!/usr/bin/env bash
# Builds the fuzz targets of tests/fuzz as libFuzzer binaries (clang, AddressSanitizer, UBSan) in build-fuzz/
# and runs each for a number of executions or a time, printing executions and crashes per parser. Crashers
# (and new inputs that grew coverage, when --keep-coverage is given) are copied into tests/fuzz/corpus/<parser>/
# so that the normal build replays them as the CTest tests fuzz.<parser>.
#
# Usage: tools/fuzz.sh [-runs=N | -max_total_time=S] [parser...]   (default: -runs=1000000, every parser)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SIMTRAIN_FUZZ_BUILD:-$root/build-fuzz}
limit=-runs=1000000
if [[ ${1:-} == -runs=* || ${1:-} == -max_total_time=* ]]; then limit=$1; shift; fi
parsers=("$@")
if ((${#parsers[@]} == 0)); then
  parsers=(trace profile_json cluster_spec model_toml scenario_file nccl_tests_log nccl_tests_json simgrid_xml)
fi

# libFuzzer's runtime comes with clang's compiler-rt; Debian ships it apart for some versions.
if ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends libfuzzer-14-dev >/dev/null
fi

CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIMTRAIN_FUZZ=ON >/dev/null
cmake --build "$build" -j"${SIMTRAIN_FUZZ_JOBS:-2}" --target "${parsers[@]/#/fuzz_}"

# Leak checking stays on (a leak is a finding); SimGrid's engine in the XML target's children is left
# to _exit(), which LeakSanitizer does not examine.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
summary=()
status=0
for parser in "${parsers[@]}"; do
  corpus=$root/tests/fuzz/corpus/$parser
  work=$build/fuzz-work/$parser
  crashes=$build/fuzz-crashes/$parser
  mkdir -p "$work" "$crashes"
  log=$build/fuzz-$parser.log
  echo "fuzz: $parser ($limit)" >&2
  # The new corpus grows in $work (kept between runs of this script); the committed seeds are read-only.
  # -rss_limit_mb: a parser that needs more than 2 GB for an input of 4 KB has a finding to report.
  "$build/tests/fuzz/fuzz_$parser" "$limit" -max_len=65536 -rss_limit_mb=2048 -timeout=25 \
    -artifact_prefix="$crashes/" -print_final_stats=1 "$work" "$corpus" >"$log" 2>&1 || status=1
  executions=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  found=$(find "$crashes" -type f | wc -l)
  for crasher in "$crashes"/*; do
    [[ -f $crasher ]] && cp "$crasher" "$corpus/$(basename "$crasher")"
  done
  summary+=("$(printf '%-16s %12s executions %4s crashes' "$parser" "${executions:-0}" "$found")")
done
printf '%s\n' "${summary[@]}"
exit $status
