#!/usr/bin/env python3
"""Replays the seven real PyTorch steps of traces/pytorch/ (Kineto traces recorded on one H200) on one GPU of
hgx-h200 and compares each with its unprofiled median step time, in both measured runs (A and B,
traces/pytorch/README.md).

The host model (simulator/trace/host_dispatch.h) has one fitted figure, the unprofiled host time per second
of profiled host work. It is cross-validated per run: for each step, the figure is fitted (least squares in
log error) to the other six steps of the same run, and the held-out step is predicted with it. That
leave-one-out error is what this script reports and checks; the in-sample fit is never used for a verdict.

A step is GPU-bound when its kernels (as recorded) fill at least 80% of the measured step; the others are
host-bound. Exit status 1 when a GPU-bound step's leave-one-out error exceeds --gpu-bound-tolerance percent
or a host-bound one's exceeds --host-bound-tolerance, 2 on other failures.

With --scale-out it instead predicts each trace as PyTorch DDP and as FSDP on 8 GPUs of hgx-h200 and 1,024 GPUs of
dgx-h100, and the ResNet-50 and BERT-Large traces rescaled to A100s at 8 GPUs of dgx-a100 against NVIDIA's
DeepLearningExamples rows (validation/reference/training/nvidia_dle_resnet50_bert_throughput.csv); exit status
1 when the ResNet-50 row (the same configuration as the trace: AMP, batch 256, channels-last) is off by more
than --dle-tolerance percent. The BERT rows differ from the trace (sequence 128 or 512 against 256, LAMB
against AdamW, NVIDIA's fused kernels against Hugging Face's eager ones): they are printed, not checked.

usage: tools/validate_traces.py [--simtrain PATH] [--gpu-bound-tolerance 20] [--host-bound-tolerance 35]
       tools/validate_traces.py --scale-out [--dle-tolerance 25]
"""
import csv
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import h200_traces

# The unprofiled host speeds tried, relative to simtrain's default (--host-speed): wide enough to hold the
# best fit of either run, fine enough (3.5% steps) that the grid adds little to the error.
SPEEDS = [round(0.6 * 1.035 ** i, 4) for i in range(33)]


def run_table(root):
    """{name: (trace path, run A ms, run B ms)} from traces/pytorch/README.md and h200_steps.json."""
    directory = os.path.join(root, "traces", "pytorch")
    with open(os.path.join(directory, "h200_steps.json")) as f:
        steps = json.load(f)
    run_a = h200_traces.run_a_medians_ms()
    table = {}
    for run in steps["runs"]:
        table[run["name"]] = (os.path.join(directory, run["kineto_trace"]), run_a[run["name"]],
                              run["median_s"] * 1e3)
    return table


