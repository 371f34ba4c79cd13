#!/usr/bin/env bash
# simtrain collective: nccl-tests' columns and sizes, busbw from algbw by nccl-tests' factors, and errors.
source "$(dirname "$0")/lib.bash"

"$simtrain" collective all_reduce --platform dgx-h100 --nodes 2 -b 1K -e 1M -f 4 --json "$work/ar.json" >"$work/ar.txt"
check "sizes run from -b to -e by -f: 1K 4K 16K 64K 256K 1M" \
  test "$(grep -v '^#' "$work/ar.txt" | awk '{print $1}' | paste -sd,)" = "1024,4096,16384,65536,262144,1048576"
check "rows have nccl-tests' 13 columns (out-of-place and in-place)" test "$(grep -v '^#' "$work/ar.txt" | awk '{print NF}' | sort -u)" = "13"
check "all-reduce busbw is algbw x 2(N-1)/N for 16 GPUs, and time grows with size" python3 - "$work/ar.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert all(abs(r["busbw_GBps"] - r["algbw_GBps"] * 2 * 15 / 16) <= 1e-9 * r["busbw_GBps"] for r in rows), rows
assert all(a["time_us"] < b["time_us"] for a, b in zip(rows, rows[1:])), rows
PY
"$simtrain" collective all_gather --platform dgx-a100 --gpus 8 -b 64M -e 64M --json "$work/ag.json" >/dev/null
check "all-gather busbw is algbw x (N-1)/N" python3 -c "
import json; r = json.load(open('$work/ag.json'))[0]
assert abs(r['busbw_GBps'] - r['algbw_GBps'] * 7 / 8) <= 1e-9 * r['busbw_GBps'], r"

# NCCL's algorithm choice, and NCCL_ALGO / NCCL_PROTO forcing it. 64 nodes, small messages: NCCL's tuner
# takes the tree (log2 steps); forcing the ring costs 2(M-1) latency-bound steps instead.
"$simtrain" collective all_reduce --platform dgx-a100 --nodes 64 -b 64K -e 1G -f 16384 --json "$work/auto.json" >/dev/null
"$simtrain" collective all_reduce --platform dgx-a100 --nodes 64 -b 64K -e 1G -f 16384 --nccl-algo ring \
  --json "$work/ring.json" >/dev/null
"$simtrain" collective all_reduce --platform dgx-a100 --nodes 64 -b 64K -e 1G -f 16384 --nccl-algo Tree \
  --nccl-proto LL128 --json "$work/tree.json" >/dev/null
check "the chosen algorithm is reported; small messages across 64 nodes take the tree, faster than the ring" \
  python3 - "$work" <<'PY'
import json, sys
auto, ring, tree = (json.load(open(f"{sys.argv[1]}/{name}.json")) for name in ("auto", "ring", "tree"))
assert auto[0]["algorithm"] == "tree" and ring[0]["algorithm"] == "ring", (auto, ring)
assert all(r["algorithm"] == "tree" and r["protocol"] == "ll128" for r in tree), tree
assert auto[0]["time_us"] < 0.5 * ring[0]["time_us"], (auto[0], ring[0])
# NCCL's tuner weighs LL too (cost/nccl_tuner.h): the choice is never slower than the forced tree/LL128.
assert auto[0]["time_us"] <= tree[0]["time_us"] * (1 + 1e-9), (auto[0], tree[0])
PY
expect_error "NVLS on a node without it" "--nccl-algo nvls: this platform's NVSwitch has no NVLS" \
  collective all_reduce --platform dgx-a100 --nccl-algo nvls -b 1M -e 1M
expect_error "an unknown algorithm" "--nccl-algo: unknown value 'collnet' (ring, tree, nvls, nvlstree, pat, collnetdirect, collnetchain)" \
  collective all_reduce --nccl-algo collnet
expect_error "an unknown NCCL version" "--nccl-version: unknown NCCL version '2.31' (simtrain knows 2.18 to 2.29)" \
  collective all_reduce --nccl-version 2.31
expect_error "LL without its figures" "--nccl-proto ll: this platform's spec gives no LL figures" \
  collective all_reduce --nccl-proto ll -b 1M -e 1M
