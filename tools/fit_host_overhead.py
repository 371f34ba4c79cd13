#!/usr/bin/env python3
"""Fits Megatron-Core's host overhead (simulator/workload/host_profile.h, kMegatronCoreHostOverhead: how many
times the host profile's eager PyTorch cost each of Megatron's operator dispatches takes) on the
Megatron-Bridge table, leaving one model family out, and prints the cross-validated errors.

Every configuration tools/validate_megatron_bridge.py can express is run once per grid value with
`--host-overhead VALUE` (its host profile as that script chooses it: the H200 machine's for every system).
For each model family F the value of least MAPE over the other families' rows is chosen and F's rows are
predicted with it; the printed per-family and per-system MAPEs are those held-out predictions, next to the
value each fold chose, the errors at overhead 1 without a cost per pass or per MoE layer (the profile as
measured) and at the shipped values. Then, as a check the table's own fit cannot make, the ratio MAPE of
the same-release pairs of systems (tools/validate_system_pairs.py: one configuration measured on two
systems, whose ratio depends on the hardware alone) at each value.

With --grace it fits the other host figure, Grace's per-launch cost against x86's (GB200's and GB300's
hosts against DGX H100's, B200's and B300's), on the configurations the table measured on an x86 and a Grace
system in the same release (tools/validate_system_pairs.py's pairs): their throughput ratio depends on the
hardware alone, and on a host-bound configuration on the hosts. Each grid value r runs the Grace rows with
the H200 host's costs times r; per model family the r of least ratio MAPE over the other families' pairs
predicts the family's pairs.

With --pass-grid it fits the overhead jointly with the schedule's host cost per pass
(kMegatronCorePassOverhead, `--host-pass-overhead`, in the profile's eager dispatches), and with --moe-grid
jointly with the host cost of a MoE layer's Python per forward pass
(kMegatronCoreMoeLayerOverhead, `--host-moe-layer-overhead`, in the same unit): every combination of the
grids' values is run, and each fold chooses the one of least MAPE over the other families.

usage: tools/fit_host_overhead.py [--grid 3 4 5 6 8] [--pass-grid 0 50 100 150] [--moe-grid 0 40 80 120]
                                  [-j 2] [--simtrain PATH] [--reference CSV]
       tools/fit_host_overhead.py --grace [--grid 0.75 1 1.5 2 2.75] [-j 2]
"""
import concurrent.futures
import json
import os
import tempfile

import validate_megatron_bridge as bridge
import validate_system_pairs

SHIPPED = 4.0  # kMegatronCoreHostOverhead
SHIPPED_PASS = 0.0  # kMegatronCorePassOverhead
SHIPPED_MOE_LAYER = 80.0  # kMegatronCoreMoeLayerOverhead
SHIPPED_GRACE = 1.0  # validate_megatron_bridge.host_profile: Grace takes the x86 host's costs


def leave_family_out(grid, scored, shipped, measured, label=lambda v: f"{v:g}"):
    """scored[value]: [(family, predicted, measured)], in the same order for every value. Prints each family's
    held-out MAPE beside the value the other families choose, its MAPE at `measured` (the host profile as
    measured) and at the shipped value, and returns the held-out prediction of every item (in scored's
    order)."""
    def error(value, keep):
        return bridge.mape([(p, m) for f, p, m in scored[value] if keep(f)])

    first = scored[grid[0]]
    held = [None] * len(first)
    print(f"  {'family':<14} {'rows':>4} {'fitted':>10} {'held-out MAPE':>14} {'as measured':>11} "
          f"{'at shipped':>10}")
    for name in sorted({f for f, _, _ in first}):
        best = min(grid, key=lambda v: error(v, lambda f: f != name))
        inside = [i for i, (f, _, _) in enumerate(first) if f == name]
        for i in inside:
            held[i] = scored[best][i][1:]
        print(f"  {name:<14} {len(inside):>4} {label(best):>10} {error(best, lambda f: f == name):>13.1f}% "
              f"{error(measured, lambda f: f == name):>10.1f}% {error(shipped, lambda f: f == name):>9.1f}%")
    return held


def fit_grace(args):
    """Grace's host cost over x86's, on the same-release pairs of an x86 and a Grace system."""
    grid = sorted(set(args.grid or [0.75, 1.0, 1.5, 2.0, 2.75]) | {1.0, SHIPPED_GRACE})
    rows, _, _ = bridge.parse(args.reference)
    pairs = validate_system_pairs.same_configurations(rows)
    x86_path = bridge.host_profile({"System": "DGX-B200"})
    with open(x86_path) as f:
        x86 = json.load(f)
    scored = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for value in grid:
            grace = os.path.join(tmp, f"grace-{value}.json")
            with open(grace, "w") as f:
                json.dump(dict(x86, name=f"h200-run-a x {value}",
                               dispatch_per_kernel_s=x86["dispatch_per_kernel_s"] * value,
                               launch_call_s=x86["launch_call_s"] * value), f)
            bridge.host_profile = lambda row, g=grace: g if row["System"] in bridge.GRACE_SYSTEMS else x86_path
            predicted, _ = validate_system_pairs.predict_pair_rows(args, pairs, pool, tmp, f"{value}-")
            scored[value] = validate_system_pairs.x86_grace_ratios(pairs, predicted)
            print(f"Grace host x{value:g}: {len(scored[value])} x86/Grace pairs, ratio MAPE "
                  f"{bridge.mape([(p, m) for _, p, m in scored[value]]):.1f}%", flush=True)
    print("\nleave one model family out, Grace's host cost over x86's:")
    held = leave_family_out(grid, scored, SHIPPED_GRACE, 1.0)
    print(f"  {'all':<14} {len(held):>4} {'':>10} {bridge.mape(held):>13.1f}%")


