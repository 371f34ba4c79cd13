#!/usr/bin/env python3
"""Predicts the ResNet-50 and BERT-Large rows of NVIDIA's DeepLearningExamples throughput tables
(validation/reference/training/nvidia_dle_resnet50_bert_throughput.csv) with simtrain's spec profiles and prints
predicted vs published throughput and the error of each row, then the mean absolute percentage error.

Exit status 1 when the MAPE exceeds --max-mape (the target of the current calibration), 2 on other failures.
usage: tools/validate_dle.py [--simtrain PATH] [--reference CSV] [--max-mape 25]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

MODELS = {"ResNet-50 v1.5": "resnet50", "BERT-Large": "bert-large"}
# (platform, profile) per GPU of the table: the DGX systems the rows were measured on.
SYSTEMS = {
    "A100-SXM4-80GB": ("dgx-a100", None),
    "V100-SXM2-16GB": ("dgx-1-v100", None),
    "V100-SXM2-32GB": ("dgx-1-v100", "v100-sxm2-32gb"),
}
PRECISIONS = {"TF32": "tf32", "FP32": "fp32", "AMP": "amp", "AMP fp16": "amp"}


def global_batch(row):
    """The accumulated global batch NVIDIA's BERT recipes use: the table's notes give it per task."""
    seq = int(row["seq_len_or_resolution"])
    if row["task"] == "pretraining (LAMB)":
        return 8192 if seq == 128 else 4096
    if row["task"] == "pretraining multi-node scaling":
        return 65536 if seq == 128 else 32768
    return None


def rows_to_check(path):
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    for row in csv.DictReader(lines):
        if row["model"] not in MODELS or row["gpu"] not in SYSTEMS:
            continue
        if not row["batch_per_gpu"]:
            yield row, None, "batch per GPU not published"
            continue
        gpus, batch = int(row["n_gpus"]), int(row["batch_per_gpu"])
        accum = int(row["grad_accum"]) if row["grad_accum"] else 1
        if row["grad_accum"] == "" and global_batch(row):
            accum = max(1, -(-global_batch(row) // (gpus * batch)))
        platform, profile = SYSTEMS[row["gpu"]]
        args = ["--model", MODELS[row["model"]], "--gpus", str(gpus), "--platform", platform,
                "--batch-per-gpu", str(batch), "--grad-accum", str(accum),
                "--precision", PRECISIONS[row["precision"]]]
        if profile:
            args += ["--profile", profile]
        if row["model"] == "BERT-Large":
            args += ["--seq-len", row["seq_len_or_resolution"]]
        yield row, args, None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(here, "..", "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--reference", default=os.path.join(
        here, "..", "validation", "reference", "training", "nvidia_dle_resnet50_bert_throughput.csv"))
    parser.add_argument("--max-mape", type=float, default=25.0)
    args = parser.parse_args()

    errors, excluded_errors = [], []
    print(f"{'model':<10} {'task':<26} {'GPU':<15} {'GPUs':>4} {'prec':<8} {'batch':>5} {'seq':>4} "
          f"{'accum':>5} {'published':>10} {'predicted':>10} {'error':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for row, run_args, skipped in rows_to_check(args.reference):
            label = (f"{MODELS[row['model']]:<10} {row['task'][:26]:<26} {row['gpu']:<15} {row['n_gpus']:>4} "
                     f"{row['precision']:<8} {row['batch_per_gpu'] or '-':>5} {row['seq_len_or_resolution']:>4}")
            if skipped:
                print(f"{label} {'':>5} {row['throughput']:>10}    skipped: {skipped}")
                continue
            out = os.path.join(tmp, "r.json")
            proc = subprocess.run([args.simtrain, "run", *run_args, "--json", out], capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"{label}: simtrain failed: {proc.stderr.strip()}")
                sys.exit(2)
            with open(out) as f:
                predicted = json.load(f)["samples_per_s"]
            published = float(row["throughput"])
            error = (predicted - published) / published * 100
            # SQuAD fine-tuning rows: the reference file itself marks their sequence length as assumed, so
            # they are shown but kept out of the target's MAPE.
            (excluded_errors if "SQuAD" in row["task"] else errors).append(abs(error))
            accum = run_args[run_args.index("--grad-accum") + 1]
            print(f"{label} {accum:>5} {published:>10.1f} {predicted:>10.1f} {error:>+6.1f}%", flush=True)
    mape = sum(errors) / len(errors)
    print(f"\n{len(errors)} rows: mean absolute percentage error {mape:.1f}% "
          f"(worst {max(errors):.1f}%); target {args.max_mape:.0f}%")
    if excluded_errors:
        everything = errors + excluded_errors
        print(f"with the {len(excluded_errors)} SQuAD fine-tuning rows (sequence length assumed by the reference): "
              f"MAPE {sum(everything) / len(everything):.1f}%, worst {max(everything):.1f}%")
    sys.exit(0 if mape <= args.max_mape else 1)


if __name__ == "__main__":
    main()
