#!/usr/bin/env python3
"""Derives the default roofline efficiencies of spec profiles (calibration/calibration_profile.h) from the
published kernel measurements in validation/reference/kernels/, so that they come from kernel benchmarks and not
from the end-to-end training figures the validation tests compare against. Prints each figure and its basis.

usage: tools/derive_efficiencies.py [--reference validation/reference]
"""
import argparse
import csv
import math
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
    print()
    generations(kernels)
    print()
    low_intensity_gemms(kernels)
    print()
    moe_flex_dispatch(kernels)


# Per-generation figures (calibration/spec_profiles.cc). GEMMs: the fraction of peak one SM's tile reaches
# ("core"), with wave quantization over 128 x 128 output tiles, combined with the time its operands and
# output take at the memory-bound fraction of HBM as the root of the sum of squares, and the launch cost on
# top, as the cost model applies them (simulator/cost/compute_cost.cc).
TILE = 128
LAUNCH_S = 4e-6
MEMORY_BOUND = 0.863  # Hopper's STREAM fraction (memory-bound, below); Blackwell keeps it
OPERAND_BYTES = {"fp8": 1, "fp4": 0.5, "fp16": 2, "bf16": 2}  # outputs are 16-bit
SMS = {"H100": 132, "H200": 132, "A100": 108, "GB200": 148, "GB300": 148}
PEAK = {("H100", "fp8"): 1979, ("H200", "fp8"): 1979, ("A100", "fp16"): 312, ("GB200", "fp8"): 5000,
        ("GB200", "fp4"): 10000, ("GB300", "fp8"): 5000, ("GB300", "fp4"): 15000}
HBM = {"H100": 3350, "H200": 4800, "A100": 2039, "GB200": 8000, "GB300": 8000}
# Board power each GPU is held to (W): gpu_peak_specs.csv's TDP column; GB300 is GB200's 1,200 W plus the
# 16% Azure gives for ND GB300 v6 over ND GB200 v6 (techcommunity.microsoft.com, blog 4466080).
POWER_W = {"B200 SXM": 1000, "B300 SXM": 1100, "GB200": 1200, "GB300": 1400}


def gpu_of(row):
    """The GPU's short name: "GB200 (ND GB200 v6)" -> GB200, "H100-SXM5-80GB (ND H100 v5)" -> H100."""
    return row["gpu"].split()[0].split("-")[0]


