#!/usr/bin/env python3
"""Compares the kernels simtrain's generator launches for a stock PyTorch step with the kernels a Kineto
trace of that step recorded, class by class (gemm, elementwise, layer_norm, attention, ...).

For each configuration of traces/pytorch/h200_steps.json: `simtrain trace import` turns the recorded Kineto
trace into a native trace, whose GPU ops carry the class the importer gave each kernel
(simulator/trace/kernel_class.h); `simtrain trace` writes the generated trace for the same model, batch,
precision and optimizer on one GPU. Host ops and collectives are not kernels and are not counted.

Prints, per configuration, the counts per class and the error of the total; with --max-total-error, exits 1
when a configuration's total kernel count is further than that (percent) from the trace's, and with
--max-class-error when a class holding at least 5% of the trace's kernels is. Exit 2 on other failures.
usage: tools/compare_kernel_classes.py [--simtrain PATH] [--steps JSON] [--only NAME]
"""
import argparse
import collections
import json
import os
import shlex
import subprocess
import sys
import tempfile


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {proc.stderr.strip()}")


def kernel_classes(path):
    """Kernels per class in a native trace: compute ops that are not host work, over every program."""
    with open(path) as f:
        trace = json.load(f)
    counts = collections.Counter()
    for program in trace["programs"]:
        for op in program["ops"]:
            if op["type"] == "compute" and op["kind"] != "host":
                counts[op["kind"]] += 1
    return counts


def workload_args(row, root):
    args = shlex.split(row["simtrain"])
    return [os.path.join(root, "models", a) if a.endswith(".toml") else a for a in args]


def compare(simtrain, row, root, tmp):
    recorded = os.path.join(tmp, "recorded.json")
    generated = os.path.join(tmp, "generated.json")
    run([simtrain, "trace", "import", os.path.join(root, "traces", "pytorch", row["kineto_trace"]),
         "-o", recorded])
    run([simtrain, "trace", "--gpus", "1", *workload_args(row, root), "-o", generated])
    return kernel_classes(recorded), kernel_classes(generated)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, ".."))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(root, "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--steps", default=os.path.join(root, "traces", "pytorch", "h200_steps.json"))
    parser.add_argument("--only", help="one configuration, by name")
    parser.add_argument("--max-total-error", type=float)
    parser.add_argument("--max-class-error", type=float)
    args = parser.parse_args()

    with open(args.steps) as f:
        rows = json.load(f)["runs"]
    failed = False
    worst_total = worst_class = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            if args.only and row["name"] != args.only:
                continue
            try:
                recorded, generated = compare(args.simtrain, row, root, tmp)
            except RuntimeError as error:
                print(error, file=sys.stderr)
                return 2
            total_r, total_g = sum(recorded.values()), sum(generated.values())
            total_error = 100 * (total_g - total_r) / total_r
            worst_total = max(worst_total, abs(total_error))
            print(f"{row['name']}: {total_r} kernels traced, {total_g} generated ({total_error:+.0f}%)")
            for kind in sorted(set(recorded) | set(generated), key=lambda k: -recorded.get(k, 0)):
                r, g = recorded.get(kind, 0), generated.get(kind, 0)
                note = ""
                if r >= 0.05 * total_r:
                    error = 100 * (g - r) / r
                    worst_class = max(worst_class, abs(error))
                    note = f"{error:+6.0f}%"
                    if args.max_class_error is not None and abs(error) > args.max_class_error:
                        failed, note = True, note + f"  beyond {args.max_class_error:g}%"
                print(f"  {kind:<14} {r:6d} {g:6d} {note}")
            if args.max_total_error is not None and abs(total_error) > args.max_total_error:
                failed = True
                print(f"  total beyond {args.max_total_error:g}%")
    print(f"worst total error {worst_total:.0f}%, worst error of a class with 5% of the kernels {worst_class:.0f}%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
