// Bit patterns of random operand values in each dtype, made on the host so that filling GPU buffers needs
// no CUDA kernels of our own (the tool compiles without nvcc).
#pragma once

#include <cstdint>
#include <vector>

#include "common/dtype.h"

namespace simtrain::calibration::tool {

// Maps uniform samples u in (0, 1] to values whose magnitude lies in [0.5, 1] and whose sign alternates
// with the sample's low bits, and encodes them in `dtype` (little-endian bytes, element after element).
// Never zero, never denormal, never infinite: tensor cores then do the same work as on real activations,
// and sums of thousands of products stay finite in fp16.
std::vector<std::uint8_t> encode_random_values(DType dtype, const std::vector<float>& uniform);

// Single-value encoders, rounding toward zero (exact for the values above).
std::uint16_t fp16_bits(float value);
std::uint16_t bf16_bits(float value);
std::uint8_t fp8_e4m3_bits(float value);

}  // namespace simtrain::calibration::tool