# Over EFA (aws-p4de prices NCCL's network protocols): LL for small buffers, Simple for large ones, whose
# per-chunk costs fall with NCCL_BUFFSIZE's larger chunks.
"$simtrain" collective all_reduce --platform aws-p4de --nodes 2 -b 8 -e 1G -f 134217728 --json "$work/efa.json" >/dev/null
"$simtrain" collective all_reduce --platform aws-p4de --nodes 2 -b 8 -e 1G -f 134217728 --nccl-buffsize 8388608 \
  --json "$work/efa8.json" >/dev/null
check "EFA: LL for 8 bytes, Simple for 1 GiB, and a larger NCCL buffer speeds 1 GiB up" python3 - "$work" <<'PY'
import json, sys
default, large = (json.load(open(f"{sys.argv[1]}/{name}.json")) for name in ("efa", "efa8"))
assert default[0]["protocol"] == "ll" and default[-1]["protocol"] == "simple", default
assert large[-1]["time_us"] < default[-1]["time_us"], (large[-1], default[-1])
assert large[0]["time_us"] == default[0]["time_us"], (large[0], default[0])
PY
# aws-p5 loads aws-ofi-nccl's tuner plugin: on 8 nodes its regions put 128 MiB on the LL128 ring and 32 MiB
# on the LL128 tree; without the plugin NCCL's own choice holds, and the user's protocol before the plugin's.
for plugin in aws-ofi-nccl-p5 none; do
  "$simtrain" collective all_reduce --platform aws-p5 --nodes 8 -b 32M -e 128M -f 4 --nccl-tuner-plugin "$plugin" \
    --json "$work/p5-$plugin.json" >/dev/null
done
"$simtrain" collective all_reduce --platform aws-p5 --nodes 8 -b 128M -e 128M --nccl-proto simple \
  --json "$work/p5-simple.json" >/dev/null
check "aws-p5: the plugin's tree/LL128 and ring/LL128, NCCL's own choice without it, the user's first" \
  python3 - "$work" <<'PY'
import json, sys
plugin, none, simple = (json.load(open(f"{sys.argv[1]}/p5-{name}.json"))
                        for name in ("aws-ofi-nccl-p5", "none", "simple"))
assert [(r["algorithm"], r["protocol"]) for r in plugin] == [("tree", "ll128"), ("ring", "ll128")], plugin
assert all(r["protocol"] != "ll128" for r in none), none
assert simple[0]["protocol"] == "simple", simple
PY
# aws-p6-b200 loads the plugin's p6 regions, which also choose the all-gather's protocol: on 4 nodes LL at
# 1 MiB, LL128 at 32 MiB (NCCL alone takes Simple there), Simple at 1 GiB.
for plugin in aws-ofi-nccl-p6-b200 none; do
  "$simtrain" collective all_gather --platform aws-p6-b200 --nodes 4 -b 1M -e 1G -f 32 \
    --nccl-tuner-plugin "$plugin" --json "$work/p6-$plugin.json" >/dev/null
done
check "aws-p6-b200: the plugin's all-gather protocols by size, NCCL's own without it" python3 - "$work" <<'PY'
import json, sys
plugin, none = (json.load(open(f"{sys.argv[1]}/p6-{name}.json")) for name in ("aws-ofi-nccl-p6-b200", "none"))
assert [r["protocol"] for r in plugin] == ["ll", "ll128", "simple"], plugin
assert none[1]["protocol"] != "ll128", none
PY
expect_error "an unknown tuner plugin" \
  "--nccl-tuner-plugin: unknown value 'p9' (none, aws-ofi-nccl-p5, aws-ofi-nccl-p5en, aws-ofi-nccl-p6-b200)" \
  collective all_reduce --nccl-tuner-plugin p9
