#!/usr/bin/env python3
"""Simulation speed and memory at several scales: runs `simtrain run` once per scale (one process each, so
peak RSS is the child's own) and prints GPUs, wall seconds, peak RSS, simulated iteration time and flows.
With --collective OP it runs `simtrain collective OP` at one size instead and prints the simulated time.

usage: tools/benchmark.py [--simtrain build/simulator/cli/simtrain] [--model resnet50] [--gpus 8,64,...]
                          [--args "--batch-per-gpu 256 --precision amp"]
       tools/benchmark.py --collective all_reduce|alltoall|... [--size 1G] --platform dgx-h100 --gpus ...
       tools/benchmark.py --trace FILE --platform hgx-h200 --gpus 1,8,1024   # a recorded trace, imported
                                                                            # and scaled out as DDP each run
e.g.   tools/benchmark.py --model gpt3-175b --gpus 64,1024,10752 \
           --args "--tp 8 --pp 8 --micro-batch 1 --global-batch 1536 --recompute full --allow-oom"
       tools/benchmark.py --collective all_reduce --platform dgx-h100 --gpus 1024,4096,16384
       tools/benchmark.py --mlperf-gpt3    # GPT-3 175B TP4 PP8 VPP12 FP8 on DGX H100, 512 to 10,752 GPUs,
                                           # full and fast fidelity side by side (issue 16's table)
"""
import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time


