#!/usr/bin/env python3
"""Replays the nccl-tests tables of validation/reference/nccl/ with `simtrain collective` on platform specs that
describe the measured systems, and prints predicted vs measured bus bandwidth per size: the mean absolute
percentage error of busbw for sizes of 1 MiB and more, and the worst time error for sizes under 64 KiB (n/a
for a table without such sizes). A table whose rows span several GPU counts (n_ranks and nodes columns) is
replayed once per count, one line each for detail, and judged on all its rows together (the targets are
per table).

Exit status 1 when a table misses --max-mape (large sizes) or --max-small-error (small sizes), 2 on other
failures.
usage: tools/validate_nccl.py [--simtrain PATH] [--reference DIR] [--max-mape 10] [--max-small-error 25]
                              [--only NAME-PART] [--verbose]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

# Each table: the platform spec that describes its system, and the (nodes, GPUs) it ran on.
TABLES = {
    "azure_nda100v4_8xA100_1node_allreduce.csv": ("dgx-a100", [(1, 8)]),
    "azure_ndh100v5_8xH100_1node_allreduce_nvls.csv": ("dgx-h100", [(1, 8)]),
    "azure_ndh200v5_8xH200_1node_allreduce_nvls.csv": ("hgx-h200", [(1, 8)]),
    "aws_p4de_a100_2node16gpu_efa_allreduce.csv": ("aws-p4de", [(2, 16)]),
    # DeepBench's P100 PCIe boxes with NCCL 2.0 (and, for some 16-GPU rows, OSU or Baidu's own ring).
    "deepbench_p100_pcie_allreduce.csv": ("pcie-p100", [(1, 2), (1, 4), (1, 8), (2, 16)]),
}
# What each benchmark set that simtrain takes as options. Azure's script runs every algorithm by name and
# publishes the NVLS run (github Azure/AI-benchmarking-guide, Benchmarks/NCCLBandwidth.py), so small sizes
# were NVLS too. AWS's sbatch sets NCCL_BUFFSIZE=8388608 (the table's header). NCCL 2.0, DeepBench's, had
# rings only (trees came with NCCL 2.4).
FORCED = {
    "azure_ndh100v5_8xH100_1node_allreduce_nvls.csv": ["--nccl-algo", "nvls"],
    "azure_ndh200v5_8xH200_1node_allreduce_nvls.csv": ["--nccl-algo", "nvls"],
    "aws_p4de_a100_2node16gpu_efa_allreduce.csv": ["--nccl-buffsize", "8388608"],
    "deepbench_p100_pcie_allreduce.csv": ["--nccl-algo", "ring"],
}


def read_table(path, nodes, gpus):
    """(size, time_us, busbw) rows; of a table with n_ranks and nodes columns, only those of this run."""
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return [(float(r["size_bytes"]), float(r["time_us"]), float(r["busbw_GBps"])) for r in rows
            if "n_ranks" not in r or (int(r["n_ranks"]) == gpus and int(r["nodes"]) == nodes)]


def is_doubling(sizes):
    return all(b == 2 * a for a, b in zip(sizes, sizes[1:]))


def simulate(simtrain, platform, nodes, gpus, sizes, forced=()):
    """{size: row} from `simtrain collective`: one sweep when the sizes double, else one run per size."""
    sizes = sorted(set(sizes))
    sweeps = [(sizes[0], sizes[-1])] if is_doubling(sizes) else [(size, size) for size in sizes]
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "c.json")
        for low, high in sweeps:
            args = [simtrain, "collective", "all_reduce", "--platform", platform, "--nodes", str(nodes),
                    "--gpus", str(gpus), "-b", str(int(low)), "-e", str(int(high)), "-f", "2", "--json", out,
                    *forced]
            proc = subprocess.run(args, capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(f"{' '.join(args)}: {proc.stderr.strip()}")
            with open(out) as f:
                rows.update({row["size_bytes"]: row for row in json.load(f)})
    return rows


def print_line(label, large, small, targets):
    """Prints one line of results; with `targets`, judges it and returns whether it misses them."""
    mape = sum(large) / len(large) if large else float("nan")
    worst = max(small, key=abs) if small else None
    # A table none of whose large sizes were simulated is a miss, not a pass (NaN compares false); one without
    # small sizes is judged on its large ones.
    miss = targets is not None and (not large or mape > targets.max_mape or
                                    (worst is not None and abs(worst) > targets.max_small_error))
    small_text = f"{worst:+26.1f}%" if worst is not None else f"{'n/a':>27}"
    verdict = "" if targets is None else "  MISSES" if miss else "  meets"
    print(f"{label:<64} {mape:19.1f}% {small_text}{verdict}")
    return miss


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(here, "..", "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--reference", default=os.path.join(here, "..", "validation", "reference", "nccl"))
    parser.add_argument("--max-mape", type=float, default=10.0)
    parser.add_argument("--max-small-error", type=float, default=25.0)
    parser.add_argument("--verbose", action="store_true", help="print every size")
    parser.add_argument("--only", help="replay only the tables whose file name contains this")
    args = parser.parse_args()
    failed = False
    print(f"{'table':<64} {'busbw MAPE >= 1 MiB':>20} {'worst time error < 64 KiB':>27}")
    for name, (platform, runs) in TABLES.items():
        if args.only and args.only not in name:
            continue
        table_large, table_small = [], []
        for nodes, gpus in runs:
            table = read_table(os.path.join(args.reference, name), nodes, gpus)
            try:
                predicted = simulate(args.simtrain, platform, nodes, gpus, [s for s, _, _ in table],
                                     FORCED.get(name, ()))
            except RuntimeError as error:
                print(error, file=sys.stderr)
                return 2
            large, small = [], []
            for size, time_us, busbw in table:
                p = predicted.get(size)
                if p is None:
                    continue
                if args.verbose:
                    print(f"  {size:>12.0f} B  time {time_us:10.2f} / {p['time_us']:10.2f} us   "
                          f"busbw {busbw:8.2f} / {p['busbw_GBps']:8.2f} GB/s")
                if size >= 1 << 20 and busbw > 0:
                    large.append(abs(p["busbw_GBps"] - busbw) / busbw * 100)
                if size < 1 << 16:
                    small.append((p["time_us"] - time_us) / time_us * 100)
            table_large += large
            table_small += small
            if len(runs) > 1:
                # One line per GPU count, for detail; the table is judged on all its rows together below.
                print_line(f"{name} ({platform}, {gpus} GPUs)", large, small, None)
        label = f"{name} ({platform}, all rows)" if len(runs) > 1 else f"{name} ({platform})"
        failed = print_line(label, table_large, table_small, args) or failed
    print(f"targets: busbw MAPE <= {args.max_mape:g}% for sizes >= 1 MiB, time within "
          f"{args.max_small_error:g}% for sizes < 64 KiB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
