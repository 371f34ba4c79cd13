#!/bin/sh
# simtrain-calibrate without a usable GPU (none visible, as on CI): one line on stderr naming the problem, a
# non-zero exit, and no profile written. Argument errors are reported the same way, before any GPU is needed.
# Usage: no_gpu_test.sh PATH/TO/simtrain-calibrate
tool="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Expects: exit status non-zero, exactly one stderr line, starting with $1.
expect_one_line_error() {
  prefix="$1"
  shift
  if "$@" >"$dir/out" 2>"$dir/err"; then fail "$* succeeded"; fi
  [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$*: expected one line on stderr, got: $(cat "$dir/err")"
  case "$(cat "$dir/err")" in
    "$prefix"*) ;;
    *) fail "$*: expected '$prefix...', got: $(cat "$dir/err")" ;;
  esac
}

expect_one_line_error "simtrain-calibrate: no CUDA device: " \
  env CUDA_VISIBLE_DEVICES= "$tool" --gemm --quick -o "$dir/profile.json"
[ ! -e "$dir/profile.json" ] || fail "a profile was written without a GPU"
expect_one_line_error "simtrain-calibrate: --frobnicate: unknown option" "$tool" --frobnicate
expect_one_line_error "simtrain-calibrate: --dtypes: unknown dtype 'fp6'" "$tool" --dtypes fp16,fp6
expect_one_line_error "simtrain-calibrate: --model: unknown model 'alexnet'" "$tool" --model alexnet
expect_one_line_error "simtrain-calibrate: $dir/missing.json: cannot read" "$tool" --trace "$dir/missing.json"
"$tool" --help >"$dir/out" 2>&1 || fail "--help failed"
grep -q "usage: simtrain-calibrate" "$dir/out" || fail "--help printed no usage"
echo "ok"