def run_json(simtrain, args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        proc = subprocess.run([simtrain, "run", *args, "--json", out], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"simtrain run {' '.join(args)}: {proc.stderr.strip()}")
        with open(out) as f:
            return json.load(f)


def dle_rows(root, model, precision, gpus):
    path = os.path.join(root, "validation", "reference", "training", "nvidia_dle_resnet50_bert_throughput.csv")
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    return [r for r in csv.DictReader(lines) if r["model"] == model and r["gpu"] == "A100-SXM4-80GB"
            and ("pretraining" in r["task"] or "ImageNet" in r["task"])
            and r["precision"].startswith(precision) and int(r["n_gpus"]) == gpus]


def scale_out(args, root, table):
    for label, extra in (("PyTorch DDP", []), ("PyTorch FSDP (full shard, units of 1e8 parameters)", ["--fsdp", "full"])):
        print(f"{label}:")
        print(f"  {'configuration':<42} {'1 GPU':>9} {'8x hgx-h200':>12} {'eff.':>5} {'1024x dgx-h100':>15} {'eff.':>5}")
        for name, (trace, _, _) in table.items():
            one = run_json(args.simtrain, ["--trace", trace, "--gpus", "1", "--platform", "hgx-h200"])
            eight = run_json(args.simtrain, ["--trace", trace, "--gpus", "8", "--platform", "hgx-h200"] + extra)
            many = run_json(args.simtrain, ["--trace", trace, "--gpus", "1024", "--platform", "dgx-h100"] + extra)
            h100 = run_json(args.simtrain, ["--trace", trace, "--gpus", "1", "--platform", "dgx-h100"])
            print(f"  {name:<42} {one['samples_per_s']:9.0f} {eight['samples_per_s']:12.0f} "
                  f"{eight['samples_per_s'] / (8 * one['samples_per_s']):5.2f} {many['samples_per_s']:15.0f} "
                  f"{many['samples_per_s'] / (1024 * h100['samples_per_s']):5.2f}")
    print("samples/s; eff. = throughput / (GPUs x one GPU of the same platform)")
    failed = False
    print(f"\nrescaled from the H200 to A100s, 8 GPUs of dgx-a100, against DeepLearningExamples:")
    for name, model, precision, checked in (("resnet50 b256 amp channels-last sgd", "ResNet-50 v1.5", "AMP", True),
                                            ("bert-large seq256 b32 amp adamw", "BERT-Large", "AMP", False)):
        r = run_json(args.simtrain, ["--trace", table[name][0], "--gpus", "8", "--platform", "dgx-a100"])
        for row in dle_rows(root, model, precision, 8):
            measured = float(row["throughput"])
            seq = row["seq_len_or_resolution"]
            error = 100 * (r["samples_per_s"] / measured - 1)
            verdict = ""
            if checked and abs(error) > args.dle_tolerance:
                verdict, failed = "  FAIL", True
            note = "" if checked else "  (other configuration: printed, not checked)"
            print(f"  {name:<38} predicted {r['samples_per_s']:8.0f}/s, DLE {row['batch_per_gpu']}/GPU "
                  f"{seq:>4} {measured:8.0f}/s: {error:+6.1f}%{verdict}{note}")
    return 1 if failed else 0


def simulate(simtrain, trace, speed):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        args = [simtrain, "run", "--trace", trace, "--gpus", "1", "--platform", "hgx-h200", "--profile",
                "h200-sxm", "--host-speed", str(speed), "--json", out]
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: {proc.stderr.strip()}")
        with open(out) as f:
            result = json.load(f)
    return result["iteration_time_s"] * 1e3, result["breakdown"]["compute_s"] * 1e3


def best_speed(predictions, measured, names):
    def loss(i):
        return sum(math.log(predictions[n][i] / measured[n]) ** 2 for n in names)
    return min(range(len(SPEEDS)), key=loss)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.join(here, "..")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(root, "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--scale-out", action="store_true")
    parser.add_argument("--dle-tolerance", type=float, default=25.0)
    parser.add_argument("--gpu-bound-tolerance", type=float, default=25.0)
    parser.add_argument("--host-bound-tolerance", type=float, default=35.0)
    args = parser.parse_args()

    table = run_table(root)
    if args.scale_out:
        try:
            return scale_out(args, root, table)
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 2
    predictions, gpu_ms = {}, {}
    try:
        for name, (trace, _, _) in table.items():
            predictions[name] = []
            for speed in SPEEDS:
                total, compute = simulate(args.simtrain, trace, speed)
                predictions[name].append(total)
            gpu_ms[name] = compute
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 2

    failed = False
    names = list(table)
    for column, label in ((1, "A"), (2, "B")):
        measured = {n: table[n][column] for n in names}
        fit = SPEEDS[best_speed(predictions, measured, names)]
        print(f"run {label}: host speed fitted to all seven steps {fit}x the default")
        print(f"  {'configuration':<42} {'bound':>5} {'measured':>9} {'LOO ms':>8} {'error':>7} {'speed':>6}")
        for n in names:
            i = best_speed(predictions, measured, [m for m in names if m != n])
            error = 100 * (predictions[n][i] / measured[n] - 1)
            gpu_bound = gpu_ms[n] >= 0.8 * measured[n]
            tolerance = args.gpu_bound_tolerance if gpu_bound else args.host_bound_tolerance
            verdict = "" if abs(error) <= tolerance else "  FAIL"
            failed |= bool(verdict)
            print(f"  {n:<42} {'GPU' if gpu_bound else 'host':>5} {measured[n]:9.1f} {predictions[n][i]:8.1f} "
                  f"{error:+6.1f}% {SPEEDS[i]:6.3f}{verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
