#!/usr/bin/env python3
"""Measures what micro-batch extrapolation (simulator/run/micro_batch_extrapolation.h) costs in accuracy and
saves in CPU time and memory: every row of the Megatron validations (Selene, tools/validate_megatron.py, and
Megatron-Bridge, tools/validate_megatron_bridge.py) whose step is long enough to be extrapolated is run twice,
as `simtrain run` does by default and with --simulate-every-micro-batch, and the iteration times, CPU
seconds and peak memory are printed side by side. Rows that are not extrapolated (too few micro-batches) or that simtrain
cannot express are skipped.

Exit status 1 when an extrapolated iteration time differs from the full replay's by more than --max-error
percent.
usage: tools/check_micro_batch_extrapolation.py [--simtrain PATH] [--suite selene|bridge ...] [--systems dgx-gb200 ...]
                                                [--max-error 1]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import validate_megatron as selene
import validate_megatron_bridge as bridge

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "validation", "reference", "training")


def selene_rows():
    import csv
    with open(os.path.join(REFERENCE, "megatron_a100_selene.csv")) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    for row in rows:
        yield f"selene {row['model']} {row['n_gpus']} GPUs tp{row['tp']} pp{row['pp']}", \
            [*selene.run_args(row), "--allow-oom"]


def bridge_rows(systems=None):
    _, _, configs = bridge.parse(os.path.join(REFERENCE, "nemo_megatron_bridge_pretrain_perf.csv"))
    if systems:
        configs = [r for r in configs if bridge.PLATFORMS[r["System"]] in systems]
    configs.sort(key=lambda r: (r["System"], bridge.family(r["base_model"]), r["label"], r["Precision"]))
    for row in configs:
        if bridge.layout_options(row) is None:
            continue
        yield (f"{bridge.PLATFORMS[row['System']]} {row['label'][:24]} {row['Precision'] or 'FP8-CS'} "
               f"{row['n_GPUs']} GPUs"), bridge.run_args(row)


def run(simtrain, args, out):
    """The run's Result (None when it failed), and its CPU seconds (user + system, the extrapolated run's
    forked replay included: it is reaped by simtrain) and peak RSS in MiB (of the larger process)."""
    proc = subprocess.Popen([simtrain, "run", *args, "--json", out], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cost = (usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
    if proc.returncode != 0:
        return None, cost
    with open(out) as f:
        return json.load(f), cost


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(HERE, "..", "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--suite", nargs="*", choices=["selene", "bridge"], default=["selene", "bridge"])
    parser.add_argument("--max-error", type=float, default=1.0, help="percent")
    parser.add_argument("--systems", nargs="*", help="only these Megatron-Bridge systems (dgx-gb200 ...)")
    args = parser.parse_args()

    rows = [*(selene_rows() if "selene" in args.suite else []), *(bridge_rows(args.systems) if "bridge" in args.suite else [])]
    print(f"{'configuration':<52} {'mb':>4} {'sampled':>8} {'extrap s':>9} {'full s':>9} {'error':>8} "
          f"{'CPU s':>7} {'MiB':>5} {'full CPU s':>10} {'MiB':>5}")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, run_args in rows:
            fast, (fast_cpu, fast_mib) = run(args.simtrain, run_args, os.path.join(tmp, "fast.json"))
            if fast is None or "micro_batches" not in fast["fidelity"]:
                continue
            full, (full_cpu, full_mib) = run(args.simtrain, [*run_args, "--simulate-every-micro-batch"],
                                             os.path.join(tmp, "full.json"))
            sampled = fast["fidelity"]["micro_batches"].split(" of ")[0].replace(" and ", "+")
            micro_batches = fast["fidelity"]["micro_batches"].split("step's ")[1].split()[0]
            error = (fast["iteration_time_s"] / full["iteration_time_s"] - 1) * 100
            worst = max(worst, abs(error))
            print(f"{name[:52]:<52} {micro_batches:>4} {sampled:>8} {fast['iteration_time_s']:>9.4f} "
                  f"{full['iteration_time_s']:>9.4f} {error:>+7.3f}% {fast_cpu:>7.1f} {fast_mib:>5.0f} "
                  f"{full_cpu:>10.1f} {full_mib:>5.0f}",
                  flush=True)
    print(f"\nworst |error| {worst:.3f}% (limit {args.max_error}%)")
    sys.exit(0 if worst <= args.max_error else 1)


if __name__ == "__main__":
    main()
