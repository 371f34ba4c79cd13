// GPU and pinned allocations and random fills.
#include "calibration/tool/device_memory.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "calibration/tool/element_encoding.h"
#include "calibration/tool/gpu_status.h"

namespace simtrain::calibration::tool {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  check_cuda(cudaMalloc(&data_, std::max<std::size_t>(bytes, 1)), "cudaMalloc");
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) cudaFree(data_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) {
  check_cuda(cudaMallocHost(&data_, std::max<std::size_t>(bytes, 1)), "cudaMallocHost");
}

PinnedBuffer::~PinnedBuffer() {
  if (data_ != nullptr) cudaFreeHost(data_);
}

RandomSource::RandomSource(unsigned long long seed) {
  check_curand(curandCreateGeneratorHost(&generator_, CURAND_RNG_PSEUDO_DEFAULT),
               "curandCreateGeneratorHost");
  check_curand(curandSetPseudoRandomGeneratorSeed(generator_, seed), "curandSetPseudoRandomGeneratorSeed");
}

RandomSource::~RandomSource() {
  if (generator_ != nullptr) curandDestroyGenerator(generator_);
}

void RandomSource::fill(const DeviceBuffer& buffer, DType dtype) {
  const std::size_t element = static_cast<std::size_t>(bytes_per_element(dtype));
  const std::size_t elements = buffer.bytes() / element;
  if (elements == 0) return;
  const std::size_t block = std::min<std::size_t>(elements, (4u << 20) / element);
  std::vector<float> uniform(block);
  check_curand(curandGenerateUniform(generator_, uniform.data(), block), "curandGenerateUniform");
  const std::vector<std::uint8_t> bytes = encode_random_values(dtype, uniform);
  check_cuda(cudaMemcpy(buffer.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  // Double the filled prefix until the buffer is full.
  const std::size_t total = elements * element;
  for (std::size_t filled = bytes.size(); filled < total;) {
    const std::size_t chunk = std::min(filled, total - filled);
    check_cuda(cudaMemcpy(buffer.at(filled), buffer.get(), chunk, cudaMemcpyDeviceToDevice), "cudaMemcpy");
    filled += chunk;
  }
}

}  // namespace simtrain::calibration::tool
