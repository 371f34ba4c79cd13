#!/usr/bin/env python3
"""Replays every nccl-tests table of validation/reference/nccl/ (multinode/ included) with `simtrain collective`
on platform specs written from the measured systems' hardware facts, and prints predicted vs measured bus
bandwidth: per table, the mean absolute percentage error of busbw for sizes of 1 MiB and more (and, for
information, its median, which one outlier row of a published log does not move), and the worst time error
for sizes under 64 KiB (n/a for a table without such sizes).

Calibration discipline (docs/DESIGN.md §3): a figure fitted to these tables is fitted per hardware generation,
never per table, and scored by leave-one-table-out. Each FIT_GROUPS entry names one spec key (one figure of
one NIC or NVSwitch generation) and the tables of systems of that generation; for every table T of the group
the figure is fitted on the group's other counted tables (the grid value of least mean busbw MAPE) and T is
predicted with it. The printed MAPE of such a table is that cross-validated one; the fitted value is shown.
Tables outside every group use their specs' figures as shipped (fitted elsewhere, said so in the spec).

A table whose rows span several GPU counts is replayed once per count, one detail line each, and judged on
all its rows together. Tables marked not counted (a cluster its reporter calls underperforming) are printed but
neither fitted on nor judged.

Each table is held to its GUARDS entry (the figures it reaches now, rounded up: a regression fails the run)
and compared with the issue's targets (--max-mape, --max-small-error; "meets" / "misses target").
Exit status 1 when a table misses its guard, 2 on other failures.
usage: tools/validate_nccl.py [--simtrain PATH] [--reference DIR] [--max-mape 10] [--max-small-error 25]
                              [--only NAME-PART] [--verbose] [--no-fit] [-j JOBS]
"""
import argparse
import concurrent.futures
import csv
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field


@dataclass
class Table:
    """One published table and how to replay it."""
    name: str  # file name under the reference directory
    platform: str  # spec name, or a file under platforms/
    # (table nodes, GPUs, simtrain nodes[, GPUs used per node]): the table's rows of that node and GPU count,
    # replayed on that many simtrain nodes (an NVLink domain is one simtrain node: a GB200 rack's 16 hosts are
    # one). With a fourth figure the run used that many GPUs of each node, each with its own NICs
    # (`simtrain collective --gpus-per-node`).
    runs: list
    operation: str = "all_reduce"
    forced: list = field(default_factory=list)  # NCCL_ALGO, NCCL_PROTO, NCCL_BUFFSIZE the run set
    counted: bool = True
    why_not_counted: str = ""
    collective_column: str = ""  # for tables mixing collectives: the `collective` column's value


