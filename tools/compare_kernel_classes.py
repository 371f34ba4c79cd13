#!/usr/bin/env python3
"""Compares the kernels simtrain's generator launches for a stock PyTorch step with the kernels a Kineto
trace of that step recorded, class by class (gemm, elementwise, layer_norm, attention, ...).

For each configuration of traces/pytorch/h200_steps.json: `simtrain trace import` turns the recorded Kineto
trace into a native trace, one GPU op per kernel named by the ATen operator that launched it; `simtrain trace`
writes the generated trace for the same model, batch, precision and optimizer on one GPU, whose ops carry
the generator's kernel kinds. Host ops and collectives are not kernels and are not counted.

A recorded kernel is classed by its operator (ATEN_CLASSES), not by the kind the importer costs it as: the
importer gives every kernel an operator launches that operator's cost shape, so the weight casts autocast
runs inside aten::addmm read as GEMMs there, and the second kernel of a cuDNN batch norm as elementwise.

Prints, per configuration, the counts per class and the error of the total; with --max-total-error, exits 1
when a configuration's total kernel count is further than that (percent) from the trace's, and with
--max-class-error when a class holding at least 5% of the trace's kernels is. Exit 2 on other failures.
usage: tools/compare_kernel_classes.py [--simtrain PATH] [--steps JSON] [--only NAME]
"""
import argparse
import collections
import json
import os
import sys
import tempfile

import h200_traces as h200


# The class of the kernels an ATen operator launches, in the generator's kind names. Operators not listed
# (copies, casts, arithmetic, reductions, dropout, losses) launch elementwise kernels.
ATEN_CLASSES = {
    "gemm": ["aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addmv", "aten::matmul"],
    "conv": ["aten::cudnn_convolution", "aten::convolution_backward", "aten::convolution"],
    "attention": ["aten::_cudnn_attention_forward", "aten::_cudnn_attention_backward",
                  "aten::_flash_attention_forward", "aten::_flash_attention_backward",
                  "aten::_efficient_attention_forward", "aten::_efficient_attention_backward"],
    "batch_norm": ["aten::cudnn_batch_norm", "aten::cudnn_batch_norm_backward", "aten::native_batch_norm",
                   "aten::native_batch_norm_backward"],
    "layer_norm": ["aten::native_layer_norm", "aten::native_layer_norm_backward"],
    "softmax": ["aten::_log_softmax", "aten::_log_softmax_backward_data", "aten::_softmax",
                "aten::_softmax_backward_data"],
    "activation": ["aten::relu", "aten::relu_", "aten::clamp_min_", "aten::threshold_backward", "aten::gelu",
                   "aten::gelu_backward", "aten::tanh", "aten::tanh_backward", "aten::silu",
                   "aten::silu_backward"],
    "pool": ["aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_backward", "aten::avg_pool2d",
             "aten::avg_pool2d_backward"],
    "embedding": ["aten::embedding_dense_backward"],
}
CLASS_OF = {op: kind for kind, ops in ATEN_CLASSES.items() for op in ops}


def kernel_class(op):
    if op["kind"] == "optimizer" or op["name"].startswith(("aten::_fused_adam", "aten::_foreach_", "aten::_amp_")):
        return "optimizer"
    return CLASS_OF.get(op["name"], "elementwise")


def kernel_classes(ops, recorded):
    """Kernels per class: compute ops that are not host work."""
    return collections.Counter(kernel_class(op) if recorded else op["kind"] for op in ops if h200.is_kernel(op))


def compare(simtrain, row, tmp):
    generated = os.path.join(tmp, "generated.json")
    h200.run([simtrain, "trace", "--gpus", "1", *h200.workload_args(row), "-o", generated])
    with open(generated) as f:
        ops = [op for program in json.load(f)["programs"] for op in program["ops"] if op["type"] == "compute"]
    return kernel_classes(h200.imported_ops(simtrain, row, tmp), True), kernel_classes(ops, False)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simtrain", default=h200.SIMTRAIN)
    parser.add_argument("--steps", default=h200.STEPS)
    parser.add_argument("--only", help="one configuration, by name")
    parser.add_argument("--max-total-error", type=float)
    parser.add_argument("--max-class-error", type=float)
    args = parser.parse_args()

    rows = h200.rows(args.steps)
    failed = False
    worst_total = worst_class = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            if args.only and row["name"] != args.only:
                continue
            try:
                recorded, generated = compare(args.simtrain, row, tmp)
            except RuntimeError as error:
                print(error, file=sys.stderr)
                return 2
            total_r, total_g = sum(recorded.values()), sum(generated.values())
            total_error = 100 * (total_g - total_r) / total_r
            worst_total = max(worst_total, abs(total_error))
            print(f"{row['name']}: {total_r} kernels traced, {total_g} generated ({total_error:+.0f}%)")
            for kind in sorted(set(recorded) | set(generated), key=lambda k: -recorded.get(k, 0)):
                r, g = recorded.get(kind, 0), generated.get(kind, 0)
                note = ""
                if r >= 0.05 * total_r:
                    error = 100 * (g - r) / r
                    worst_class = max(worst_class, abs(error))
                    note = f"{error:+6.0f}%"
                    if args.max_class_error is not None and abs(error) > args.max_class_error:
                        failed, note = True, note + f"  beyond {args.max_class_error:g}%"
                print(f"  {kind:<14} {r:6d} {g:6d} {note}")
            if args.max_total_error is not None and abs(total_error) > args.max_total_error:
                failed = True
                print(f"  total beyond {args.max_total_error:g}%")
    print(f"worst total error {worst_total:.0f}%, worst error of a class with 5% of the kernels {worst_class:.0f}%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
