#!/usr/bin/env python3
"""Fits the profile figure efficiencies.memory_bound_multi_tensor of an H200 from the Kineto traces of
traces/pytorch/: the fraction of the HBM bandwidth (device.memory_bandwidth_Bps of the profile) at which
PyTorch's multi_tensor_apply optimizer kernels move their bytes.

Those kernels walk a list of tensors in chunks of 64Ki elements, one thread block per chunk and at most 320
chunks per launch. Each optimizer pass reads and writes every parameter once, so a pass's bytes follow from
the step's parameter count (h200_steps.json) and what it touches per parameter:
  - aten::_fused_adamw_: reads p, g, m, v and writes p, m, v in fp32 (28 B);
  - aten::_amp_foreach_non_finite_check_and_unscale_ (GradScaler): reads and writes g (8 B);
  - momentum SGD (the CNN steps): aten::_foreach_mul_ (m *= momentum, 8 B) and two aten::_foreach_add_
    (m += g, p -= lr m; 12 B each, 24 B together).
In the AdamW steps _foreach_add_ only bumps the one-element step counters, and is left out. The kernels of
the second profiled step (ProfilerStep#3) are summed per pass; the cost model's launch cost (kernel_launch_s)
is taken off each kernel, as the model is bytes / (bandwidth x figure) + kernel_launch_s.

Prints the pooled figure (bytes over seconds, all steps) and, for each configuration, the figure fitted
without it and the error with which that predicts its optimizer kernels (leave one model out).
usage: tools/fit_multi_tensor_bandwidth.py [--profile JSON]
"""
import argparse
import os
import sys

import h200_traces as h200
from fit_unvectorized_bandwidth import launched_kernels

BYTES_PER_PARAMETER = {"aten::_fused_adamw_": 28, "aten::_amp_foreach_non_finite_check_and_unscale_": 8}
SGD_BYTES_PER_PARAMETER = {"aten::_foreach_mul_": 8, "aten::_foreach_add_": 24}


def pass_bytes_per_parameter(operator, sgd):
    return (SGD_BYTES_PER_PARAMETER if sgd else {}).get(operator, BYTES_PER_PARAMETER.get(operator))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _, profile = h200.read_profile(parser)
    bandwidth = profile["device"]["memory_bandwidth_Bps"]
    launch_s = profile["efficiencies"]["kernel_launch_s"]

    per_row = {}
    for row in h200.rows():
        sgd = "sgd" in row["simtrain"].split()
        operators = set()
        seconds, count = 0.0, 0
        for kernel, op in launched_kernels(os.path.join(h200.ROOT, "traces", "pytorch", row["kineto_trace"])):
            if pass_bytes_per_parameter(op["name"], sgd) is None:
                continue
            operators.add(op["name"])
            seconds += kernel["dur"] * 1e-6 - launch_s
            count += 1
        moved = sum(pass_bytes_per_parameter(name, sgd) for name in operators) * row["params"]
        per_row[row["name"]] = (moved, seconds, count)
    h200.print_bandwidth_fit("memory_bound_multi_tensor", per_row, bandwidth, launch_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
