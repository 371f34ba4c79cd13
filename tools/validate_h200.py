#!/usr/bin/env python3
"""Predicts the PyTorch training steps timed on an H200 (calibration/profiles/h200-sxm.pytorch-steps.json,
made by tools/pytorch_step_time.py) from the profile simtrain-calibrate measured on the same card
(calibration/profiles/h200-sxm.json), and prints measured vs predicted step time and the error of each row.

Rows in PyTorch's default NCHW layout are shown but not checked: the profile measures 16-bit convolutions
channels-last (NHWC), as cuDNN runs them fastest, and cuDNN's NCHW path adds layout conversions the simulator
does not model.

Exit status 1 when a checked row's error exceeds --max-row-error percent, 2 on other failures.
usage: tools/validate_h200.py [--simtrain PATH] [--steps JSON] [--profile JSON] [--max-row-error 25]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def simulate(simtrain, profile, run, root):
    args = ["run", "--gpus", "1", "--platform", "hgx-h200", "--profile", profile, "--precision", run["precision"],
            "--batch-per-gpu", str(run["batch"])]
    model = run["model"]
    args += ["--model", os.path.join(root, model) if model.endswith(".toml") else model]
    if "seq_len" in run:
        args += ["--seq-len", str(run["seq_len"])]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        proc = subprocess.run([simtrain, *args, "--json", out], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"simtrain {' '.join(args)}: {proc.stderr.strip()}")
        with open(out) as f:
            return json.load(f)["iteration_time_s"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.join(here, "..")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(root, "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--steps", default=os.path.join(root, "calibration", "profiles",
                                                        "h200-sxm.pytorch-steps.json"))
    parser.add_argument("--profile", default=os.path.join(root, "calibration", "profiles", "h200-sxm.json"))
    parser.add_argument("--max-row-error", type=float, default=25.0)
    args = parser.parse_args()

    with open(args.steps) as f:
        steps = json.load(f)
    print(f"{steps['gpu']}, PyTorch {steps['torch']}, cuDNN {steps['cudnn']}, measured {steps['date']}")
    print(f"{'configuration':<42} {'measured ms':>12} {'predicted ms':>13} {'error':>8}")
    worst, checked, failed = 0.0, 0, False
    for run in steps["runs"]:
        if "model" not in run or "median_s" not in run:
            continue  # kernel micro-benchmarks and failed runs
        try:
            predicted = simulate(args.simtrain, args.profile, run, root)
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 2
        error = 100 * (predicted - run["median_s"]) / run["median_s"]
        note = ""
        if run.get("layout") == "nchw":
            note = "  (not checked: NCHW layout)"
        else:
            checked += 1
            worst = max(worst, abs(error))
            if abs(error) > args.max_row_error:
                failed = True
                note = f"  beyond {args.max_row_error:g}%"
        print(f"{run['name']:<42} {run['median_s'] * 1e3:12.2f} {predicted * 1e3:13.2f} {error:+7.1f}%{note}")
    print(f"\n{checked} rows checked: worst error {worst:.1f}%; allowed {args.max_row_error:g}%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
