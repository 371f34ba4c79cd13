#!/usr/bin/env python3
"""Predicts torchtitan's published Llama 3.1 benchmarks, which no simtrain figure was fitted to, and prints
predicted vs measured tokens/s per GPU and memory, and the gains each technique brings against the table's:
- validation/reference/training/torchtitan_llama3_h100_202412.csv (the torchtitan team, end of 2024: FSDP2,
  context parallelism and FSDP + TP on H100, with and without torch.compile, torchao's Float8 and async TP);
- validation/reference/training/torchtitan_llama3_h200_202506.csv (Trainy, June 2025: FSDP2 with compile and
  Float8 on 32 and 64 H200).

Each row runs as a torchtitan job file written from the row (`simtrain run --torchtitan-config`; the 8B
rows' selective checkpointing by operator, as torchtitan's Llama 3 8B preset sets it), with simtrain's
torchtitan defaults (PyTorch SDPA's FlashAttention-2 on Hopper), on the hardware each source describes: for
the H100 tables H100s with 96 GB of HBM2e at 2.4 TB/s at a 500 W power limit (a spec profile derived from
h100-sxm5's, the rest unchanged), eight per host on NVLink, 400 Gb/s of RDMA per GPU (`hgx-h100-roce`); for
the H200 one `hgx-h200` (400 Gb/s per GPU) with the spec profile as it is.

Exit status 1 when a gain is off by more than its guard (GAINS), the throughput MAPE exceeds --max-mape or
the peak memory's MAPE --max-memory-mape (guards of today's figures, rounded up), 2 when simtrain fails.
usage: tools/validate_torchtitan.py [--simtrain PATH] [--reference CSV ...] [--max-mape 16]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
HOST = os.path.join(ROOT, "calibration", "hosts", "h200-run-a.json")

# The source's GPU: an H100 with 96 GB of HBM2e at 2.4 TB/s, at a 500 W power limit.
MEMORY_BYTES = 96 * 2**30
MEMORY_BANDWIDTH_BPS = 2.4e12
POWER_LIMIT_W = 500

# The gains the tables measure: (label, the row with the technique, the row without, by CSV row index; the
# guard: how many points the predicted gain may be off, today's figure rounded up). torch.compile's is the
# check of simtrain's eager pointwise kernels (ParallelConfig::eager_pointwise); Float8's and async TP's are
# reported as they stand (README, "torchtitan on H100").
GAINS = [
    ("Table 1: torch.compile", 1, 0, 4.0), ("Table 1: Float8 on top", 2, 1, 7.0),
    ("Table 3: torch.compile", 8, 7, 4.0), ("Table 3: Float8 on top", 9, 8, 7.0),
    ("Table 4: async TP", 11, 10, 12.5),
]


def job_file(row):
    """A torchtitan job file (the [parallelism] schema) for the row."""
    return "\n".join([
        "[model]", 'name = "llama3"', f'flavor = "{row["model"].split("-")[1].upper()}"',
        "[training]", f"batch_size = {row['local_batch']}", f"seq_len = {row['seq_len']}", "steps = 100",
        f"compile = {row['compile']}",
        "[parallelism]", "data_parallel_replicate_degree = 1", f"data_parallel_shard_degree = {row['fsdp']}",
        f"tensor_parallel_degree = {row['tp']}", "pipeline_parallel_degree = 1",
        f"context_parallel_degree = {row['cp']}", f"enable_async_tensor_parallel = {row['async_tp']}",
        "[activation_checkpoint]", f'mode = "{row["activation_checkpoint"]}"',
        # torchtitan's Llama 3 8B preset checkpoints selectively by operator (train_configs/llama3_8b.toml).
        'selective_ac_option = "op"',
        "[float8]", f"enable_float8_linear = {row['float8']}", ""])


def hbm2e_profile(simtrain, path):
    shown = subprocess.run([simtrain, "profile", "show", "h100-sxm5", "--json"], capture_output=True, text=True)
    if shown.returncode != 0:
        sys.exit(f"simtrain profile show failed: {shown.stderr.strip()}")
    profile = json.loads(shown.stdout)
    profile["device"]["name"] = "H100-SXM5-96GB-HBM2e"
    profile["device"]["memory_bytes"] = MEMORY_BYTES
    profile["device"]["memory_bandwidth_Bps"] = MEMORY_BANDWIDTH_BPS
    profile["device"]["power_limit_w"] = POWER_LIMIT_W
    with open(path, "w") as f:
        json.dump(profile, f)


def predict(simtrain, row, profile, tmp, index):
    job = os.path.join(tmp, f"job{index}.toml")
    with open(job, "w") as f:
        f.write(job_file(row))
    out = os.path.join(tmp, f"row{index}.json")
    hardware = ["--platform", "hgx-h200"] if row["table"] == "H200" else \
        ["--platform", "hgx-h100-roce", "--profile", profile]
    cmd = [simtrain, "run", "--gpus", row["gpus"], *hardware, "--torchtitan-config", job, "--host", HOST,
           "--allow-oom", "--json", out]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        print(f"simtrain failed on row {index}: {lines[-1] if lines else proc.returncode}")
        sys.exit(2)
    with open(out) as f:
        result = json.load(f)
    tokens = int(row["local_batch"]) * int(row["seq_len"]) * int(row["fsdp"])  # per step, all replicas
    return tokens / (result["iteration_time_s"] * int(row["gpus"])), result["peak_memory_bytes"] / 2**30


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(ROOT, "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--reference", nargs="+", default=[
        os.path.join(ROOT, "validation", "reference", "training", name)
        for name in ("torchtitan_llama3_h100_202412.csv", "torchtitan_llama3_h200_202506.csv")])
    parser.add_argument("--max-mape", type=float, default=16.0, help="tokens/s per GPU, percent")
    parser.add_argument("--max-memory-mape", type=float, default=14.0,
                        help="peak memory per GPU against the tables' (PyTorch's maximum reserved), percent")
    args = parser.parse_args()

    rows = []
    for path in args.reference:
        with open(path) as f:
            rows += list(csv.DictReader(line for line in f if not line.startswith("#")))
    print(f"{'table':>5} {'configuration':<58} {'measured':>9} {'predicted':>9} {'error':>7} "
          f"{'memory GiB':>10} {'predicted':>9}")
    predicted = []
    errors = []
    memory_errors = []
    with tempfile.TemporaryDirectory() as tmp:
        profile = os.path.join(tmp, "h100-96gb.json")
        hbm2e_profile(args.simtrain, profile)
        for i, row in enumerate(rows):
            tps, memory = predict(args.simtrain, row, profile, tmp, i)
            predicted.append(tps)
            measured = float(row["tokens_per_s_per_gpu"])
            error = (tps - measured) / measured * 100
            errors.append(error)
            memory_errors.append((memory - float(row["memory_gib"])) / float(row["memory_gib"]) * 100)
            techniques = [name for name, key in (("compile", "compile"), ("float8", "float8"),
                                                 ("async TP", "async_tp")) if row[key] == "true"]
            label = (f"{row['model']} {row['gpus']} GPUs fsdp{row['fsdp']} tp{row['tp']} cp{row['cp']} "
                     f"seq {row['seq_len']} {row['activation_checkpoint']} AC {'+'.join(techniques) or 'eager'}")
            print(f"{row['table']:>5} {label:<58} {measured:>9.0f} {tps:>9.0f} {error:>+6.1f}% "
                  f"{float(row['memory_gib']):>10.1f} {memory:>9.1f}", flush=True)

    mape = sum(abs(e) for e in errors) / len(errors)
    print(f"\n{len(rows)} rows: tokens/s per GPU MAPE {mape:.1f}% (guard {args.max_mape:.0f}%), mean error "
          f"{sum(errors) / len(errors):+.1f}%")
    memory_mape = sum(abs(e) for e in memory_errors) / len(memory_errors)
    print(f"peak memory per GPU against the reported maximum reserved: MAPE {memory_mape:.1f}% (guard "
          f"{args.max_memory_mape:.0f}%), mean error {sum(memory_errors) / len(memory_errors):+.1f}%")
    print("\ngains (throughput with the technique / without), measured against predicted:")
    failed = mape > args.max_mape or memory_mape > args.max_memory_mape
    for label, with_row, without_row, guard in GAINS:
        measured = float(rows[with_row]["tokens_per_s_per_gpu"]) / float(rows[without_row]["tokens_per_s_per_gpu"])
        gain = predicted[with_row] / predicted[without_row]
        off = (gain - measured) * 100
        failed |= abs(off) > guard
        print(f"  {label:<26} measured x{measured:.3f}  predicted x{gain:.3f}  ({off:+.1f} points; guard {guard})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
