#!/usr/bin/env python3
"""Predicts every row of validation/reference/training/megatron_a100_selene.csv (Megatron-LM on Selene: the SC21
paper's achieved TFLOP/s per GPU for GPT models of 1.7B to 1T parameters, and Korthikanti et al.'s iteration
times with and without sequence parallelism and selective recomputation) and prints predicted vs measured.

Exit status 1 when the MAPE exceeds --max-mape or a row is worse than --max-row-error.
usage: tools/validate_megatron.py [--simtrain PATH] [--reference CSV] [--max-mape 10] [--max-row-error 20]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

# Zoo keys of the table's models.
MODELS = {
    "GPT-1.7B": "megatron-gpt-1.7b", "GPT-3.6B": "megatron-gpt-3.6b", "GPT-7.5B": "megatron-gpt-7.5b",
    "GPT-18B": "megatron-gpt-18b", "GPT-39B": "megatron-gpt-39b", "GPT-76B": "megatron-gpt-76b",
    "GPT-145B": "megatron-gpt-145b", "GPT-310B": "megatron-gpt-310b", "GPT-530B": "megatron-gpt-530b",
    "GPT-1T": "megatron-gpt-1t", "Megatron-22B": "megatron-22b", "GPT-3 175B": "gpt3-175b",
    "MT-NLG 530B": "mt-nlg-530b", "Megatron-1T": "megatron-1t",
}


# The SC21 rows' settings that the table leaves out, from the scripts that produced Table 1 (NVIDIA/Megatron-LM
# examples/sc21/run_table_1.sh): micro-batch size, layers per virtual pipeline stage (interleaved schedule)
# and the data-parallel implementation ("torch": PyTorch DDP, which reduces gradient buckets under the last
# micro-batch's backward; "local": Megatron's own, which all-reduces after the backward pass).
SC21_RUNS = {  # model: (micro-batch, layers per virtual stage or None, DDP implementation)
    "GPT-1.7B": (16, None, "torch"), "GPT-3.6B": (16, None, "torch"), "GPT-7.5B": (16, None, "torch"),
    "GPT-18B": (8, None, "torch"), "GPT-39B": (4, None, "local"), "GPT-76B": (2, 5, "local"),
    "GPT-145B": (2, 5, "local"), "GPT-310B": (1, 3, "local"), "GPT-530B": (1, 1, "local"),
    "GPT-1T": (1, None, "local"),
}


def paper_flops_per_iteration(row):
    """The SC21 paper's count of FLOPs per iteration, recomputation included: 96 B s l h^2 (1 + s/6h + V/16lh)."""
    b, s = float(row["global_batch_seqs"]), float(row["seq_len"])
    l, h, v = float(row["n_layers"]), float(row["hidden"]), float(row["vocab"])
    return 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))


def run_args(row):
    args = ["--model", MODELS[row["model"]], "--gpus", row["n_gpus"], "--platform", "dgx-a100",
            "--tp", row["tp"], "--pp", row["pp"], "--global-batch", row["global_batch_seqs"],
            "--seq-len", row["seq_len"], "--precision", "amp",
            # Megatron-LM of 2021-22 had no fused (flash) attention kernel, and its interleaved schedule
            # blocked on pipeline sends (overlapped p2p communication came in 2023).
            "--attention", "unfused", "--no-overlap-p2p-communication"]
    micro_batch, vpp, ddp = row["micro_batch"], row["vpp"], None
    if row["source_id"] == "megatron_sc21_table1":
        mbs, layers_per_virtual_stage, ddp = SC21_RUNS[row["model"]]
        micro_batch = str(mbs)
        if layers_per_virtual_stage:
            vpp = str(int(row["n_layers"]) // (int(row["pp"]) * layers_per_virtual_stage))
        # Megatron-LM as of the SC21 paper (spring 2021): the backward's tensor-parallel all-reduce blocked
        # (the asynchronous one came in late 2021) and weight gradients were accumulated by a separate add.
        args += ["--no-async-tensor-model-parallel-allreduce", "--no-gradient-accumulation-fusion"]
    else:
        # Korthikanti et al.'s code (spring 2022, megatron/mpu/layers.py with sequence parallelism): the
        # weight-gradient GEMM returns a 16-bit gradient that the DDP hook adds into main_grad, and the
        # local DDP all-reduces (here: nothing, dp = 1) after the backward pass.
        args += ["--no-gradient-accumulation-fusion"]
        ddp = "local"
    if ddp == "local":
        args += ["--no-overlap-grad-reduce"]
    if micro_batch:
        args += ["--micro-batch", micro_batch]
    if vpp and int(vpp) > 1:
        args += ["--vpp", vpp]
    recompute = row["act_recompute"]
    if "selective" in recompute:
        args += ["--recompute", "selective"]
    elif "full" in recompute:
        args += ["--recompute", "full"]
    if "sequence parallel" in recompute:
        args += ["--sp"]
    return args


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(here, "..", "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--reference", default=os.path.join(
        here, "..", "validation", "reference", "training", "megatron_a100_selene.csv"))
    parser.add_argument("--max-mape", type=float, default=10.0)
    parser.add_argument("--max-row-error", type=float, default=20.0)
    parser.add_argument("--args", default="", help="further `simtrain run` options for every row, as one string "
                                                   "(e.g. \"--fidelity fast\")")
    args = parser.parse_args()

    with open(args.reference) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    print(f"{'source':<22} {'model':<12} {'GPUs':>5} {'tp':>3} {'pp':>3} {'recompute':<36} "
          f"{'metric':<22} {'measured':>9} {'predicted':>9} {'error':>7} {'sim s':>6}")
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            out = os.path.join(tmp, "r.json")
            cmd = [args.simtrain, "run", *run_args(row), *args.args.split(), "--json", out, "--allow-oom"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"{row['source_id']:<22} {row['model']:<12}: simtrain failed: {proc.stderr.strip()}")
                sys.exit(2)
            with open(out) as f:
                result = json.load(f)
            t = result["iteration_time_s"]
            measured = float(row["value"])
            if row["measured_metric"] == "achieved_tflops_per_gpu":
                predicted = paper_flops_per_iteration(row) / (t * int(row["n_gpus"])) / 1e12
            else:
                predicted = t
            error = (predicted - measured) / measured * 100
            errors.append(abs(error))
            print(f"{row['source_id']:<22} {row['model']:<12} {row['n_gpus']:>5} {row['tp']:>3} {row['pp']:>3} "
                  f"{row['act_recompute'][:36]:<36} {row['measured_metric']:<22} {measured:>9.2f} "
                  f"{predicted:>9.2f} {error:>+6.1f}% {result['sim_wall_s']:>6.2f}", flush=True)
    mape = sum(errors) / len(errors)
    print(f"\n{len(errors)} rows: MAPE {mape:.1f}% (target {args.max_mape:.0f}%), worst row {max(errors):.1f}% "
          f"(target {args.max_row_error:.0f}%)")
    sys.exit(0 if mape <= args.max_mape and max(errors) <= args.max_row_error else 1)


if __name__ == "__main__":
    main()
