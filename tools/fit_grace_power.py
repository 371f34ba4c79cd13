#!/usr/bin/env python3
"""Fits the board power the GPUs of NVIDIA's DGX GB200 and GB300 NVL72 racks sustain, as a fraction of their
TDP (the spec profiles' 1,200 W and 1,400 W), on the configurations NVIDIA's Megatron-Bridge table measured on
an x86 and a Grace-Blackwell system in the same release (tools/validate_system_pairs.py's pairs), leaving one
model family out, and prints the cross-validated ratio errors.

Why a fit: a Blackwell GEMM runs at the lesser of its fraction of peak and the power limit times the
generation's FLOPs per joule (README "Clocks and power caps"). At their TDPs that makes a GB200 sustain 1.2x
a B200's GEMM rate, and simtrain predicted GB200 1.06x to 1.14x B200 on the same configurations where the
table measures 0.96x to 1.05x (Llama 3 8B in FP8 under a full-iteration CUDA graph: 1.03 and 1.05). No
public source gives the power the DGX racks run their GPUs at (the GB200 superchip's budget is configurable;
NVIDIA publishes its maximum), so the pairs, whose ratio depends on the hardware alone, decide it.

Each grid value r runs the Grace systems' rows on a copy of their platform (platforms/dgx-gb200.toml,
dgx-gb300.toml) with gpu_power_limit_w = r x TDP; the x86 rows run on their platforms as shipped. For each
model family F the r of least ratio MAPE over the other families' pairs predicts F's pairs. One figure for
both racks: the same power-delivery design, one generation apart.

usage: tools/fit_grace_power.py [--grid 0.8 0.833 0.875 0.917 1] [-j 2] [--simtrain PATH] [--reference CSV]
"""
import concurrent.futures
import json
import os
import re
import subprocess
import tempfile

import validate_megatron_bridge as bridge
import validate_system_pairs
from fit_host_overhead import leave_family_out

PLATFORM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "platforms")
SHIPPED = 0.833  # platforms/dgx-gb200.toml and dgx-gb300.toml: gpu_power_limit_w = 0.833 x TDP


def tdp_w(simtrain, system):
    """The TDP of a system's GPU, from its spec profile (simtrain profile show GPU --json)."""
    with open(os.path.join(PLATFORM_DIR, bridge.PLATFORMS[system] + ".toml")) as f:
        gpu = re.search(r'^gpu = "([^"]+)"', f.read(), re.MULTILINE).group(1)
    shown = subprocess.run([simtrain, "profile", "show", gpu, "--json"], capture_output=True, text=True,
                           check=True)
    return json.loads(shown.stdout)["device"]["power_limit_w"]


def capped_platform(name, watts, directory):
    """A copy of platform `name`'s file whose GPUs are capped at `watts`; returns its path."""
    with open(os.path.join(PLATFORM_DIR, name + ".toml")) as f:
        text = re.sub(r"^gpu_power_limit_w = .*\n", "", f.read(), flags=re.MULTILINE)
    text = re.sub(r'^(gpu = "[^"]+"\n)', rf"\1gpu_power_limit_w = {watts:.1f}\n", text, count=1,
                  flags=re.MULTILINE)
    path = os.path.join(directory, f"{name}-{watts:.1f}.toml")
    with open(path, "x") as f:
        f.write(text)
    return path


def main():
    parser = bridge.argument_parser(__doc__)
    parser.add_argument("--grid", type=float, nargs="+")
    args = parser.parse_args()
    grid = sorted(set(args.grid or [0.75, 0.8, 0.833, 0.875, 0.917, 1.0]) | {1.0, SHIPPED})
    if not all(0 < r <= 1 for r in grid):
        parser.error("--grid: each value is a fraction of the TDP, in (0, 1]")
    rows, _, _ = bridge.parse(args.reference)
    pairs = validate_system_pairs.same_configurations(rows)
    grace = sorted(bridge.GRACE_SYSTEMS)
    tdps = {system: tdp_w(args.simtrain, system) for system in grace}
    names = dict(bridge.PLATFORMS)
    scored = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for value in grid:
            for system in grace:  # run_args names each row's platform from bridge.PLATFORMS
                bridge.PLATFORMS[system] = capped_platform(names[system], value * tdps[system], tmp)
            predicted, _ = validate_system_pairs.predict_pair_rows(args, pairs, pool, tmp, f"{value}-")
            scored[value] = validate_system_pairs.x86_grace_ratios(pairs, predicted)
            watts = ", ".join(f"{names[s]} {value * tdps[s]:.0f} W" for s in grace)
            print(f"{value:g} of TDP ({watts}): {len(scored[value])} x86/Grace pairs, ratio MAPE "
                  f"{bridge.mape([(p, m) for _, p, m in scored[value]]):.1f}%", flush=True)
    print("\nleave one model family out, the racks' GPU power as a fraction of TDP ('at 1': at the TDP):")
    held = leave_family_out(grid, scored, SHIPPED)
    print(f"  {'all':<14} {len(held):>4} {'':>6} {bridge.mape(held):>13.1f}%")


if __name__ == "__main__":
    main()
