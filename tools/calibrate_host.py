#!/usr/bin/env python3
"""Calibrates a host profile (simulator/workload/host_profile.h) from timed eager PyTorch steps and their
Kineto traces: the CPU time per launched kernel of the machine that ran them.

A step is host-bound when its kernels keep the GPU busy for less than 80% of it (their summed durations in
the trace against the timed median): then the step time is the host's, spent launching the trace's kernels
one after another, and step time / kernels is the host's cost per kernel. The profile takes the median over
the host-bound steps; each step is also predicted with the median of the others (leave one out), and the
errors are printed and written into the profile's source.

The profile's launch_call_s is the launch call alone, what each further kernel costs that an operator's
C++ code launches in a loop (Transformer Engine's grouped GEMM, one per local expert): the median duration
of the traces' CUDA runtime and driver launch calls (cudaLaunchKernel, cuLaunchKernelEx and their kin), as
Kineto records them on the host thread.

To calibrate your own machine: time a few small-batch steps of your model (torch.cuda.Event around each,
median after warm-up), record one Kineto trace of the same step (torch.profiler, CUDA activity), list them
in a JSON file shaped like traces/pytorch/h200_steps.json, and run this tool with --steps on it.

usage: tools/calibrate_host.py --run a|b -o calibration/hosts/NAME.json [--steps JSON] [--simtrain PATH]
"""
import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile

import h200_traces as h200

LAUNCH_CALLS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx", "cudaLaunchCooperativeKernel",
                "cuLaunchKernel")


def launch_call_durations_s(path):
    """Durations of the CUDA launch calls a Kineto trace recorded on its host threads."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        events = json.load(f).get("traceEvents", [])
    return [e["dur"] * 1e-6 for e in events
            if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("name") in LAUNCH_CALLS]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=h200.SIMTRAIN)
    parser.add_argument("--steps", default=h200.STEPS)
    parser.add_argument("--run", choices=["a", "b"], default="b",
                        help="which measured step times: b = the steps file's median_s, a = run_a_steps.json")
    parser.add_argument("--name", help="the profile's name (default: the output file's stem)")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()

    bound, launch_calls = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for row in h200.rows(args.steps):
            launch_calls += launch_call_durations_s(os.path.join(h200.ROOT, "traces", "pytorch", row["kineto_trace"]))
            step = row["median_s"] if args.run == "b" else row["run_a_median_s"]
            if step is None:
                continue
            try:
                kernels = [op for op in h200.imported_ops(args.simtrain, row, tmp) if h200.is_kernel(op)]
            except RuntimeError as error:
                print(error, file=sys.stderr)
                return 2
            busy = sum(op["duration_s"] for op in kernels)
            host_bound = busy < h200.GPU_BOUND_SHARE * step
            print(f"{row['name']:<42} {step * 1e3:7.1f} ms, GPU busy {busy * 1e3:6.1f} ms, {len(kernels):5d} kernels"
                  f"{'  host-bound: ' + format(step / len(kernels) * 1e6, '.1f') + ' us/kernel' if host_bound else ''}")
            if host_bound:
                bound.append((row["name"], step, len(kernels)))
    if len(bound) < 2:
        print("fewer than two host-bound steps: nothing to calibrate from", file=sys.stderr)
        return 2
    per_kernel = statistics.median(step / kernels for _, step, kernels in bound)
    loo = []
    for i, (name, step, kernels) in enumerate(bound):
        others = statistics.median(s / k for j, (_, s, k) in enumerate(bound) if j != i)
        loo.append((name, 100 * (others * kernels - step) / step))
    print(f"dispatch per kernel {per_kernel * 1e6:.1f} us (median of {len(bound)} host-bound steps)")
    for name, error in loo:
        print(f"  leave {name} out: predicted {error:+.1f}%")
    name = args.name or os.path.splitext(os.path.basename(args.output))[0]
    source = (f"tools/calibrate_host.py --run {args.run}: median step time / recorded kernels over the host-bound "
              f"steps of {os.path.relpath(args.steps, h200.ROOT)} (run {args.run.upper()}); leave-one-out errors: " +
              ", ".join(f"{n} {e:+.1f}%" for n, e in loo))
    launch_call = statistics.median(launch_calls)
    print(f"launch call {launch_call * 1e6:.1f} us (median of {len(launch_calls)} recorded launch calls)")
    source += (f"; launch_call_s: median of the {len(launch_calls)} CUDA launch calls the steps' Kineto traces "
               f"recorded")
    profile = {"schema": "simtrain-host", "version": 1, "name": name,
               "dispatch_per_kernel_s": round(per_kernel, 8), "launch_call_s": round(launch_call, 8),
               "source": source}
    with open(args.output, "w") as f:
        json.dump(profile, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
