// IEEE half, bfloat16 and OCP FP8 E4M3 encodings of normal float values.
#include "calibration/tool/element_encoding.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace simtrain::calibration::tool {
namespace {

// Splits a finite normal float into sign, unbiased exponent and the 23 fraction bits.
struct FloatParts {
  std::uint32_t sign;
  int exponent;
  std::uint32_t fraction;
};

FloatParts parts_of(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  return {bits >> 31, static_cast<int>((bits >> 23) & 0xff) - 127, bits & 0x7fffff};
}

// A normal value with `exponent_bits` and `mantissa_bits`, truncated; values out of its normal range are
// clamped to its smallest or largest normal magnitude so that nothing becomes zero, denormal or infinite.
std::uint32_t encode(float value, int exponent_bits, int mantissa_bits, int max_biased_exponent) {
  if (value == 0 || !std::isfinite(value)) value = 1.0f;
  const FloatParts p = parts_of(value);
  const int bias = (1 << (exponent_bits - 1)) - 1;
  int biased = p.exponent + bias;
  std::uint32_t mantissa = p.fraction >> (23 - mantissa_bits);
  if (biased < 1) biased = 1, mantissa = 0;
  if (biased > max_biased_exponent) biased = max_biased_exponent, mantissa = (1u << mantissa_bits) - 2;
  return (p.sign << (exponent_bits + mantissa_bits)) | (static_cast<std::uint32_t>(biased) << mantissa_bits) |
         mantissa;
}

}  // namespace

std::uint16_t fp16_bits(float value) { return static_cast<std::uint16_t>(encode(value, 5, 10, 30)); }

std::uint16_t bf16_bits(float value) {
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(value) >> 16);
}

// E4M3 has no infinities; exponent 15 with mantissa 111 is NaN, so the largest normal is 1.75 x 2^8 = 448.
std::uint8_t fp8_e4m3_bits(float value) { return static_cast<std::uint8_t>(encode(value, 4, 3, 15)); }

std::vector<std::uint8_t> encode_random_values(DType dtype, const std::vector<float>& uniform) {
  const int size = bytes_per_element(dtype);
  std::vector<std::uint8_t> bytes(uniform.size() * static_cast<std::size_t>(size));
  for (std::size_t i = 0; i < uniform.size(); ++i) {
    const float u = uniform[i];
    // The sign comes from a bit of the sample the magnitude barely depends on.
    const bool negative = (std::bit_cast<std::uint32_t>(u) >> 3) & 1;
    const float magnitude = 0.5f + 0.5f * std::fmin(std::fmax(u, 0.0f), 1.0f);
    const float value = negative ? -magnitude : magnitude;
    std::uint8_t* out = bytes.data() + i * static_cast<std::size_t>(size);
    if (size == 4) {
      std::memcpy(out, &value, 4);
    } else if (dtype == DType::FP16 || dtype == DType::BF16) {
      const std::uint16_t bits = dtype == DType::FP16 ? fp16_bits(value) : bf16_bits(value);
      std::memcpy(out, &bits, 2);
    } else {
      *out = fp8_e4m3_bits(value);
    }
  }
  return bytes;
}

}  // namespace simtrain::calibration::tool