# NCCL's ring is flat: it carries 2(N-1)/N of the buffer through each node's NICs, so across nodes its bus
# bandwidth is the node's NIC bandwidth x the inter-node efficiency (8 x 200 Gb/s x 0.9 on dgx-a100).
"$simtrain" collective all_reduce --platform dgx-a100 --nodes 2 -b 8G -e 8G --nccl-algo ring --json "$work/flat.json" >/dev/null
check "a 2-node ring's bus bandwidth is the nodes' NIC bandwidth x 0.9, within 1%" python3 -c "
import json; r = json.load(open('$work/flat.json'))[0]
assert abs(r['busbw_GBps'] - 8 * 25 * 0.9) <= 0.01 * 180, r"

# A fabric generation's own NCCL efficiency (pcie-p100: 0.37 of PCIe Gen3's 16 GB/s) replaces a spec
# profile's default, and a measured profile keeps its own (this one keeps the default 0.8).
"$simtrain" collective all_reduce --platform pcie-p100 --gpus 2 -b 1G -e 1G --json "$work/p100.json" >/dev/null
"$simtrain" collective all_reduce --platform pcie-p100 --gpus 2 -b 1G -e 1G --json "$work/p100m.json" \
  --profile "$root/tests/unit/calibration/data/measured_a100_example.json" >/dev/null
check "P100 PCIe: bus bandwidth 0.37 x 16 GB/s, and the measured profile's 0.8 x 16 GB/s" python3 - "$work" <<'PY'
import json, sys
spec, measured = (json.load(open(f"{sys.argv[1]}/{name}.json"))[0] for name in ("p100", "p100m"))
assert abs(spec["busbw_GBps"] - 0.37 * 16) <= 0.01 * 0.37 * 16, spec
assert abs(measured["busbw_GBps"] - 0.8 * 16) <= 0.01 * 0.8 * 16, measured
PY

# nccl-tests' layout, read by a strict reader of its format (header, device list, both column groups,
# footer) and by simtrain's own importer; -d and -g with nccl-tests' meanings; JSON rows that say what
# they are.
"$simtrain" collective all_reduce --platform dgx-h100 --nodes 2 -b 1M -e 64M -f 4 -d half -g 2 \
  --json "$work/strict.json" >"$work/strict.txt"
check "a strict nccl-tests reader accepts the output" python3 - "$work/strict.txt" "$work/strict.json" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
header = next(i for i, l in enumerate(lines) if l.startswith("# nThread"))
assert re.fullmatch(r"# nThread 1 nGpus 2 minBytes 1048576 maxBytes 67108864 step: 4\(factor\) warmup iters: 5 "
                    r"iters: 20 agg iters: 1 validation: 1 graph: 0", lines[header]), lines[header]
assert lines[header + 2] == "# Using devices"
ranks = [l for l in lines if re.match(r"#  Rank +\d+ Group +0 Pid +\d+ on +\S+ device +\d+ \[", l)]
assert len(ranks) == 16 and len({l.split(" on ")[1].split()[0] for l in ranks}) == 2, ranks
pids = {int(re.search(r"Pid +(\d+)", l).group(1)) for l in ranks}
assert len(pids) == 8, pids  # -g 2: two GPUs per process
columns = next(l for l in lines if l.startswith("#") and "busbw" in l and "size" in l).split()[1:]
assert columns == ["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
                   "algbw", "busbw", "#wrong"], columns
data = [l.split() for l in lines if l and not l.startswith("#")]
assert [int(d[0]) for d in data] == [1 << 20, 1 << 22, 1 << 24, 1 << 26], data
for d in data:
    assert d[2] == "half" and int(d[1]) == int(d[0]) // 2 and d[3] == "sum" and d[4] == "-1", d
    assert d[5:9] == d[9:13] and d[8] == "N/A", d
footer = [l for l in lines if l.startswith("# Avg bus bandwidth")]
average = sum(float(d[7]) for d in data) / len(data)
assert len(footer) == 1 and abs(float(footer[0].split(":")[1]) - average) < 0.01, (footer, average)
rows = json.load(open(sys.argv[2]))
assert all(r["op"] == "all_reduce" and r["dtype"] == "half" and r["ranks"] == 16 and r["nodes"] == 2 and
           r["count"] == r["size_bytes"] / 2 for r in rows), rows[0]
