// What simtrain-calibrate knows about NVIDIA GPU generations without asking the GPU: which dtypes their
// tensor cores run and how many FLOPs one SM does per clock in each, from which peak rates follow.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/dtype.h"

namespace simtrain::calibration::tool {

// A compute capability, e.g. {9, 0} for Hopper.
struct ComputeCapability {
  int major = 0;
  int minor = 0;
  std::string text() const;  // "sm_90"
};

// Dense FLOPs per clock per SM of one generation (multiply-add = 2), 0 where the dtype is unsupported.
// fp16/bf16/tf32/fp8 are tensor-core rates with fp32 accumulation; fp32 is the CUDA cores' rate.
struct PerSmRates {
  double fp32 = 0, tf32 = 0, fp16 = 0, bf16 = 0, fp8 = 0;
  double of(DType dtype) const;
};

// The rates of a known generation (sm_70 to sm_120), or nullopt for one this table does not know.
std::optional<PerSmRates> per_sm_rates(ComputeCapability cc);

// Whether a GPU of this capability runs `dtype` at all (tf32 and bf16 from sm_80, fp8 from sm_89). An
// unknown newer capability is assumed to run everything; an unknown older one only fp32 and fp16.
bool supports(ComputeCapability cc, DType dtype);

// Exponentials (MUFU.EX2) one SM's special-function units do per clock: 16 on every generation from Volta to
// Blackwell, 32 on Blackwell Ultra (sm_103: B300, GB300), whose SFUs NVIDIA doubled for attention's softmax.
double exponentials_per_clock_per_sm(ComputeCapability cc);

// SM count x clock x per-SM rate for every supported dtype of a known generation; empty for an unknown one
// (the caller then records the fastest measured GEMM rate instead). Datasheet peaks of some boards use a
// lower "tensor" clock than the maximum clock the driver reports (H100 SXM: 1.83 vs 1.98 GHz), so these can
// exceed the datasheet by up to ~8%.
std::map<DType, double> peak_flops_per_s(ComputeCapability cc, int sm_count, double clock_mhz);

// The dtypes to measure. `requested` empty means all five: those the GPU does not support are skipped, each
// with a line in `warnings`. A dtype asked for by name (--dtypes) that the GPU does not support is an Error.
std::vector<DType> dtypes_to_measure(ComputeCapability cc, const std::string& gpu_name,
                                     const std::vector<DType>& requested, std::vector<std::string>& warnings);

// The driver release ("580.159.04") in the first line of /proc/driver/nvidia/version, which reads
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  ..." or, for the open modules,
// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  ...": the first word after
// "Kernel Module" that starts with a digit; "" when there is none.
std::string driver_release_from_version_line(const std::string& line);

}  // namespace simtrain::calibration::tool