def wave_fraction(m, n, sms):
    tiles = -(-m // TILE) * -(-n // TILE)
    waves = -(-tiles // sms)
    return tiles / (waves * sms)


def gemm_memory_s(m, n, k, dtype, hbm_GBps):
    """The time a GEMM's operands and 16-bit output take at the memory-bound fraction of HBM."""
    return ((m * k + k * n) * OPERAND_BYTES[dtype] + 2 * m * n) / (hbm_GBps * 1e9 * MEMORY_BOUND)


def gemm_time_s(compute_s, memory_s, exponent=2):
    """A GEMM's time from its tensor-core and memory times: the tiles' loads and stores overlap their math
    only partly, so near the ridge point both count (the root of the sum of squares; exponent None: the
    plain roofline's max), plus the launch."""
    if exponent is None:
        return max(compute_s, memory_s) + LAUNCH_S
    return (compute_s ** exponent + memory_s ** exponent) ** (1 / exponent) + LAUNCH_S


def gemm_core(rows):
    """Fraction of peak that, after wave quantization, memory and launch, gives each measured time."""
    out = []
    for r in rows:
        gpu, dtype = gpu_of(r), r["dtype"].split()[0]
        m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
        flops = 2.0 * m * n * k
        t = flops / (float(r["tflops"]) * 1e12) - LAUNCH_S
        memory = gemm_memory_s(m, n, k, dtype, HBM[gpu])
        compute = math.sqrt(max(t * t - memory * memory, (t / 10) ** 2))
        out.append((gpu, flops / (compute * PEAK[(gpu, dtype)] * 1e12 * wave_fraction(m, n, SMS[gpu]))))
    return out


def hopper_fp8_sweep(gemm):
    """The compute-bound square and near-square GEMMs of Azure's H100 and H200 cuBLASLt FP8 sweeps, which set
    Hopper's FP8 core (the skinny 802816 x 192 x 768 is bandwidth-bound, the 1024^3 launch-bound: they check
    the shape model, they do not set the core)."""
    return [r for r in gemm if r["source"].startswith("Azure/") and gpu_of(r) in ("H100", "H200")
            and int(r["N"]) >= 2048 and int(r["M"]) >= 2048]


def generations(kernels):
    gemm = rows(os.path.join(kernels, "gemm_tflops_published.csv"))
    cores = gemm_core(hopper_fp8_sweep(gemm))
    hopper_fp8 = statistics.median(c for _, c in cores)
    print(f"hopper gemm_fp8 core {hopper_fp8:.3f}  median of {len(cores)} Azure cuBLASLt FP8 GEMMs (H100, H200)")
    for gpu in ("H100", "H200"):  # leave one GPU out
        rest = statistics.median(c for g, c in cores if g != gpu)
        held = [c for g, c in cores if g == gpu]
        err = statistics.mean(abs(rest / c - 1) for c in held)
        print(f"  leave {gpu} out: core {rest:.3f}, mean error on {gpu}'s GEMMs {err:.1%}")
    # Whole sweep through the shape model with the fitted core.
    errors = []
    for r in gemm:
        gpu = gpu_of(r)
        if not r["source"].startswith("Azure/") or gpu not in ("H100", "H200"):
            continue
        m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
        flops = 2.0 * m * n * k
        compute = flops / (PEAK[(gpu, "fp8")] * 1e12 * hopper_fp8 * wave_fraction(m, n, SMS[gpu]))
        predicted = flops / gemm_time_s(compute, gemm_memory_s(m, n, k, "fp8", HBM[gpu])) / 1e12
        errors.append(predicted / float(r["tflops"]) - 1)
        print(f"  {gpu} fp8 {m}x{n}x{k}: measured {float(r['tflops']):7.1f} predicted {predicted:7.1f} "
              f"({errors[-1]:+.1%})")
    print(f"  shape model over the {len(errors)} Hopper FP8 GEMMs: MAPE "
          f"{statistics.mean(abs(e) for e in errors):.1%}")

    # MAMF (stas00/ml-engineering: best shape of a brute-force torch.matmul sweep, 50 warm-up iterations) per
    # GPU and dtype. Azure's sweeps run 10,000 warm-up iterations first, so they measure the clock a GPU
    # sustains at its power limit, as training does; MAMF measures a short burst. Hopper's 16-bit core is its
    # MAMF times Hopper's sweep / MAMF factor ("sustain"); Blackwell's sweeps set its power limit model below.
    mamf = {(r["gpu"], r["dtype"].split()[0]): float(r["tflops"]) / float(r["peak_tflops"])
            for r in gemm if r["source"].startswith("stas00/")}
    hopper_sustain = hopper_fp8 / statistics.mean([mamf[("H100 SXM", "fp8")], mamf[("H200 SXM", "fp8")]])
    print(f"hopper sustain {hopper_sustain:.3f}  (Hopper FP8 sweep core over the H100 and H200 FP8 MAMF)")
    hopper_bf16 = mamf[("H100 SXM", "bf16")] * hopper_sustain
    print(f"hopper gemm (16-bit) {hopper_bf16:.3f}  H100 bf16 MAMF {mamf[('H100 SXM', 'bf16')]:.3f} x sustain")
    # Sustained below their burst rate, H100 and H200 run their GEMMs at their power limit (700 W both): a
    # joule buys the sustained rate over 700 W, so a GPU capped lower sustains proportionally less.
    print(f"hopper gemm_tflops_per_joule (16-bit) {hopper_bf16 * 989 / 700:.3f}, gemm_fp8 "
          f"{hopper_fp8 * 1979 / 700:.3f}  the sustained rates over the 700 W TDP")

    # Blackwell is power-limited: through 10,000 warm-up iterations GB200 (1,200 W) sustains 0.81 of its
    # FP8 MAMF, and GB300 (1,400 W), with the same FP8 peak, 14% more than GB200. So a Blackwell GPU's
    # sustained tensor-core rate is its power limit times the FLOPs a joule buys, one figure per dtype for the
    # generation; the MAMF-based fraction caps it (the rate a GPU reaches before its power limit binds).
    def sustained_core(gpu, dtype):
        chosen = [r for r in gemm if r["source"].split("/")[1].startswith("AI-benchmarking-guide")
                  and gpu_of(r) == gpu and r["dtype"] == dtype and int(r["N"]) >= 4096 and int(r["M"]) >= 4096]
        return statistics.median(c for _, c in gemm_core(chosen)), chosen

    joules = {}
    for dtype in ("fp8", "fp4"):
        per_gpu = {}
        for gpu in ("GB200", "GB300"):
            core, chosen = sustained_core(gpu, dtype)
            per_gpu[gpu] = core * PEAK[(gpu, dtype)] / POWER_W[gpu]
            print(f"blackwell {dtype} on {gpu}: sustained core {core:.3f} of {PEAK[(gpu, dtype)]} TFLOP/s at "
                  f"{POWER_W[gpu]} W = {per_gpu[gpu]:.3f} TFLOP/J  (median of {len(chosen)} Azure cuBLASLt GEMMs)")
        joules[dtype] = statistics.mean(per_gpu.values())
        print(f"blackwell gemm_{dtype}_tflops_per_joule {joules[dtype]:.3f}  mean of GB200 and GB300")
        for held, other in (("GB200", "GB300"), ("GB300", "GB200")):  # leave one GPU out
            _, chosen = sustained_core(held, dtype)
            errors = []
            for r in chosen:
                m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
                core = per_gpu[other] * POWER_W[held] / PEAK[(held, dtype)]
                compute = 2.0 * m * n * k / (PEAK[(held, dtype)] * 1e12 * core * wave_fraction(m, n, SMS[held]))
                memory = gemm_memory_s(m, n, k, dtype, HBM[held])
                predicted = 2.0 * m * n * k / gemm_time_s(compute, memory) / 1e12
                errors.append(abs(predicted / float(r["tflops"]) - 1))
            print(f"  leave {held} out: {per_gpu[other]:.3f} TFLOP/J from {other}, MAPE on {held}'s "
                  f"{len(errors)} compute-bound GEMMs {statistics.mean(errors):.1%}")
    # bf16 runs the tensor cores at half FP8's FLOPs per clock; at the same power it sustains the same clock,
    # so it buys each GPU's bf16 / FP8 MAMF rate ratio of FP8's FLOPs per joule.
    ratios = [mamf[(g, "bf16")] / mamf[(g, "fp8")] / 2 for g in ("B200 SXM", "B300 SXM", "GB200 SXM")]
    bf16 = joules["fp8"] * statistics.mean(ratios)
    print(f"blackwell gemm_tflops_per_joule (16-bit) {bf16:.3f}  the FP8 figure x the bf16 / FP8 MAMF rate "
          f"ratios ({', '.join(f'{r:.3f}' for r in ratios)})")

    burst = {}
    for dtype, name in (("bf16", "gemm (16-bit)"), ("fp8", "gemm_fp8")):
        each = {g: mamf[(g, dtype)] for g in ("B200 SXM", "B300 SXM", "GB200 SXM")}
        burst[dtype] = statistics.mean(each.values()) * hopper_sustain
        print(f"blackwell {name} cap {burst[dtype]:.3f}  mean MAMF of "
              f"{', '.join(f'{g} {v:.3f}' for g, v in each.items())} x Hopper's sustain")
    print("blackwell gemm_fp4 cap: no published NVFP4 MAMF: the gemm_fp8 cap")
    for gpu, fp8_peak in (("B200 SXM", 4500), ("B300 SXM", 4500), ("GB200", 5000), ("GB300", 5000)):
        fraction = min(burst["fp8"], joules["fp8"] * POWER_W[gpu] / fp8_peak)
        print(f"  {gpu} at {POWER_W[gpu]} W sustains FP8 GEMMs at {fraction:.3f} of peak "
              f"({fraction * fp8_peak:.0f} TFLOP/s)")

    # Memory-bound: the mean of STREAM copy, mul, add and triad over datasheet HBM bandwidth, per GPU.
    bench = rows(os.path.join(kernels, "azure_microbench_hbm_nvbw_flashattn.csv"))
    hbm_peak = {"A100-SXM4-80GB": 2039, "H100-SXM5-80GB": 3350, "H200-SXM-141GB": 4800}
    per_gpu = {}
    for r in bench:
        if r["gpu"] in hbm_peak and r["metric"] in ("HBM stream Copy", "HBM stream Mul", "HBM stream Add",
                                                    "HBM stream Triad"):
            per_gpu.setdefault(r["gpu"], []).append(float(r["value"]) * 1000 / hbm_peak[r["gpu"]])
    for gpu, fractions in per_gpu.items():
        print(f"memory_bound {gpu} {statistics.mean(fractions):.3f}  mean of STREAM copy/mul/add/triad")
    hopper = statistics.mean(statistics.mean(per_gpu[g]) for g in ("H100-SXM5-80GB", "H200-SXM-141GB"))
    print(f"hopper memory_bound {hopper:.3f}  (H100, H200); Blackwell: Hopper's (GB200's one published figure, "
          "7.35 TB/s = 0.92 in Azure's blog, kernel not named, is within H100's copy 0.87 to dot 0.95)")
    print("hopper memory_bound_unvectorized, memory_bound_multi_tensor, attention_fixed_tiles: not published "
          "kernel figures but fits to the H200's Kineto traces (tools/fit_unvectorized_bandwidth.py, "
          "fit_multi_tensor_bandwidth.py, fit_attention_tiles.py --profile with `simtrain profile show "
          "h200-sxm --json`); Blackwell: Hopper's")

    # Attention: the forward kernel Megatron-Bridge runs (Transformer Engine's cuDNN fused attention, FA3-class
    # on Hopper) and its backward, which reaches 0.86 of the forward's fraction (FlashAttention-2 paper,
    # arXiv:2307.08691: forward up to 73%, backward up to 63% of A100 peak). Forward and backward weighted by
    # their FLOPs (1 : 2.5) as times.
    def combined(forward):
        backward = forward * 63 / 73
        return 3.5 / (1 / forward + 2.5 / backward)
    fa3 = 614.2 / 989  # pytorch/benchmark@ff65cb6 (PR 2391): FA3 forward, batch 2, 16 heads, seq 8192, hdim 128
    cudnn_b200 = 1605 / 1.3 / 2250  # FlashAttention-4 (arXiv, together.ai blog): 1,605 TFLOP/s, 1.3x cuDNN 9.13
    print(f"hopper attention {combined(fa3):.3f}  FA3 forward {fa3:.3f} (pytorch/benchmark PR 2391)")
    print(f"blackwell attention {combined(cudnn_b200):.3f}  cuDNN 9.13 forward {cudnn_b200:.3f} on B200 "
          "(FlashAttention-4's 1,605 TFLOP/s / 1.3)")
    # FlashAttention-2 itself (PyTorch stacks outside Transformer Engine): its forward on H100 and H200 from the
    # Azure table (hdim 128, batch 2, seq 8192), combined the same way.
    fa2 = statistics.mean(float(r["value"]) / 989 for r in bench if r["metric"] == "FlashAttention-2" and
                          r["gpu"].startswith(("H100", "H200")))
    print(f"hopper attention_flash2 {combined(fa2):.3f}  FA2 forward {fa2:.3f} (Azure, H100 and H200)")
    fa2_a100 = statistics.mean(float(r["value"]) / 312 for r in bench if r["metric"] == "FlashAttention-2" and
                               r["gpu"].startswith("A100"))
    print(f"ampere attention_flash2 = attention {combined(fa2_a100):.3f}  "
          f"FA2 forward {fa2_a100:.3f} (Azure, A100, hdim 64)")
    # Where those figures hold: the Hopper and Ampere benchmarks ran non-causal (tritonbench and Azure's
    # flash-attention script leave causal off) at 8,192 tokens, so each query tile of 128 visits 8,192 / 128
    # key tiles; FlashAttention-4's B200 figures come from its long sequences and take the same count.
    print(f"attention_reference_kv_tiles {8192 // 128}  (Ampere, Hopper: non-causal, seq 8192; Blackwell: "
          "the same, FlashAttention-4's long sequences)")


def low_intensity_gemms(kernels):
    """The one figure of the GEMM time's memory part: how a tile's loads and stores combine with its math
    (gemm_time_s's exponent; 2, the root of the sum of squares, in the cost model). It matters only near the
    ridge point, so it is checked where the tables have shapes there: Azure's skinny 802,816 x 192 x 768 on
    each GPU (each GPU's core from its own compute-bound sweep points) and DeepGEMM's H800 tables (Hopper's
    FP8 core). Each table's exponent is chosen on the others, leaving the table out."""
    gemm = rows(os.path.join(kernels, "gemm_tflops_published.csv"))
    cases = {}  # table -> [(compute_s, memory_s, measured_s)]
    for r in gemm:
        gpu, dtype = gpu_of(r), r["dtype"].split()[0]
        azure = r["source"].startswith(("Azure/", "egmsft/"))
        if not azure or (gpu, dtype) not in PEAK or r["M"] != "802816":
            continue
        sweep = [q for q in gemm if q["source"] == r["source"] and gpu_of(q) == gpu and q["dtype"] == r["dtype"]
                 and int(q["M"]) >= 4096 and int(q["N"]) >= 4096]
        core = statistics.median(c for _, c in gemm_core(sweep))
        m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
        flops = 2.0 * m * n * k
        compute = flops / (PEAK[(gpu, dtype)] * 1e12 * core * wave_fraction(m, n, SMS[gpu]))
        name = f"Azure {gpu} {dtype} ({r['source'].split('@')[1][:7]})"
        cases[name] = [(compute, gemm_memory_s(m, n, k, dtype, HBM[gpu]), flops / (float(r["tflops"]) * 1e12))]
    hopper_fp8 = statistics.median(c for _, c in gemm_core(hopper_fp8_sweep(gemm)))
    # DeepGEMM's decode shapes (64 and 128 rows) take a few microseconds, below what the 4 us launch resolves.
    for r in rows(os.path.join(kernels, "deepgemm_h800_fp8.csv")):
        groups, m, n, k = int(r["groups"]), int(r["m"]), int(r["n"]), int(r["k"])
        if m <= 128:
            continue
        flops = 2.0 * m * n * k
        compute = flops / (PEAK[("H100", "fp8")] * 1e12 * hopper_fp8 * wave_fraction(m, n, SMS["H100"]))
        memory = gemm_memory_s(m, n, k, "fp8", HBM["H100"])
        cases.setdefault(f"DeepGEMM H800 {r['layout']}", []).append(
            (groups * compute, groups * memory, groups * flops / (float(r["tflops"]) * 1e12)))

    grid = [None, 1.5, 2, 3, 4]

    def error(exponent, names):
        errors = [gemm_time_s(c, mem, exponent) / t - 1 for name in names for c, mem, t in cases[name]]
        return statistics.mean(abs(e) for e in errors)

    print("GEMM time near the ridge point: exponent of compute and memory (None: max), leave one table out")
    for name in cases:
        rest = [other for other in cases if other != name]
        best = min(grid, key=lambda e: error(e, rest))
        print(f"  {name:<34} chosen {str(best):>4}: MAPE {error(best, [name]):5.1%}  "
              f"(max {error(None, [name]):5.1%}, 2 {error(2, [name]):5.1%})")
    print(f"  all {sum(len(v) for v in cases.values())} shapes: max {error(None, cases):.1%}, "
          f"2 {error(2, cases):.1%}")


def flex_dispatch_share(row, column):
    """What one row of moe_flex_dispatch_nvlink.csv moves of the NVLink line: its bandwidth counts every
    received token, the rank's own too, of which (N-1)/N cross NVLink."""
    n = int(row["ranks"])
    return float(row[column]) * (n - 1) / n / float(row["nvlink_GBps"])


def moe_flex_dispatch(kernels):
    """The flex MoE dispatcher inside a node. Blackwell: from HybridEP's GB200 runs through its PyTorch API on
    32 SMs (Megatron-Bridge's setting), a share of NVLink for a row's bytes (moe_flex_dispatch_intra_node) and a
    cost per row beside them (moe_flex_dispatch_row_s): each run's FP8 and BF16 dispatches move the same rows
    in 7,392 and 14,336 bytes, so their two times give both; the medians of the runs, per row and byte that
    cross NVLink ((N-1)/N of those counted), checked on the B200 run and the combines. Hopper: DeepEP's one
    H800 row, bytes only."""
    table = rows(os.path.join(kernels, "moe_flex_dispatch_nvlink.csv"))
    api = [r for r in table if r["measurement"] == "torch_api"]
    fp8_bytes, bf16_bytes = 7168 * (1 + 4 / 128), 7168 * 2

    def predicted_s(r, row_bytes, row, share):
        """A counted row's time in run r: (N-1)/N of the rows cross NVLink, each its cost and its bytes."""
        n = int(r["ranks"])
        return (n - 1) / n * (row + row_bytes / (share * float(r["nvlink_GBps"]) * 1e9))

    fitted = [r for r in api if r["gpu"] == "GB200" and r["sms"] == "32"]
    row_s, shares = [], []
    for r in fitted:
        n = int(r["ranks"])
        fp8_s = fp8_bytes / (float(r["dispatch_fp8_GBps"]) * 1e9)  # per counted row
        bf16_s = bf16_bytes / (float(r["dispatch_bf16_GBps"]) * 1e9)
        per_byte_s = (bf16_s - fp8_s) / (bf16_bytes - fp8_bytes)
        row_s.append((fp8_s - fp8_bytes * per_byte_s) * n / (n - 1))
        shares.append((n - 1) / n / per_byte_s / float(r["nvlink_GBps"]) / 1e9)
    row, share = statistics.median(row_s), statistics.median(shares)
    columns = (("dispatch_bf16_GBps", bf16_bytes), ("dispatch_fp8_GBps", fp8_bytes), ("combine_GBps", bf16_bytes))
    # Each run left out: the other four's medians predict its FP8 and BF16 dispatches and its combine.
    held_out = []
    for i, r in enumerate(fitted):
        rest_row = statistics.median(v for j, v in enumerate(row_s) if j != i)
        rest_share = statistics.median(v for j, v in enumerate(shares) if j != i)
        for column, row_bytes in columns:
            measured_s = row_bytes / (float(r[column]) * 1e9)
            held_out.append(abs(measured_s / predicted_s(r, row_bytes, rest_row, rest_share) - 1))
    print(f"blackwell moe_flex_dispatch_intra_node {share:.3f}, moe_flex_dispatch_row_s {row * 1e9:.2f} ns  "
          f"medians of {len(shares)} HybridEP GB200 runs on 32 SMs ({min(shares):.3f} to {max(shares):.3f}, "
          f"{min(row_s) * 1e9:.2f} to {max(row_s) * 1e9:.2f} ns); each run left out: time MAPE "
          f"{statistics.mean(held_out):.1%} over its {len(held_out)} dispatches and combines")
    for r in (r for r in api if r["gpu"] in ("B200", "GB200")):
        for column, row_bytes in columns:
            fitted_on = r["sms"] == "32" and column != "combine_GBps"
            if r["gpu"] == "GB200" and (fitted_on or column == "dispatch_fp8_GBps"):
                continue  # fitted on, or (FP8 on 16 SMs) short of SMs
            measured_s = row_bytes / (float(r[column]) * 1e9)
            print(f"  held out: HybridEP {r['gpu']} {r['ranks']} ranks {r['sms']} SMs {column[:-5]} "
                  f"{measured_s / predicted_s(r, row_bytes, row, share) - 1:+.1%} fast")
    h800 = [flex_dispatch_share(r, c) for r in api if r["gpu"] == "H800"
            for c in ("dispatch_fp8_GBps", "combine_GBps")]
    print(f"hopper moe_flex_dispatch_intra_node {statistics.mean(h800):.3f}  DeepEP H800 EP 8, the mean of its "
          f"dispatch and combine ({', '.join(f'{v:.3f}' for v in h800)}); no row cost (one width per operation)")


if __name__ == "__main__":
    main()