def pairs_ratio_mape(args, pool, tmp, value):
    """The ratio MAPE over all same-release pairs of systems (tools/validate_system_pairs.py) at one pair of
    Megatron host figures: a check on the hardware side alone, which a host figure that fits the table by
    slowing configurations the pairs show unslowed makes worse."""
    rows, _, _ = bridge.parse(args.reference)
    pairs = validate_system_pairs.same_configurations(rows)
    predicted, _ = validate_system_pairs.predict_pair_rows(args, pairs, pool, tmp,
                                                           f"pairs-{file_tag(value)}-", host_options(value))
    ratios = validate_system_pairs.pair_ratios(pairs, predicted)
    return len(ratios), bridge.mape([(ratio, measured) for *_, measured, ratio in ratios])


def host_options(value):
    overhead, per_pass, moe_layer = value
    return ["--host-overhead", f"{overhead:g}", "--host-pass-overhead", f"{per_pass:g}",
            "--host-moe-layer-overhead", f"{moe_layer:g}"]


def label(value):
    return "/".join(f"{v:g}" for v in value)


def file_tag(value):
    return "x".join(f"{v:g}" for v in value)


def main():
    parser = bridge.argument_parser(__doc__)
    parser.add_argument("--grid", type=float, nargs="+")
    parser.add_argument("--pass-grid", type=float, nargs="+",
                        help="values of the schedule's cost per pass to fit jointly with the overhead")
    parser.add_argument("--moe-grid", type=float, nargs="+",
                        help="values of a MoE layer's cost per forward pass to fit jointly with the overhead")
    parser.add_argument("--grace", action="store_true",
                        help="fit Grace's host cost over x86's on the x86/Grace pairs instead")
    args = parser.parse_args()
    if args.grace:
        fit_grace(args)
        return
    overheads = sorted(set(args.grid or [3.0, 4.0, 5.0, 6.0, 8.0]) | {SHIPPED})
    passes = sorted(set(args.pass_grid or [SHIPPED_PASS]) | {SHIPPED_PASS})
    moe_layers = sorted(set(args.moe_grid or [SHIPPED_MOE_LAYER]) | {SHIPPED_MOE_LAYER})
    shipped, measured = (SHIPPED, SHIPPED_PASS, SHIPPED_MOE_LAYER), (1.0, 0.0, 0.0)
    grid = sorted({(o, p, m) for o in overheads for p in passes for m in moe_layers} | {measured})
    _, _, configs = bridge.parse(args.reference)
    configs = [row for row in configs if bridge.layout_options(row) is not None]

    # predictions[value][i]: row i's predicted tokens/s per GPU at that (overhead, pass cost, MoE layer cost)
    # (None: not expressible).
    predictions = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for value in grid:
            futures = [pool.submit(bridge.predict, args.simtrain, row, args.timeout, tmp,
                                   f"{file_tag(value)}-{i}", host_options(value), True)
                       for i, row in enumerate(configs)]
            predictions[value] = [f.result()[0] for f in futures]
            print(f"overhead/pass/MoE layer {label(value)}: ran {len(configs)} configurations", flush=True)

    expressible = [i for i in range(len(configs)) if all(predictions[v][i] is not None for v in grid)]
    scored = {v: [(bridge.family(configs[i]["base_model"]), predictions[v][i][0],
                   float(configs[i]["Tokens_per_sec_per_GPU"])) for i in expressible] for v in grid}
    print(f"\nleave one model family out ({len(expressible)} configurations), overhead/pass/MoE layer cost:")
    held = leave_family_out(grid, scored, shipped, measured, label)

    def error(rows, value=None):
        return bridge.mape([held[k] if value is None else scored[value][k][1:] for k in rows])

    print(f"\n  {'system':<14} {'rows':>4} {'':>10} {'held-out MAPE':>14} {'as measured':>11} {'at shipped':>10}")
    for system in sorted({configs[i]["System"] for i in expressible}):
        rows = [k for k, i in enumerate(expressible) if configs[i]["System"] == system]
        print(f"  {bridge.PLATFORMS[system]:<14} {len(rows):>4} {'':>10} {error(rows):>13.1f}% "
              f"{error(rows, measured):>10.1f}% {error(rows, shipped):>9.1f}%")
    every = range(len(expressible))
    print(f"  {'all':<14} {len(expressible):>4} {'':>10} {error(every):>13.1f}% {error(every, measured):>10.1f}% "
          f"{error(every, shipped):>9.1f}%")
    everything = min(grid, key=lambda v: bridge.mape([x[1:] for x in scored[v]]))
    print(f"\nfitted on every family: {label(everything)} (shipped: {label(shipped)})")

    print("\nthe same-release pairs of systems (hardware only), ratio MAPE at each overhead/pass/MoE layer cost:")
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for value in grid:
            count, value_mape = pairs_ratio_mape(args, pool, tmp, value)
            print(f"  {label(value)}: {value_mape:.1f}% over {count} pairs", flush=True)


if __name__ == "__main__":
    main()
