#!/usr/bin/env python3
"""Fits the profile figure efficiencies.attention_softmax_cost from the FlashAttention-3 paper's H100 figures
(validation/reference/kernels/flashattention3_h100_head_dim.csv): the work per score element of a fused
attention kernel that does not shrink with the head size and that the kernel does not hide under its matrix
products, counted in issue slots of the SM's exponential unit (16 per clock per SM).

The cost model (simulator/cost/compute_cost.cc) gives a pass whose matrix products do m x d FLOPs per score
element (m = 4 forward, 10 backward: QK^T and PV, then the recomputed QK^T and four products) the time
m d / R + c / E per element and per SM, R the tensor-core FLOPs per clock per SM of the kernel's dtype, E = 16.
Relative to the head size the profile's `attention` was measured at (128), its rate is
[d / (d + x)] / [128 / (128 + x)] with x = c R / (m E); head sizes above 128 keep the 128 rate (cuDNN's
d = 256 kernels run no faster than its d = 128 ones). c is fitted on cuDNN's rows (the backend Transformer
Engine runs), least squared log error of the d = 64 / d = 128 rate ratio over both passes at the longest
sequence; each pass is also predicted with c fitted on the other (leave one pass out), and FlashAttention-3's
rows are predicted with the same c for comparison.
usage: tools/fit_attention_head_dim.py
"""
import csv
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "validation", "reference", "kernels", "flashattention3_h100_head_dim.csv")
# H100 SXM5 as calibration/spec_profiles.cc describes it: 989 TFLOP/s dense bf16 over 132 SMs at 1,980 MHz.
FLOPS_PER_CLOCK_PER_SM = 989e12 / (132 * 1980e6)
EXP_PER_CLOCK_PER_SM = 16
MATMUL_FLOPS_PER_ELEMENT = {"forward": 4, "backward": 10}  # per unit of head size
REFERENCE_HEAD_DIM = 128


def relative_rate(head_dim, cost, pass_name):
    x = cost * FLOPS_PER_CLOCK_PER_SM / (MATMUL_FLOPS_PER_ELEMENT[pass_name] * EXP_PER_CLOCK_PER_SM)
    rate = head_dim / (head_dim + x) / (REFERENCE_HEAD_DIM / (REFERENCE_HEAD_DIM + x))
    return min(rate, 1.0)


def read_ratios():
    """{(implementation, pass, head_dim): rate at that head size / rate at 128}, at the longest sequence."""
    with open(TABLE) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    longest = max(int(r["seq_len"]) for r in rows)
    rate = {(r["implementation"], r["pass"], int(r["head_dim"])): float(r["tflops"])
            for r in rows if int(r["seq_len"]) == longest}
    return {(impl, p, d): v / rate[(impl, p, REFERENCE_HEAD_DIM)]
            for (impl, p, d), v in rate.items() if d != REFERENCE_HEAD_DIM}


def fit(ratios, passes):
    grid = [round(0.01 * i, 2) for i in range(1, 401)]
    return min(grid, key=lambda c: sum(math.log(relative_rate(64, c, p) / ratios[("cuDNN", p, 64)]) ** 2
                                       for p in passes))


def main():
    ratios = read_ratios()
    cost = fit(ratios, ["forward", "backward"])
    print(f"attention_softmax_cost = {cost} exponential slots per score element "
          f"(x = {cost * FLOPS_PER_CLOCK_PER_SM / (4 * EXP_PER_CLOCK_PER_SM):.1f} forward, "
          f"{cost * FLOPS_PER_CLOCK_PER_SM / (10 * EXP_PER_CLOCK_PER_SM):.1f} backward on H100)")
    print("rate at the head size / rate at 128, measured and predicted:")
    for (impl, p, d), measured in sorted(ratios.items()):
        predicted = relative_rate(d, cost, p)
        print(f"  {impl:17s} {p:8s} d={d:3d}  measured {measured:.3f}  predicted {predicted:.3f}  "
              f"({100 * (predicted / measured - 1):+.1f}%)")
    print("leave one pass out (fit on cuDNN's other pass, predict this one):")
    for held_out, other in (("forward", "backward"), ("backward", "forward")):
        c = fit(ratios, [other])
        measured, predicted = ratios[("cuDNN", held_out, 64)], relative_rate(64, c, held_out)
        print(f"  cuDNN {held_out:8s} d= 64  c = {c:.2f}  measured {measured:.3f}  predicted {predicted:.3f}  "
              f"({100 * (predicted / measured - 1):+.1f}%)")


if __name__ == "__main__":
    main()
