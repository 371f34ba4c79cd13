// Owning handles for GPU and pinned host memory, and filling GPU buffers with random non-zero values.
#pragma once

#include <cstddef>
#include <cstdint>

#include <curand.h>

#include "common/dtype.h"

namespace simtrain::calibration::tool {

// cudaMalloc'ed bytes, freed on destruction. Allocation failure throws Unsupported (the shape is skipped).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  // The address `offset` bytes in.
  void* at(std::size_t offset) const { return static_cast<std::uint8_t*>(data_) + offset; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// cudaMallocHost'ed (page-locked) bytes: host-device copies run at full PCIe or C2C speed only from these.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

// cuRAND's host-side generator, seeded once per run so that runs are repeatable.
class RandomSource {
 public:
  explicit RandomSource(unsigned long long seed = 20240601);
  ~RandomSource();
  RandomSource(const RandomSource&) = delete;
  RandomSource& operator=(const RandomSource&) = delete;

  // Fills all of `buffer` with random values of `dtype` in +-[0.5, 1] (element_encoding.h): a block of up to
  // 4 MiB is generated on the host and copied, then repeated across the buffer by device-to-device copies.
  void fill(const DeviceBuffer& buffer, DType dtype);

 private:
  curandGenerator_t generator_ = nullptr;
};

// Aligns byte offsets of sub-buffers: 256 bytes satisfies every library's alignment rule.
inline std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace simtrain::calibration::tool