M = "multinode/"
V228, V229 = ["--nccl-version", "2.28"], ["--nccl-version", "2.29"]
GB300 = M + "oci_gb300_1to32node4gpu_scaling_allreduce_alltoall.csv"
GB300_RUNS = [(1, 4, 1), (2, 8, 1), (16, 64, 1), (32, 128, 2)]
TABLES = [
    Table("azure_nda100v4_8xA100_1node_allreduce.csv", "dgx-a100", [(1, 8, 1)]),
    # Azure's script runs every algorithm by name and publishes the NVLS run (github Azure/AI-benchmarking-guide,
    # Benchmarks/NCCLBandwidth.py), so small sizes were NVLS too.
    Table("azure_ndh100v5_8xH100_1node_allreduce_nvls.csv", "dgx-h100", [(1, 8, 1)], forced=["--nccl-algo", "nvls"]),
    Table("azure_ndh200v5_8xH200_1node_allreduce_nvls.csv", "hgx-h200", [(1, 8, 1)], forced=["--nccl-algo", "nvls"]),
    # AWS's sbatch sets NCCL_BUFFSIZE=8388608 (the table's header).
    Table("aws_p4de_a100_2node16gpu_efa_allreduce.csv", "aws-p4de", [(2, 16, 2)],
          forced=["--nccl-buffsize", "8388608"]),
    # DeepBench's P100 PCIe boxes with NCCL 2.0, which had rings only (trees came with NCCL 2.4).
    Table("deepbench_p100_pcie_allreduce.csv", "pcie-p100", [(1, 2, 1), (1, 4, 1), (1, 8, 1), (2, 16, 2)],
          forced=["--nccl-algo", "ring"]),
    # H100 with 8 x 400 Gb/s ConnectX-7 InfiniBand per node (nccl-tests#309). NCCL_MIN_CTAS=24 is simtrain's
    # --nccl-min-nchannels 24, NCCL_ALGO=Ring its --nccl-algo ring; NCCL_IB_QPS_PER_CONNECTION has no
    # counterpart (the runs set it together with MIN_CTAS, so the tables cannot tell the two apart).
    Table(M + "anonib400_h100_2node8gpu_all_reduce.csv", "dgx-h100", [(2, 16, 2)]),
    Table(M + "anonib400_h100_2node8gpu_all_reduce_ring_minctas24_qps2.csv", "dgx-h100", [(2, 16, 2)],
          forced=["--nccl-algo", "ring", "--nccl-min-nchannels", "24"]),
    Table(M + "anonib400_h100_4node8gpu_all_reduce.csv", "dgx-h100", [(4, 32, 4)]),
    Table(M + "anonib400_h100_8node8gpu_all_reduce.csv", "dgx-h100", [(8, 64, 8)]),
    Table(M + "anonib400_h100_8node8gpu_all_reduce_minctas24_qps2.csv", "dgx-h100", [(8, 64, 8)],
          forced=["--nccl-min-nchannels", "24"]),
    # The NCCL release where the table's header gives it (the tuner's constants differ between releases).
    Table(M + "dellxe9680_h100_2node8gpu_all_reduce.csv", "dgx-h100", [(2, 16, 2)],
          forced=["--nccl-version", "2.26"]),
    Table(M + "dellxe9680vm_h100_4node8gpu_all_reduce.csv", "dgx-h100", [(4, 32, 4)],
          forced=["--nccl-version", "2.26"]),
    # One 400 Gb/s NIC per GPU is the table header's inference (its G=1 runs peak near 49 GB/s).
    Table(M + "anoncluster01_h100_10node8gpu_all_reduce.csv", "dgx-h100", [(10, 80, 10)], forced=V229),
    Table(M + "anoncluster01_h100_10node8gpu_all_gather.csv", "dgx-h100", [(10, 80, 10)], forced=V229,
          operation="all_gather"),
    Table(M + "anoncluster01_h100_10node8gpu_reduce_scatter.csv", "dgx-h100", [(10, 80, 10)], forced=V229,
          operation="reduce_scatter"),
    Table(M + "anoncluster01_h100_10node8gpu_alltoall.csv", "dgx-h100", [(10, 80, 10)], forced=V229,
          operation="alltoall"),
    Table(M + "anoncluster01_h100_10node8gpu_sendrecv.csv", "dgx-h100", [(10, 80, 10)], forced=V229,
          operation="sendrecv"),
    # The same nodes running 1, 2 and 4 of their GPUs (10, 20, 40 ranks), each GPU with its own NIC.
    *[Table(M + f"anoncluster01_h100_10node1to4gpu_{operation}.csv", "dgx-h100",
            [(10, 10, 10, 1), (10, 20, 10, 2), (10, 40, 10, 4)], forced=V229, operation=operation)
      for operation in ("all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv")],
    Table(M + "anonroce_h100_128node8gpu_all_reduce_ring_ll128.csv", "hgx-h100-roce", [(128, 1024, 128)],
          forced=["--nccl-algo", "ring", "--nccl-proto", "ll128", "--nccl-min-nchannels", "32"]),
    # The reporter opened nccl-tests#290 because this cluster underperforms; reported, not counted.
    Table(M + "issue290ndr_h100_2node8gpu_all_reduce.csv", "dgx-h100", [(2, 16, 2)], counted=False,
          why_not_counted="underperforming cluster (nccl-tests#290)"),
    Table(M + "issue290ndr_h100_2node8gpu_all_reduce_ring.csv", "dgx-h100", [(2, 16, 2)],
          forced=["--nccl-algo", "ring"], counted=False, why_not_counted="underperforming cluster (nccl-tests#290)"),
    # AWS p5 with EFA v2 (32 x 100 Gb/s per node) at 2 to 32 nodes, the run's NCCL 2.28 and its buffer and
    # point-to-point chunk settings; aws-ofi-nccl's tuner plugin chose the algorithms (the spec's nics.nccl_tuner_plugin).
    *[Table(M + f"aws_p5_h100_2to32node8gpu_efa_{operation}.csv", "aws-p5",
            [(n, 8 * n, n) for n in (2, 4, 8, 16, 32)], operation=operation,
            forced=V228 + ["--nccl-buffsize", "8388608", "--nccl-p2p-net-chunksize", "524288"])
      for operation in ("all_reduce", "all_gather", "alltoall")],
    Table(M + "oci_gb200_32node4gpu_all_reduce.csv", "oci-gb200-nvl72", [(32, 128, 2)], forced=V229),
    Table(GB300, "oci-gb300-nvl72", GB300_RUNS, collective_column="all_reduce_perf", forced=V228),
    Table(GB300, "oci-gb300-nvl72", GB300_RUNS, operation="alltoall", collective_column="alltoall_perf",
          forced=V228),
]


