#!/usr/bin/env bash
# Hostile and corrupt input files (each once a crash, an abort, an internal error or gigabytes of memory)
# end with one line naming the file and, where there is one, the line and field. The same files, where
# small, are kept in tests/fuzz/corpus/ and replayed by the fuzz.<parser> tests.
source "$(dirname "$0")/lib.bash"
corpus=$root/tests/fuzz/corpus
xml=$root/platforms/xml/two-nodes-star.xml
run_xml() { expect_error "$1" "$2" run --model lenet5 --gpus 4 --batch-per-gpu 128 --gpus-per-node 2 \
  --profile v100-sxm2-16gb --platform "$3"; }

# SimGrid XML platforms: SimGrid crashed (SIGSEGV) on the first route of a zone without its routes, and
# took impossible figures silently.
run_xml "an XML platform without its zone route" "bad-no-zone-route.xml:9: zone cluster: no zoneRoute from node0 to node1" \
  "$corpus/simgrid_xml/bad-no-zone-route.xml"
run_xml "an XML zone without routes" "bad-no-routes.xml:10: zone node0: no route from node0-gpu0 to node0-gpu1" \
  "$corpus/simgrid_xml/bad-no-routes.xml"
run_xml "an XML link of bandwidth 0" "bad-bandwidth-zero.xml:14: link node0-gpu0-link: bandwidth: must be a finite number > 0, got 0" \
  "$corpus/simgrid_xml/bad-bandwidth-zero.xml"
run_xml "an XML link of negative bandwidth" "link node0-uplink: bandwidth: must be a finite number > 0" \
  "$corpus/simgrid_xml/bad-bandwidth-negative.xml"
run_xml "an XML link of bandwidth NaN" "link node0-gpu0-link: bandwidth: must be a finite number > 0, got nan" \
  "$corpus/simgrid_xml/bad-bandwidth-nan.xml"
run_xml "an XML link of latency 1e308 s" "link node0-gpu0-link: latency: must be at most 1e+06, got 1e+308" \
  "$corpus/simgrid_xml/bad-latency-1e308.xml"
run_xml "an XML link of negative latency" "link node0-gpu0-link: latency: must be a finite number >= 0" \
  "$corpus/simgrid_xml/bad-latency-negative.xml"
run_xml "an XML link of latency NaN" "latency: must be a finite number >= 0, got nan" "$corpus/simgrid_xml/bad-latency-nan.xml"
run_xml "an XML host of speed 0" "bad-speed-zero.xml:11: host node0-gpu0: speed: must be a finite number > 0, got 0" \
  "$corpus/simgrid_xml/bad-speed-zero.xml"
run_xml "an XML host of negative speed" "host node0-gpu0: speed: must be a finite number > 0" \
  "$corpus/simgrid_xml/bad-speed-negative.xml"
run_xml "an XML zone routing SimGrid does not know (SimGrid aborts: 'Not a valid model!')" \
  "crash-routing-not-a-model.xml: cannot load the SimGrid platform: Not a valid model!" \
  "$corpus/simgrid_xml/crash-routing-not-a-model.xml"
run_xml "an XML link declared twice (SimGrid aborts)" \
  "crash-link-declared-twice.xml: cannot load the SimGrid platform: Link 'node0-gpu0-link_UP' declared several times" \
  "$corpus/simgrid_xml/crash-link-declared-twice.xml"
sed 's/node1-gpu1/node12345678901234567890-gpu1/g' "$xml" >"$work/long-index.xml"
run_xml "an XML GPU host whose node index overflows a long" "long-index.xml: missing GPU host node1-gpu1" "$work/long-index.xml"

# Traces.
head -c 100000 /dev/zero | tr '\0' '[' >"$work/deep.json"
expect_error "a trace nested 100,000 levels deep" "deep.json:1: invalid JSON: nested deeper than 64 levels" run --trace "$work/deep.json"
expect_error "a trace number out of range" "bad-number-1e999.json:9: invalid JSON: number overflow" \
  run --trace "$corpus/trace/bad-number-1e999.json"
expect_error "a trace of 2^24 ranks" "bad-world-size-2-24.json: world_size: 16777216 outside [1, 1048576]" \
  run --trace "$corpus/trace/bad-world-size-2-24.json"
expect_error "ranks of a communicator issuing different collectives" \
  "bad-collective-kind-mismatch.json: programs[1].ops[6]: ranks 0 and 1 of communicator 0 of group \"dp\" disagree" \
  run --trace "$corpus/trace/bad-collective-kind-mismatch.json"
expect_error "ranks of a communicator issuing collectives of different sizes" "all_reduce of 268435456 bytes (program 0) vs all_reduce of 1024 bytes" \
  run --trace "$corpus/trace/bad-collective-size-mismatch.json"
# A gzip bomb: 20 members of 64 MiB of zeros each (1.25 GiB) in about 1.3 MB.
head -c 64M /dev/zero | gzip -1 >"$work/member.gz"
for _ in $(seq 20); do cat "$work/member.gz"; done >"$work/bomb.json.gz"
expect_error "a gzip bomb as a trace" "bomb.json.gz: gzip data expands beyond 1024 MiB" run --trace "$work/bomb.json.gz"

# Calibration profiles and nccl-tests logs.
expect_error "a profile time of 1e308 s" "bad-time-1e308.json: gemm[0].time_s: must be at most 1e+06, got 1e+308" \
  run --profile "$corpus/profile_json/bad-time-1e308.json"
expect_error "a profile time of 1e999" "bad-time-inf-1e999.json:" run --profile "$corpus/profile_json/bad-time-inf-1e999.json"
expect_error "a profile bandwidth of 1e-300 B/s" "memory[0].bandwidth_Bps: must be a finite number >= 1" \
  run --profile "$corpus/profile_json/bad-bandwidth-tiny.json"
"$simtrain" profile show a100-sxm4-80gb --json >"$work/imported.json"
import() { expect_error "$1" "$2" profile import nccl-tests "$3" --into "$work/imported.json" --platform dgx-a100; }
import "an nccl-tests rank of 2^31 - 1" "bad-rank-int-max.log:15: Rank: 2147483647 is outside [0, 1048576)" \
  "$corpus/nccl_tests_log/bad-rank-int-max.log"
import "an nccl-tests size of -1" "bad-size-negative.log:20: size: must be a finite number >= 0, got -1" \
  "$corpus/nccl_tests_log/bad-size-negative.log"
import "an nccl-tests size of nan" "bad-size-nan.log:20: size: 'nan' is not a number" "$corpus/nccl_tests_log/bad-size-nan.log"
import "an nccl-tests -J size of 1e999" "bad-size-1e999.json:" "$corpus/nccl_tests_json/bad-size-1e999.json"

finish
