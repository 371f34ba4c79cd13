"""Shared by the tools that compare simtrain with the H200 PyTorch steps of traces/pytorch/: the rows of
h200_steps.json (run B) with run A's medians from the README's table, and the recorded traces imported as
native traces."""
import json
import os
import re
import shlex
import subprocess

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
STEPS = os.path.join(ROOT, "traces", "pytorch", "h200_steps.json")
README = os.path.join(ROOT, "traces", "pytorch", "README.md")
SIMTRAIN = os.path.join(ROOT, "build", "simulator", "cli", "simtrain")


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {proc.stderr.strip()}")
    return proc.stdout


def run_a_medians_ms():
    """{configuration: run A's median step in ms} from the table of traces/pytorch/README.md."""
    medians = {}
    with open(README) as f:
        for line in f:
            m = re.match(r"\| ([a-z0-9 .\-]+?) \| ([0-9.]+) \| ([0-9.]+) \|", line)
            if m:
                medians[m.group(1)] = float(m.group(2))
    return medians


def rows(steps=STEPS):
    """The configurations of h200_steps.json, each with run A's median (run_a_median_s, None when the
    README has none) beside run B's (median_s)."""
    with open(steps) as f:
        runs = json.load(f)["runs"]
    run_a = run_a_medians_ms()
    for row in runs:
        ms = run_a.get(row["name"])
        row["run_a_median_s"] = ms / 1e3 if ms is not None else None
    return runs


def workload_args(row):
    """The row's `simtrain` options, with model files under models/."""
    args = shlex.split(row["simtrain"])
    return [os.path.join(ROOT, "models", a) if a.endswith(".toml") else a for a in args]


def imported_ops(simtrain, row, tmp):
    """The GPU and host ops of the row's Kineto trace, imported as a native trace."""
    out = os.path.join(tmp, "recorded.json")
    run([simtrain, "trace", "import", os.path.join(ROOT, "traces", "pytorch", row["kineto_trace"]), "-o", out])
    with open(out) as f:
        trace = json.load(f)
    return [op for program in trace["programs"] for op in program["ops"] if op["type"] == "compute"]


def is_kernel(op):
    return op["kind"] != "host"


# A step is host-bound when its kernels keep the GPU busy for less than this share of it.
GPU_BOUND_SHARE = 0.8


def gpu_busy_s(simtrain, row, tmp):
    """The summed duration of the kernels the row's Kineto trace recorded in one step."""
    return sum(op["duration_s"] for op in imported_ops(simtrain, row, tmp) if is_kernel(op))


PROFILE = os.path.join(ROOT, "calibration", "profiles", "h200-sxm.json")


def read_profile(parser):
    """The profile JSON named by the parser's --profile option (the H200's by default)."""
    parser.add_argument("--profile", default=PROFILE)
    args = parser.parse_args()
    with open(args.profile) as f:
        return args, json.load(f)


def print_bandwidth_fit(figure_name, per_row, bandwidth, launch_s, kernels_note=""):
    """Prints a bandwidth fraction fitted to {configuration: (bytes, seconds without launch costs, kernels)},
    pooled over every configuration, then each configuration's kernels predicted with the fraction fitted
    without it (the cost model's bytes / (bandwidth x fraction) + kernel_launch_s per kernel)."""
    total_bytes = sum(v[0] for v in per_row.values())
    total_s = sum(v[1] for v in per_row.values())
    print(f"{figure_name} = {total_bytes / total_s / bandwidth:.3f} of {bandwidth / 1e12:.3f} TB/s"
          f" ({sum(v[2] for v in per_row.values())} kernels{kernels_note})")
    print("leave one model out: the figure without the configuration, and its kernels' time predicted with it")
    for name, (moved, seconds, count) in per_row.items():
        if count == 0:
            continue
        figure = (total_bytes - moved) / (total_s - seconds) / bandwidth
        predicted = moved / (bandwidth * figure) + count * launch_s
        recorded = seconds + count * launch_s
        print(f"  {name:<42} {figure:.3f}  {count:4d} kernels {predicted * 1e3:7.3f} ms vs {recorded * 1e3:7.3f} ms"
              f" ({100 * (predicted - recorded) / recorded:+.1f}%)")