@dataclass
class FitGroup:
    """The figures of one hardware generation, fitted together by leave-one-table-out over its tables."""
    label: str
    params: list  # (spec table, key, grid of values) of each figure; the fit searches their product
    tables: list  # (name, operation) of the tables of systems of this generation

    def values(self):
        return list(itertools.product(*(grid for _, _, grid in self.params)))

    def describe(self, value):
        return ", ".join(f"{section}.{key} = {v}" for (section, key, _), v in zip(self.params, value))


# ConnectX-7 at 400 Gb/s (InfiniBand NDR or RoCE) under H100 nodes: what NCCL's rings and trees reach of the
# NICs, and apart from them what its point-to-point operations (all-to-all, sendrecv) reach.
POINT_TO_POINT = ("alltoall", "sendrecv")
NDR400_TABLES = [(t.name, t.operation) for t in TABLES
                 if t.platform in ("dgx-h100", "hgx-h100-roce") and t.name.startswith(M)
                 and t.operation not in POINT_TO_POINT]
NDR400_P2P_TABLES = [(t.name, t.operation) for t in TABLES
                     if t.platform in ("dgx-h100", "hgx-h100-roce") and t.name.startswith(M)
                     and t.operation in POINT_TO_POINT]
# NVLink 5 NVSwitch trays (GB200/GB300 NVL72): what NVLS reaches of the NVLink bandwidth, for all-reduce.
NVLINK5_NVLS_TABLES = [(t.name, t.operation) for t in TABLES
                       if t.platform.startswith("oci-gb") and t.operation == "all_reduce"]
# The NIC generation's figures: what NCCL reaches of the NICs' line rate with channels enough, what one NCCL
# channel moves at most (cost/nccl_channels.h: the default's two channels per NIC fall short of the line,
# the MIN_CTAS runs' three or four do not), and NCCL's own network post overhead (NCCL_NET_OVERHEAD; its
# default is 1 us on Intel hosts, 2 us on AMD ones), which sets a multi-node ring's cost per step. The
# overhead's grid is where an earlier, wider search (2-7 us) landed. Point-to-point operations have their own
# figure and tables: the time NCCL's network proxy takes per 128 KiB point-to-point chunk
# (cost/nccl_p2p_proxy.h), which caps all-to-all and sendrecv below the rings' share of the line; a host
# figure, so the fitted value is simtrain's default for every spec (kNcclP2pProxyChunkDefault_s).
FIT_GROUPS = [
    FitGroup("ConnectX-7 400G (H100 nodes)",
             [("nics", "nccl_efficiency", [round(0.90 + 0.02 * i, 2) for i in range(6)]),
              ("nics", "nccl_channel_GBps", [round(19.0 + 0.5 * i, 1) for i in range(7)]),
              ("nics", "nccl_net_overhead_us", [5.0, 6.0, 7.0])], NDR400_TABLES),
    FitGroup("NCCL proxy per point-to-point chunk (x86 hosts, H100 nodes)",
             [("nics", "nccl_p2p_chunk_us", [round(2.5 + 0.05 * i, 2) for i in range(21)])],
             NDR400_P2P_TABLES),
    FitGroup("NVLink 5 NVSwitch (GB200/GB300 NVL72)",
             [("intra_node", "nvls_efficiency", [round(0.40 + 0.02 * i, 2) for i in range(21)])],
             NVLINK5_NVLS_TABLES),
]

