#!/usr/bin/env bash
# simtrain trace chakra: a native trace as one Chakra execution-trace file per rank, costed from a profile.
source "$(dirname "$0")/lib.bash"

"$simtrain" trace chakra "$root/traces/sample-ddp-2rank.json" -o "$work/ddp" --profile h200-sxm >"$work/out.txt"
check "one Chakra file per rank" test -s "$work/ddp.0.et" -a -s "$work/ddp.1.et" -a ! -e "$work/ddp.2.et"
check "ranks running the same program get identical files" cmp -s "$work/ddp.0.et" "$work/ddp.1.et"
check "each file starts with a GlobalMetadata of version 0.0.4" python3 - "$work/ddp.0.et" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
assert b[0] == 7 and b[1:8] == b"\x0a\x050.0.4", b[:8]
PY
"$simtrain" trace chakra "$root/traces/sample-ddp-2rank.json" -o "$work/plat" --platform hgx-h200 >/dev/null
check "--platform costs with its GPU's profile: the same files as --profile h200-sxm" cmp -s "$work/ddp.0.et" "$work/plat.0.et"

expect_error "ops without durations need a profile" "--profile or --platform: required" \
  trace chakra "$root/traces/sample-ddp-2rank.json" -o "$work/x"
echo '{"schema": "simtrain-trace", "version": 2}' >"$work/bad.json"
expect_error "a bad trace is named" "bad.json" trace chakra "$work/bad.json" -o "$work/x" --profile h200-sxm
expect_error "the output prefix is required" "output" trace chakra "$root/traces/sample-ddp-2rank.json"
finish