PY
"$simtrain" profile show h100-sxm5 --json >"$work/h100.json"
"$simtrain" profile import nccl-tests "$work/strict.txt" --into "$work/h100.json" --platform dgx-h100 >"$work/roundtrip.txt"
check "simtrain's own importer reads the output: 4 rows, 16 ranks on 2 nodes" grep -q "^added 4 measurements" "$work/roundtrip.txt"
check "--json - puts the rows alone on stdout" bash -c "'$simtrain' collective broadcast --gpus 8 -b 1M -e 1M --json - 2>/dev/null | python3 -m json.tool >/dev/null"
expect_error "GPUs per process that do not tile a node" "-g 3 -t 1: 3 GPUs per process do not divide the 8 GPUs" \
  collective all_reduce --platform dgx-a100 --nodes 2 -g 3
expect_error "an unknown datatype" "-d: unknown datatype 'float16'" collective all_reduce -d float16
expect_error "an unknown reduction" "-o: unknown reduction 'mean'" collective all_reduce -o mean
expect_error "factor and step together" "-f, -i: give a size factor or a size step, not both" collective all_reduce -f 2 -i 1M

expect_error "a buffer too small to split in NCCL's 8 steps" "--nccl-buffsize: must be at least 64 bytes" \
  collective all_reduce --nccl-buffsize 10 -b 1M -e 1M
# NCCL_MIN_NCHANNELS: dgx-h100's ConnectX-7 figures cap a channel's rate, so NCCL's default two channels per
# NIC fall short of the line share that three per NIC reach (cost/nccl_channels.h); inside one node the
# network's channels change nothing.
"$simtrain" collective all_reduce --platform dgx-h100 --nodes 8 -b 4G -e 4G --json "$work/ch16.json" >/dev/null
"$simtrain" collective all_reduce --platform dgx-h100 --nodes 8 -b 4G -e 4G --nccl-min-nchannels 24 \
  --json "$work/ch24.json" >/dev/null
"$simtrain" collective all_reduce --platform dgx-h100 --gpus 8 -b 1G -e 1G --json "$work/ch1.json" >/dev/null
"$simtrain" collective all_reduce --platform dgx-h100 --gpus 8 -b 1G -e 1G --nccl-min-nchannels 24 \
  --json "$work/ch1x.json" >/dev/null
check "--nccl-min-nchannels 24 lifts 8 nodes' bus bandwidth by the spec's line share over its channel cap" \
  python3 - "$work" "$(dirname "$0")/../../platforms/dgx-h100.toml" <<'PY'
import json, re, sys
w = sys.argv[1]
spec = open(sys.argv[2]).read()
line = float(re.search(r"^nccl_efficiency = ([0-9.]+)", spec, re.M).group(1))
channel = float(re.search(r"^nccl_channel_GBps = ([0-9.]+)", spec, re.M).group(1))
two, three, one, one_x = (json.load(open(f"{w}/{n}.json"))[0] for n in ("ch16", "ch24", "ch1", "ch1x"))
# At 4 GiB the NICs set the pace: the ratio is min(line, 3 x channel / 50) / min(line, 2 x channel / 50).
expected = min(line, 3 * channel / 50) / min(line, 2 * channel / 50)
assert expected > 1.05, expected
assert abs(three["busbw_GBps"] / two["busbw_GBps"] - expected) <= 0.03 * expected, (two, three, expected)
assert one["time_us"] == one_x["time_us"], (one, one_x)
PY
expect_error "no channels" "--nccl-min-nchannels: must be 1 to 64, got 0" \
  collective all_reduce --nccl-min-nchannels 0 -b 1M -e 1M
expect_error "more channels than NCCL has" "--nccl-min-nchannels: must be 1 to 64, got 65" \
  run --nccl-min-nchannels 65
# NCCL_P2P_NET_CHUNKSIZE: an all-to-all across DGX B300 nodes (800 Gb/s NICs) moves one 128 KiB chunk per
# the proxy's 2.9 us each way per GPU, not the line (cost/nccl_p2p_proxy.h); a 512 KiB chunk (the most
# NCCL's default 4 MiB buffer holds in 8 steps) lifts it to the line; asking for more stays at 512 KiB.
for chunk in 131072 524288 2097152; do
  "$simtrain" collective alltoall --platform dgx-b300 --nodes 4 -b 4G -e 4G --nccl-p2p-net-chunksize $chunk \
    --json "$work/a2a$chunk.json" >/dev/null