# The figures each table reaches now, rounded up (cross-validated where fitted): (busbw MAPE >= 1 MiB, worst
# |time error| < 64 KiB). Not the targets: the targets are 10% and 25% for every table.
GUARDS = {
    ("multinode/anonib400_h100_2node8gpu_all_reduce.csv", "all_reduce"): (6, 25),
    ("multinode/anonib400_h100_2node8gpu_all_reduce_ring_minctas24_qps2.csv", "all_reduce"): (16, 25),
    ("multinode/anonib400_h100_4node8gpu_all_reduce.csv", "all_reduce"): (11, 25),
    ("multinode/anonib400_h100_8node8gpu_all_reduce.csv", "all_reduce"): (17, 25),
    ("multinode/anonib400_h100_8node8gpu_all_reduce_minctas24_qps2.csv", "all_reduce"): (34, 25),
    ("multinode/dellxe9680_h100_2node8gpu_all_reduce.csv", "all_reduce"): (7, 18),
    ("multinode/dellxe9680vm_h100_4node8gpu_all_reduce.csv", "all_reduce"): (12, 12),
    ("multinode/anoncluster01_h100_10node8gpu_all_reduce.csv", "all_reduce"): (18, 25),
    ("multinode/anoncluster01_h100_10node8gpu_all_gather.csv", "all_gather"): (9, 25),
    ("multinode/anoncluster01_h100_10node8gpu_reduce_scatter.csv", "reduce_scatter"): (9, 25),
    ("multinode/anoncluster01_h100_10node8gpu_sendrecv.csv", "sendrecv"): (8, 25),
    ("multinode/anoncluster01_h100_10node1to4gpu_sendrecv.csv", "sendrecv"): (11, 25),
    ("multinode/anonroce_h100_128node8gpu_all_reduce_ring_ll128.csv", "all_reduce"): (8, 25),
    # AWS p5 over EFA v2: nothing fitted to it (the EFA figures are aws-p4de's; README, "Collectives").
    ("multinode/aws_p5_h100_2to32node8gpu_efa_all_reduce.csv", "all_reduce"): (9, 25),
    ("multinode/aws_p5_h100_2to32node8gpu_efa_all_gather.csv", "all_gather"): (8, 25),
    ("multinode/aws_p5_h100_2to32node8gpu_efa_alltoall.csv", "alltoall"): (17, 25),
    ("multinode/oci_gb200_32node4gpu_all_reduce.csv", "all_reduce"): (19, 13),
    ("multinode/oci_gb300_1to32node4gpu_scaling_allreduce_alltoall.csv", "all_reduce"): (6, 25),
    # The two-rack rows: 178.6 GB/s of bus bandwidth against the 47.6 OCI measured (+275%; README).
    ("multinode/oci_gb300_1to32node4gpu_scaling_allreduce_alltoall.csv", "alltoall"): (75, 25),
}
DEFAULT_GUARD = (10.0, 25.0)


def table_key(table):
    return (table.name, table.operation)


def read_table(path, table, nodes, gpus):
    """(size, time_us, busbw) rows of one run: of a table with n_ranks/nodes (or nodes/gpus) columns, only those.
    A row's time is the faster of its out-of-place and in-place timings."""
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    out = []
    for r in rows:
        if "n_ranks" in r and (int(r["n_ranks"]) != gpus or int(r["nodes"]) != nodes):
            continue
        if "gpus" in r and (int(r["gpus"]) != gpus or int(r["nodes"]) != nodes):
            continue
        if table.collective_column and r.get("collective") != table.collective_column:
            continue
        time_us, busbw = float(r["time_us"]), float(r["busbw_GBps"])
        if (r.get("ip_time_us") or "").strip() and 0 < float(r["ip_time_us"]) < time_us:
            # nccl-tests times every size twice, out of place and in place, each an average of its
            # iterations; interference only ever slows one down, so the faster is the collective's time.
            busbw *= time_us / float(r["ip_time_us"])
            time_us = float(r["ip_time_us"])
        out.append((float(r["size_bytes"]), time_us, busbw))
    return out