def run_once(cmd_head, out_flag="--json"):
    """Runs cmd_head + [out_flag, FILE] in a fresh child; returns (wall s, peak RSS bytes, parsed JSON)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [*cmd_head, out_flag, out]
        # Each run in a fresh child: wait4 gives that child's own peak RSS.
        started = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - started
        if status != 0:
            sys.exit(f"benchmark: {' '.join(cmd)} failed: {proc.stderr.read().decode().strip()}")
        with open(out) as f:
            result = json.load(f)
    last_run_cpu_s[0] = usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss * 1024, result


# The child's CPU time (user + system) of the latest run_once(): on a loaded machine wall time measures the
# load as much as simtrain, CPU time much less so.
last_run_cpu_s = [0.0]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=os.path.join(here, "..", "build", "simulator", "cli", "simtrain"))
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--platform", default="dgx-a100")
    parser.add_argument("--args", default="--batch-per-gpu 256 --precision amp",
                        help="further `simtrain run` options, as one string")
    parser.add_argument("--gpus", default="8,64,256,1024,4096")
    parser.add_argument("--micro-batches", type=int, default=0,
                        help="with --tp/--pp in --args: global batch = this many micro-batches per data-parallel "
                             "replica (--micro-batch 1), so that every scale runs the same pipeline schedule")
    parser.add_argument("--trace", help="replay this recorded trace (simtrain run --trace) instead of --model: "
                                          "each run imports it and scales it out to the row's GPUs")
    parser.add_argument("--collective", help="benchmark `simtrain collective` of this operation instead")
    parser.add_argument("--size", default="1G", help="with --collective: the buffer size (nccl-tests syntax)")
    parser.add_argument("--mlperf-gpt3", action="store_true",
                        help="the MLPerf-style GPT-3 175B plan (TP 4, PP 8, VPP 12, sequence parallelism, FP8, "
                             "distributed optimizer, micro-batch 1, global batch 2 x GPUs: 64 micro-batches per "
                             "pipeline at every scale) on dgx-h100, at full and fast fidelity; --gpus defaults "
                             "to 512,1024,2048,4096,8192,10752")
    args = parser.parse_args()
    if args.collective:
        return benchmark_collective(args)
    if args.mlperf_gpt3:
        return benchmark_mlperf_gpt3(args, parser.get_default("gpus"))

    if args.trace and args.args == parser.get_default("args"):
        args.args = ""
    workload = ["--trace", args.trace] if args.trace else ["--model", args.model]
    print(f"{args.trace or args.model} on {args.platform} with {args.args or 'no further options'}; "
          "one process per row")
    print(f"{'GPUs':>6} {'wall s':>8} {'sim s (in result)':>18} {'peak RSS MiB':>13} {'iteration ms':>13} {'flows':>8}")
    rows = []
    for gpus in (int(g) for g in args.gpus.split(",")):
        extra = args.args.split()
        if args.micro_batches:
            sizes = {name: int(extra[extra.index(name) + 1]) if name in extra else 1 for name in ("--tp", "--pp")}
            dp = gpus // (sizes["--tp"] * sizes["--pp"])
            extra += ["--global-batch", str(dp * args.micro_batches)]
        wall, rss, r = run_once([args.simtrain, "run", *workload, "--gpus", str(gpus), "--platform",
                                 args.platform, *extra])
        rows.append((gpus, wall))
        print(f"{gpus:>6} {wall:>8.2f} {r['sim_wall_s']:>18.3f} {rss / 2**20:>13.1f} "
              f"{r['iteration_time_s'] * 1e3:>13.2f} {r['simulated_flows']:>8}", flush=True)
    print_growth(rows)


def benchmark_collective(args):
    print(f"simtrain collective {args.collective} of {args.size} on {args.platform}; one process per row")
    print(f"{'GPUs':>6} {'wall s':>8} {'peak RSS MiB':>13} {'simulated us':>13} {'busbw GB/s':>11} algorithm")
    rows = []
    for gpus in (int(g) for g in args.gpus.split(",")):
        wall, rss, r = run_once([args.simtrain, "collective", args.collective, "--platform", args.platform,
                                 "--gpus", str(gpus), "-b", args.size, "-e", args.size])
        rows.append((gpus, wall))
        row = r[0]
        print(f"{gpus:>6} {wall:>8.2f} {rss / 2**20:>13.1f} {row['time_us']:>13.1f} {row['busbw_GBps']:>11.2f} "
              f"{row.get('algorithm') or '-'}", flush=True)
    print_growth(rows)


MLPERF_GPT3_ARGS = ["--model", "gpt3-175b", "--platform", "dgx-h100", "--tp", "4", "--pp", "8", "--vpp", "12",
                    "--sp", "--micro-batch", "1", "--precision", "fp8", "--distributed-optimizer"]


def benchmark_mlperf_gpt3(args, default_gpus):
    gpus_list = "512,1024,2048,4096,8192,10752" if args.gpus == default_gpus else args.gpus
    print("GPT-3 175B, TP 4, PP 8, VPP 12, SP, FP8, distributed optimizer, micro-batch 1, global batch 2 x GPUs, "
          "dgx-h100; one process per run")
    print(f"{'GPUs':>6} {'full wall s':>11} {'full CPU s':>10} {'full RSS MiB':>12} {'full iter s':>11} "
          f"{'fast wall s':>11} {'fast CPU s':>10} {'fast RSS MiB':>12} {'fast iter s':>11} {'fast-full':>9} "
          f"{'replicas (full)':<20}")
    rows = []
    for gpus in (int(g) for g in gpus_list.split(",")):
        head = [args.simtrain, "run", *MLPERF_GPT3_ARGS, "--gpus", str(gpus), "--global-batch", str(2 * gpus)]
        full_wall, full_rss, full = run_once(head)
        full_cpu = last_run_cpu_s[0]
        fast_wall, fast_rss, fast = run_once([*head, "--fidelity", "fast"])
        fast_cpu = last_run_cpu_s[0]
        rows.append((gpus, full_wall))
        t_full, t_fast = full["iteration_time_s"], fast["iteration_time_s"]
        replicas = full["fidelity"]["replicas"].split(" (")[0]
        print(f"{gpus:>6} {full_wall:>11.2f} {full_cpu:>10.2f} {full_rss / 2**20:>12.1f} {t_full:>11.4f} "
              f"{fast_wall:>11.2f} {fast_cpu:>10.2f} {fast_rss / 2**20:>12.1f} {t_fast:>11.4f} "
              f"{(t_fast - t_full) / t_full * 100:>+8.2f}% {replicas:<20}", flush=True)
    print_growth(rows)


def print_growth(rows):
    if len(rows) >= 2 and rows[-2][1] > 0:
        (g0, w0), (g1, w1) = rows[-2], rows[-1]
        print(f"growth exponent of wall time between {g0} and {g1} GPUs: {math.log(w1 / w0) / math.log(g1 / g0):.2f}")


if __name__ == "__main__":
    main()