done
check "all-to-all across B300 nodes at the proxy's chunk rate until the chunk is large enough" \
  python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
small, large, clamped = (json.load(open(f"{w}/a2a{c}.json"))[0] for c in (131072, 524288, 2097152))
# 32 ranks on 4 nodes: a GPU sends 24/32 of its buffer off its node; algbw = size / time.
off_node = lambda row: row["algbw_GBps"] * 24 / 32
assert abs(off_node(small) - 131072 / 2.9e-6 / 1e9) <= 0.03 * 45.2, small
assert off_node(large) > 1.8 * off_node(small) and off_node(large) <= 100, (small, large)
assert clamped["time_us"] == large["time_us"], (large, clamped)
PY
expect_error "a point-to-point chunk of no size" "--nccl-p2p-net-chunksize: must be 16 bytes to 1 GiB, got 0" \
  collective alltoall --nccl-p2p-net-chunksize 0 -b 1M -e 1M
# sendrecv as nccl-tests' sendrecv_perf runs it: each rank sends its whole buffer to the next rank (count =
# size / element), busbw = algbw; at a node boundary the pair moves through one GPU's 400G NIC (2 nodes: 4
# of NCCL's 14 GB/s point-to-point channels exceed it) or one channel (10 nodes: NCCL halves them to 1).
"$simtrain" collective sendrecv --platform dgx-h100 --nodes 2 -b 1G -e 1G --json "$work/sr2.json" >"$work/sr2.txt"
"$simtrain" collective sendrecv --platform dgx-h100 --nodes 10 -b 1G -e 1G --json "$work/sr10.json" >/dev/null
check "sendrecv: busbw = algbw, the NIC share on 2 nodes, 14 GB/s on 10, a sendrecv_perf header" \
  python3 - "$work" <<'PY'
import json, sys
two, ten = (json.load(open(f"{sys.argv[1]}/sr{n}.json"))[0] for n in (2, 10))
for r in (two, ten):
    assert r["op"] == "sendrecv" and r["busbw_GBps"] == r["algbw_GBps"] and r["algorithm"] == "", r
    assert r["count"] == r["size_bytes"] / 4 and r["redop"] == "none", r
assert 40 < two["busbw_GBps"] <= 50 and two["ranks"] == 16, two
assert abs(ten["busbw_GBps"] - 14) <= 0.02 * 14, ten
assert "sendrecv_perf" in open(f"{sys.argv[1]}/sr2.txt").read()
PY
expect_error "unknown collective" "unknown collective 'allreduce'" collective allreduce
expect_error "sendrecv's collectives listed" "alltoall, broadcast, reduce, sendrecv)" collective send_recv
expect_error "bad size" "-b: unknown size suffix" collective all_reduce -b 1X2
expect_error "not a size" "-e: expected a size" collective all_reduce -e lots
expect_error "an infinite size" "-b/-e: need 1 <= min <= max bytes, finite" collective all_reduce -e inf
expect_error "one GPU" "--gpus: a collective needs at least 2 GPUs" collective all_reduce --gpus 1
expect_error "step factor" "-f: the size factor must be at least 2" collective all_reduce -f 1

# A run on part of every node (nccl-tests' 1 GPU per node): each GPU keeps its own NIC, and NCCL's ring
# search gives a lone 400G NIC four channels, which reach its line share (0.98 of 50 GB/s on dgx-h100).
"$simtrain" collective all_reduce --platform dgx-h100 --nodes 10 --gpus-per-node 1 -b 1G -e 1G \
  --json "$work/g1.json" >"$work/g1.txt"