def spec_with(path, section, key, value, tmp):
    """A copy of the spec at `path` with `section.key = value` set (replaced or added), as a file in tmp."""
    with open(path) as f:
        lines = f.read().split("\n")
    out, current, done = [], None, False
    for line in lines:
        header = re.match(r"^\[(\w+)\]", line)
        if header:
            if current == section and not done:
                out.append(f"{key} = {value}")
                done = True
            current = header.group(1)
        elif current == section and re.match(rf"^{key}\s*=", line):
            line, done = f"{key} = {value}", True
        out.append(line)
    if not done:
        out.append(f"{key} = {value}")
    name = os.path.join(tmp, f"{os.path.basename(path)[:-5]}-{section}-{key}-{value}.toml")
    with open(name, "w") as f:
        f.write("\n".join(out))
    return name


def is_doubling(sizes):
    return all(b == 2 * a for a, b in zip(sizes, sizes[1:]))


def simulate(simtrain, platform, operation, nodes, gpus, sizes, forced, tmp):
    """{size: row} from `simtrain collective`: one sweep when the sizes double, else one run per size."""
    sizes = sorted(set(sizes))
    sweeps = [(sizes[0], sizes[-1])] if is_doubling(sizes) else [(size, size) for size in sizes]
    rows = {}
    out = os.path.join(tempfile.mkdtemp(dir=tmp), "c.json")  # one per call: the fit runs calls in parallel
    for low, high in sweeps:
        args = [simtrain, "collective", operation, "--platform", platform, "--nodes", str(nodes), "--gpus",
                str(gpus), "-b", str(int(low)), "-e", str(int(high)), "-f", "2", "--json", out, *forced]
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: {proc.stderr.strip()}")
        with open(out) as f:
            rows.update({row["size_bytes"]: row for row in json.load(f)})
    return rows


@dataclass
class Score:
    """A table's errors: busbw |%| errors for sizes >= 1 MiB, signed time % errors under 64 KiB, per run."""
    large: list
    small: list
    runs: list  # (label, large, small, detail lines)

    def mape(self):
        return sum(self.large) / len(self.large) if self.large else float("nan")

    def worst_small(self):
        return max(self.small, key=abs) if self.small else None

    def median_large(self):
        """The median busbw |error|: a table's typical error, which one outlier row does not move."""
        ordered = sorted(self.large)
        return (ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2 if ordered else float("nan")


def score(table, args, platform, tmp):
    large, small, runs = [], [], []
    for table_nodes, gpus, nodes, *used_per_node in table.runs:
        rows = read_table(os.path.join(args.reference, table.name), table, table_nodes, gpus)
        forced = table.forced + (["--gpus-per-node", str(used_per_node[0])] if used_per_node else [])
        predicted = simulate(args.simtrain, platform, table.operation, nodes, gpus, [s for s, _, _ in rows],
                             forced, tmp)
        run_large, run_small, detail = [], [], []
        for size, time_us, busbw in rows:
            p = predicted.get(size)
            if p is None:
                continue
            detail.append(f"  {size:>12.0f} B  time {time_us:10.2f} / {p['time_us']:10.2f} us   "
                          f"busbw {busbw:8.2f} / {p['busbw_GBps']:8.2f} GB/s  {p['algorithm']}/{p['protocol']}")
            if size >= 1 << 20 and busbw > 0:
                run_large.append(abs(p["busbw_GBps"] - busbw) / busbw * 100)
            if size < 1 << 16:
                run_small.append((p["time_us"] - time_us) / time_us * 100)
        large += run_large
        small += run_small
        runs.append((f"{table_nodes} nodes, {gpus} GPUs", run_large, run_small, detail))
    return Score(large, small, runs)


def platform_path(args, platform):
    local = os.path.join(args.platforms, platform + ".toml")
    return local if os.path.exists(local) else platform


def cross_validate(group, tables, args, tmp):
    """{table key: (fitted value, Score)}: each table predicted with the figure fitted on the others."""
    members = [t for t in tables if table_key(t) in group.tables and t.counted]

    def score_with(t, value):
        work = tempfile.mkdtemp(dir=tmp)  # each task its own spec files
        spec = os.path.join(args.platforms, t.platform + ".toml")
        for (section, key, _), v in zip(group.params, value):
            spec = spec_with(spec, section, key, v, work)
        return score(t, args, spec, work)

    tasks = [(t, value) for t in members for value in group.values()]
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(lambda task: score_with(*task), tasks))
    scores = {(table_key(t), value): s for (t, value), s in zip(tasks, results)}  # (table key, value) -> Score
    out = {}
    for t in members:
        others = [o for o in members if o is not t]
        if not others:
            continue

        def loss(value):
            return sum(scores[(table_key(o), value)].mape() for o in others) / len(others)

        best = min(group.values(), key=loss)
        out[table_key(t)] = (best, scores[(table_key(t), best)])
    everything = min(group.values(), key=lambda v: sum(scores[(table_key(o), v)].mape() for o in members))
    return out, everything


