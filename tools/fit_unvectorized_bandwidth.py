#!/usr/bin/env python3
"""Fits the profile figure efficiencies.memory_bound_unvectorized of an H200 from the Kineto traces of
traces/pytorch/: the fraction of the HBM bandwidth (device.memory_bandwidth_Bps of the profile) at which
PyTorch's unvectorized elementwise kernels move their bytes. Those are unrolled_elementwise_kernel (operands of
different dtypes: an fp16 gradient cast to fp32, an fp32 + fp16 add) and elementwise_kernel with offset
calculators (strided or broadcast operands: a transposed copy, a bias added along rows).

Each such kernel of the second profiled step (ProfilerStep#3) is matched with the ATen operator that launched
it (through the runtime call's correlation id); its bytes come from the operator's recorded shapes, strides
and dtypes: copy_ reads its source and writes its destination, add/mul/sub/div (and their in-place forms) read
both operands and write the broadcast shape (a zero stride reads an element once). Kernels of other operators,
and those moving less than --min-bytes (whose time is mostly launch), are left out. The model the figure serves
is the cost model's: bytes / (bandwidth x figure) + kernel_launch_s, so the launch cost is taken off each
kernel's time before fitting.

Prints the pooled figure and, for each configuration, the figure fitted without it and the error with which
that predicts its kernels (leave one model out).
usage: tools/fit_unvectorized_bandwidth.py [--min-bytes B] [--profile JSON]
"""
import argparse
import collections
import gzip
import json
import math
import os
import sys

import h200_traces as h200

SIZE = {"float": 4, "c10::Half": 2, "c10::BFloat16": 2, "double": 8, "long int": 8, "int": 4, "bool": 1,
        "unsigned char": 1}
BINARY = {"aten::add", "aten::mul", "aten::sub", "aten::div", "aten::add_", "aten::mul_", "aten::sub_",
          "aten::div_"}


def elements_read(dims, strides):
    """Elements a tensor view touches: a zero stride (broadcast) repeats one element."""
    return math.prod(d for d, s in zip(dims, strides) if s != 0)


def broadcast(a, b):
    a, b = [1] * (len(b) - len(a)) + list(a), [1] * (len(a) - len(b)) + list(b)
    return [max(x, y) for x, y in zip(a, b)]


def kernel_bytes(op):
    """Bytes an operator's kernel moves, from its recorded inputs; None when they do not say."""
    args = op["args"]
    dims, types, strides = args.get("Input Dims", []), args.get("Input type", []), args.get("Input Strides", [])
    name = op["name"]
    if name == "aten::copy_" and len(dims) >= 2 and types[0] in SIZE and types[1] in SIZE:
        return elements_read(dims[0], strides[0]) * SIZE[types[0]] + elements_read(dims[1], strides[1]) * SIZE[types[1]]
    if name in BINARY and len(dims) >= 2 and types[0] in SIZE and types[1] in SIZE and dims[1]:
        out_size = SIZE[types[0]] if name.endswith("_") else max(SIZE[types[0]], SIZE[types[1]])
        return (elements_read(dims[0], strides[0]) * SIZE[types[0]] +
                elements_read(dims[1], strides[1]) * SIZE[types[1]] + math.prod(broadcast(dims[0], dims[1])) * out_size)
    return None


def unvectorized(kernel_name):
    return kernel_name.startswith(("void at::native::unrolled_elementwise_kernel",
                                   "void at::native::elementwise_kernel<"))


def launched_kernels(path):
    """(kernel event, innermost ATen operator) for each kernel the host launched in ProfilerStep#3."""
    with gzip.open(path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    step = next(e for e in events if e.get("name") == "ProfilerStep#3" and e.get("cat") == "user_annotation")
    launches = {e["args"]["correlation"]: e for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    ops = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "cpu_op":
            ops[e["tid"]].append(e)
    for kernel in events:
        if kernel.get("cat") != "kernel":
            continue
        launch = launches.get(kernel["args"].get("correlation"))
        if launch is None or not step["ts"] <= launch["ts"] <= step["ts"] + step["dur"]:
            continue
        around = [o for o in ops[launch["tid"]]
                  if o["ts"] <= launch["ts"] and launch["ts"] + launch["dur"] <= o["ts"] + o["dur"]]
        if around:
            yield kernel, min(around, key=lambda o: o["dur"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--min-bytes", type=float, default=16e6)
    args, profile = h200.read_profile(parser)
    bandwidth = profile["device"]["memory_bandwidth_Bps"]
    launch_s = profile["efficiencies"]["kernel_launch_s"]

    per_row = {}
    for row in h200.rows():
        moved = seconds = 0.0
        count = 0
        for kernel, op in launched_kernels(os.path.join(h200.ROOT, "traces", "pytorch", row["kineto_trace"])):
            if not unvectorized(kernel["name"]):
                continue
            b = kernel_bytes(op)
            if b is None or b < args.min_bytes:
                continue
            moved += b
            seconds += kernel["dur"] * 1e-6 - launch_s
            count += 1
        per_row[row["name"]] = (moved, seconds, count)
    h200.print_bandwidth_fit("memory_bound_unvectorized", per_row, bandwidth, launch_s,
                             f" of at least {args.min_bytes / 1e6:g} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