check "10 nodes x 1 GPU: 10 ranks, one per node, at the NIC's line share" python3 - "$work/g1.json" "$work/g1.txt" <<'PY'
import json, re, sys
row = json.load(open(sys.argv[1]))[0]
assert 47.0 <= row["busbw_GBps"] <= 49.0, row
ranks = [line for line in open(sys.argv[2]) if re.match(r"#\s+Rank\s+\d+", line)]
assert len(ranks) == 10 and len({re.search(r" on\s+(\S+)", line).group(1) for line in ranks}) == 10, ranks
PY
expect_error "part of a PCIe node" "--gpus-per-node 2: platform 'pcie-v100' is not an NVSwitch node, whose GPUs could be used in part" \
  collective all_reduce --platform pcie-v100 --nodes 2 --gpus-per-node 2 -b 1M -e 1M

# PAT (NCCL 2.23 on): all-gathers over one GPU per node, small ones, where NCCL's tuner ranks its log-depth
# latency first; the ring at 1 GiB; none in NCCL 2.22; forced at any size.
"$simtrain" collective all_gather --platform dgx-h100 --nodes 64 --gpus-per-node 1 -b 64K -e 1G -f 16384 \
  --json "$work/pat.json" >/dev/null
"$simtrain" collective all_gather --platform dgx-h100 --nodes 64 --gpus-per-node 1 -b 64K -e 64K \
  --nccl-version 2.22 --json "$work/pat222.json" >/dev/null
"$simtrain" collective all_gather --platform dgx-h100 --nodes 64 --gpus-per-node 1 -b 1G -e 1G \
  --nccl-algo pat --json "$work/patforced.json" >/dev/null
check "64 nodes x 1 GPU: PAT at 64 KiB, over twice as fast as 2.22's ring; ring at 1 GiB; forced PAT at 1 GiB slower" \
  python3 - "$work" <<'PY'
import json, sys
pat = json.load(open(sys.argv[1] + "/pat.json"))
old = json.load(open(sys.argv[1] + "/pat222.json"))[0]
forced = json.load(open(sys.argv[1] + "/patforced.json"))[0]
assert [r["algorithm"] for r in pat] == ["pat", "ring"], pat
assert old["algorithm"] == "ring" and old["time_us"] > 2 * pat[0]["time_us"], (old, pat[0])
assert forced["algorithm"] == "pat" and forced["time_us"] > pat[1]["time_us"], (forced, pat[1])
PY
expect_error "PAT before NCCL 2.23" "--nccl-algo pat: NCCL runs PAT from 2.23 on, not in NCCL 2.22" \
  collective all_gather --nccl-algo pat --nccl-version 2.22

# CollNet (SHARP) where the switches reduce and the run enables it: a large all-reduce over 8 SuperPOD nodes
# sends each node's buffer up once, so its bus bandwidth beats the NVLS-tree / ring choice without it.
"$simtrain" collective all_reduce --platform dgx-h100-superpod --nodes 8 -b 1G -e 1G --json "$work/nosharp.json" >/dev/null
"$simtrain" collective all_reduce --platform dgx-h100-superpod --nodes 8 -b 1G -e 1G --nccl-collnet-enable \
  --json "$work/sharp.json" >/dev/null
check "SHARP on 8 SuperPOD nodes: an in-network algorithm at 1 GiB, faster than without CollNet" \
  python3 - "$work" <<'PY'
import json, sys
off = json.load(open(sys.argv[1] + "/nosharp.json"))[0]
on = json.load(open(sys.argv[1] + "/sharp.json"))[0]
assert off["algorithm"] in ("ring", "tree", "nvlstree"), off
assert on["algorithm"] in ("nvls", "collnetdirect", "collnetchain"), on
assert on["busbw_GBps"] > 1.3 * off["busbw_GBps"], (on, off)
PY
expect_error "CollNet where the switches do not reduce" \
  "--nccl-collnet-enable: this platform's network does not reduce in its switches" \
  collective all_reduce --platform dgx-h100 --nodes 2 --nccl-collnet-enable -b 1M -e 1M
expect_error "a CollNet algorithm without CollNet" "--nccl-algo collnetdirect: CollNet runs only where it is enabled" \
  collective all_reduce --platform dgx-h100-superpod --nodes 2 --nccl-algo collnetdirect -b 1M -e 1M

finish
