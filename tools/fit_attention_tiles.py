#!/usr/bin/env python3
"""Fits the profile figure efficiencies.attention_fixed_tiles of an H200 from the Kineto traces of
traces/pytorch/: the fixed cost, in key tiles of 128, that each query tile of a flash-attention kernel pays
besides its loop over the keys (loading Q, writing O and its softmax statistics).

The cost model (simulator/cost/compute_cost.cc) runs a kernel that visits n key tiles per query tile at
attention x [n / (n + n0)] / [n_ref / (n_ref + n0)] of the peak, capped at attention (the profile's efficiency
at n_ref = attention_reference_kv_tiles, 16 where the profile has none), plus kernel_launch_s per kernel.
For each configuration whose step runs cuDNN's SDPA (aten::_cudnn_attention_forward / _backward), the second
profiled step's (ProfilerStep#3) attention kernels are summed per pass; the FLOPs and n come from each
operator's recorded shapes (query [b, h, s, d], key [b, h, keys, d]) and its is_causal argument: 4 b h s keys d
forward, 2.5x that backward, times the fraction of tiles a causal mask leaves
(simulator/workload/attention_work.h); n is that fraction of ceil(keys / 128). n0 is the grid value (0.1
steps) of least squared log error over both passes of all configurations; each configuration is also
predicted with n0 fitted without it (leave one model out).

A profile that carries the head-size rule (efficiencies.attention_head_dim and attention_softmax_cost: the
spec profiles of Hopper and Blackwell) runs a kernel of head size d below the reference at that rule's
fraction too (compute_cost.cc, softmax_fraction), so n0 is fitted on top of it: the profile `simtrain profile
show h200-sxm --json` writes gives the figure the spec profiles carry.
usage: tools/fit_attention_tiles.py [--profile JSON]
"""
import argparse
import math
import os
import sys

import h200_traces as h200
from fit_unvectorized_bandwidth import launched_kernels

# Where each operator's query and key dims and its is_causal flag sit among its recorded inputs (PyTorch 2.11's
# signatures: forward (query, key, value, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k, compute_log_sumexp,
# dropout_p, is_causal, ...); backward (grad_out, query, key, value, ..., dropout_p, is_causal, ...)).
OPERATORS = {"aten::_cudnn_attention_forward": ("forward", 0, 1, 10),
             "aten::_cudnn_attention_backward": ("backward", 1, 2, 14)}


def tile_fraction(keys, causal):
    tiles = math.ceil(keys / 128)
    return 1.0 if not causal or tiles <= 1 else (tiles + 1) / (2 * tiles)


def rate_fraction(n, n0, reference):
    return 1.0 if n0 <= 0 or n >= reference else n / (n + n0) * (reference + n0) / reference


def head_size_fraction(profile, head_dim, which):
    """The profile's rate at `head_dim` relative to its reference head size (compute_cost.cc,
    softmax_fraction): 1 where the profile has no such rule."""
    eff, device = profile["efficiencies"], profile["device"]
    reference, cost = eff.get("attention_head_dim", 0), eff.get("attention_softmax_cost", 0)
    if reference <= 0 or cost <= 0:
        return 1.0
    d = min(head_dim, reference)
    products = 4 if which == "forward" else 10
    flops_per_clock = device["peak_flops_per_s"]["bf16"] / (device["sm_count"] * device["clock_mhz"] * 1e6)
    x_measured = cost * flops_per_clock / products / 16
    x = x_measured * 16 / (device.get("exponentials_per_clock_per_sm") or 16)
    return (d / (d + x)) / (reference / (reference + x_measured))


def attention_passes(row, profile):
    """{pass: [seconds, flops, kernels, operators, n, head-size fraction]} of the row's SDPA kernels in
    ProfilerStep#3."""
    passes = {}
    seen = set()
    for kernel, op in launched_kernels(os.path.join(h200.ROOT, "traces", "pytorch", row["kineto_trace"])):
        if op["name"] not in OPERATORS:
            continue
        which, q_at, k_at, causal_at = OPERATORS[op["name"]]
        dims, concrete = op["args"]["Input Dims"], op["args"]["Concrete Inputs"]
        b, h, s, d = dims[q_at]
        keys = dims[k_at][2]
        causal = concrete[causal_at] == "True"
        fraction = tile_fraction(keys, causal)
        p = passes.setdefault(which, [0.0, 0.0, 0, 0, max(1.0, fraction * math.ceil(keys / 128)),
                                      head_size_fraction(profile, d, which)])
        p[0] += kernel["dur"] * 1e-6
        p[2] += 1
        if id(op) not in seen:  # an operator's kernels share its FLOPs
            seen.add(id(op))
            p[1] += 4.0 * b * h * s * keys * d * fraction * (2.5 if which == "backward" else 1.0)
            p[3] += 1
    return passes


def log_errors(rows, n0, rate, launch_s, reference):
    errors = []
    for passes in rows.values():
        for seconds, flops, _, operators, n, head in passes.values():
            predicted = flops / (rate * rate_fraction(n, n0, reference) * head) + operators * launch_s
            errors.append(math.log(predicted / seconds))
    return errors


def fit(rows, rate, launch_s, reference):
    return min((sum(e * e for e in log_errors(rows, n0 / 10, rate, launch_s, reference)), n0 / 10)
               for n0 in range(0, 500))[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _, profile = h200.read_profile(parser)
    rate = profile["device"]["peak_flops_per_s"]["bf16"] * profile["efficiencies"]["attention"]
    launch_s = profile["efficiencies"]["kernel_launch_s"]
    reference = profile["efficiencies"].get("attention_reference_kv_tiles", 16)

    rows = {row["name"]: attention_passes(row, profile) for row in h200.rows()}
    rows = {name: passes for name, passes in rows.items() if passes}
    for name, passes in rows.items():
        for which, (seconds, flops, kernels, operators, n, _) in passes.items():
            print(f"  {name:<42} {which:<8} {n:5.1f} tiles  {kernels:3d} kernels {seconds * 1e3:7.3f} ms"
                  f"  {flops / seconds / 1e12:6.0f} TFLOP/s")
    print(f"attention_fixed_tiles = {fit(rows, rate, launch_s, reference):.1f} (rate {rate / 1e12:.0f} TFLOP/s"
          f" from {reference:g} key tiles on)")
    print("leave one model out: n0 without the configuration, its attention kernels predicted (forward, backward)")
    for name, passes in rows.items():
        n0 = fit({k: v for k, v in rows.items() if k != name}, rate, launch_s, reference)
        errors = ", ".join(f"{which} {100 * (math.exp(e) - 1):+.1f}%"
                           for which, e in zip(passes, log_errors({name: passes}, n0, rate, launch_s, reference)))
        flat = ", ".join(f"{which} {100 * (math.exp(e) - 1):+.1f}%"
                         for which, e in zip(passes, log_errors({name: passes}, 0, rate, launch_s, reference)))
        print(f"  {name:<42} n0 {n0:4.1f}: {errors}   (flat efficiency: {flat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
