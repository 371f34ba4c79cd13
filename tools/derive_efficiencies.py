#!/usr/bin/env python3
"""Derives the default roofline efficiencies of spec profiles (calibration/calibration_profile.h) from the
published kernel measurements in validation/reference/kernels/, so that they come from kernel benchmarks and not
from the end-to-end training figures the validation tests compare against. Prints each figure and its basis.

usage: tools/derive_efficiencies.py [--reference validation/reference]
"""
import argparse
import csv
import os
import statistics


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", default=os.path.join(here, "..", "validation", "reference"))
    kernels = os.path.join(parser.parse_args().reference, "kernels")

    # DeepBench on V100 (cuDNN 7.6, CUDA 10.1): fp32 on the CUDA cores (15.7 TFLOP/s peak) and fp16 with fp32
    # accumulation on tensor cores (125 TFLOP/s). GEMMs of at least 2^30 multiply-adds, as training uses.
    peaks = {"fp32": 15.7, "fp16_in_fp32_acc": 125.0}
    gemm = rows(os.path.join(kernels, "deepbench_v100_gemm.csv"))
    for precision, name in (("fp32", "gemm_fp32"), ("fp16_in_fp32_acc", "gemm")):
        fractions = [float(r["tflops"]) / peaks[precision] for r in gemm
                     if r["precision"] == precision and int(r["M"]) * int(r["N"]) * int(r["K"]) >= 2**30]
        print(f"{name:<14} {statistics.median(fractions):.3f}  median of {len(fractions)} DeepBench V100 GEMMs")

    # Convolutions: the three passes of DeepBench's image-model layers (its "Vision" and "Face Recognition"
    # rows: ImageNet-style CNN layers like the zoo's), pooled. Speech and OCR layers with one input channel are
    # left out: no zoo model has them.
    conv = rows(os.path.join(kernels, "deepbench_v100_conv.csv"))
    for precision, name in (("fp32", "conv_fp32"), ("fp16_in_fp32_acc", "conv")):
        fractions = [number(r[col]) / peaks[precision] for r in conv
                     if r["precision"] == precision and r["application"] in ("Vision", "Face Recognition")
                     for col in ("fwd_tflops", "bwd_data_tflops", "bwd_filter_tflops") if number(r[col])]
        print(f"{name:<14} {statistics.median(fractions):.3f}  median of {len(fractions)} DeepBench V100 "
              "image-model conv passes")

    # Memory-bound kernels: STREAM copy against datasheet HBM bandwidth.
    hbm_peak = {"A100-SXM4-80GB": 2039, "H100-SXM5-80GB": 3350, "H200-SXM-141GB": 4800}
    bench = rows(os.path.join(kernels, "azure_microbench_hbm_nvbw_flashattn.csv"))
    copy = [float(r["value"]) * 1000 / hbm_peak[r["gpu"]] for r in bench
            if r["metric"] == "HBM stream Copy" and r["gpu"] in hbm_peak]
    print(f"{'memory_bound':<14} {statistics.median(copy):.3f}  median STREAM copy / datasheet HBM of "
          f"{len(copy)} GPUs (Azure)")

    # Attention: FlashAttention-2 forward against the fp16 peak, per GPU.
    fp16_peak = {"A100-SXM4-80GB (hdim64)": 312, "H100-SXM5-80GB (hdim128)": 989, "H200-SXM-141GB (hdim128)": 989}
    for r in bench:
        if r["metric"] == "FlashAttention-2" and r["gpu"] in fp16_peak:
            print(f"{'attention':<14} {float(r['value']) / fp16_peak[r['gpu']]:.3f}  {r['gpu']} FlashAttention-2")


if __name__ == "__main__":
    main()