def print_line(label, s, guard, targets, note=""):
    """Prints one table's line; with a guard, returns whether it misses it."""
    mape, worst = s.mape(), s.worst_small()
    small_text = f"{worst:+10.1f}%" if worst is not None else f"{'n/a':>11}"
    verdict = ""
    miss = False
    if guard is not None:
        miss = not s.large or mape > guard[0] or (worst is not None and abs(worst) > guard[1])
        meets = s.large and mape <= targets.max_mape and (worst is None or abs(worst) <= targets.max_small_error)
        verdict = ("  BELOW GUARD" if miss else "") + ("  meets target" if meets else "  misses target")
    print(f"{label:<78} {mape:7.1f}% {s.median_large():7.1f}% {small_text}{verdict}{note}")
    return miss


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(here, "..", "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--reference", default=os.path.join(here, "..", "validation", "reference", "nccl"))
    parser.add_argument("--platforms", default=os.path.join(here, "..", "platforms"))
    parser.add_argument("--max-mape", type=float, default=10.0)
    parser.add_argument("--max-small-error", type=float, default=25.0)
    parser.add_argument("--verbose", action="store_true", help="print every size")
    parser.add_argument("--only", help="print only the tables whose file name contains this (a fitted figure "
                        "is still fitted on its group's other tables, so the figures are the full run's)")
    parser.add_argument("--no-fit", action="store_true", help="use the shipped specs' figures, fit nothing")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="simulations run at once while fitting (default: one per CPU)")
    args = parser.parse_args()
    tables = [t for t in TABLES if not args.only or args.only in t.name]
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        fitted = {}
        if not args.no_fit:
            for group in FIT_GROUPS:
                if not any(table_key(t) in group.tables for t in tables):
                    continue
                try:
                    # Fitted on every table of the group, --only or not: a table's cross-validated figure is
                    # the same whether it is replayed alone or with the others.
                    cv, everything = cross_validate(group, TABLES, args, tmp)
                except RuntimeError as error:
                    print(error, file=sys.stderr)
                    return 2
                fitted.update({k: (group.describe(v), s) for k, (v, s) in cv.items()})
                print(f"fit {group.label}: {group.describe(everything)} on all its tables; "
                      f"leave-one-table-out values below")
        print(f"{'table (platform)':<78} {'MAPE':>8} {'median':>8} {'worst <64K':>11}   (busbw errors for sizes "
              f">= 1 MiB)")
        for t in tables:
            label = f"{t.name} {t.operation} ({t.platform})"
            note = ""
            if table_key(t) in fitted:
                value, s = fitted[table_key(t)]
                note = f"  [cross-validated, fitted {value}]"
            else:
                try:
                    s = score(t, args, platform_path(args, t.platform), tmp)
                except RuntimeError as error:
                    print(error, file=sys.stderr)
                    return 2
            if not t.counted:
                print_line(label, s, None, args, f"  not counted: {t.why_not_counted}")
            else:
                guard = GUARDS.get(table_key(t), DEFAULT_GUARD)
                failed = print_line(label, s, guard, args, note) or failed
            # The table's own lines under it: each GPU count's errors, then (--verbose) every size.
            if len(s.runs) > 1:
                for run_label, large, small, _ in s.runs:
                    print_line(f"  {run_label}", Score(large, small, []), None, args)
            if args.verbose:
                for _, _, _, detail in s.runs:
                    print("\n".join(detail))
    print(f"targets: busbw MAPE <= {args.max_mape:g}% for sizes >= 1 MiB, time within "
          f"{args.max_small_error:g}% for sizes < 64 KiB; guards: the figures reached now (GUARDS)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
