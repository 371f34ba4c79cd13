// Specification of ssd_kernels.h: the kernels of a Mamba-2 mixer's conv1d and chunked SSD scan in training.
#include <doctest/doctest.h>

#include <map>

#include "simulator/workload/ssd_kernels.h"
#include "tests/support/approx.h"

using namespace simtrain::workload;

namespace {

// Nemotron-H-8B's mixer on one GPU: 128 heads of 64, 8 groups of state 128, conv1d of 4 taps, 8,192 tokens.
SsdShape nemotron_h_8b() { return {8192, 128, 64, 8, 128, 4, 2}; }

double total_bytes(const std::vector<SsdKernel>& kernels) {
  double bytes = 0;
  for (const SsdKernel& k : kernels) bytes += k.bytes;
  return bytes;
}

std::map<std::string, SsdKernel> by_name(const std::vector<SsdKernel>& kernels) {
  std::map<std::string, SsdKernel> named;
  for (const SsdKernel& k : kernels) named[k.name] = k;
  return named;
}

}  // namespace

TEST_CASE("the forward pass: conv1d, then the scan's five kernels, the states crossing HBM in fp32") {
  const SsdShape s = nemotron_h_8b();
  const auto forward = ssd_forward_kernels(s);
  REQUIRE(forward.size() == 6);
  CHECK(forward.front().name == "conv1d.fwd");
  CHECK(forward.back().name == "ssd.chunk_scan.fwd");
  const double states = 8192.0 / kSsdChunk * 128 * 64 * 128;  // per chunk and head a P x N state
  // State passing reads the chunks' states and writes the passed ones, both fp32.
  CHECK(by_name(forward).at("ssd.state_passing.fwd").bytes == simtrain::testing::Approx(2 * states * 4));
  // The matmul kernels' FLOPs: the chunk states (2 N P), the causal half of the intra-chunk product (Q P),
  // the states' contribution (2 N P) and the gate (5 P) per token and head; C B^T per group (2 Q N).
  double matmul_flops = 0;
  for (const SsdKernel& k : forward) matmul_flops += k.matmul ? k.flops : 0;
  CHECK(matmul_flops == simtrain::testing::Approx(
                            8192.0 * (128 * (4 * 128 * 64 + 128 * 64 + 5 * 64) + 8 * 2 * kSsdChunk * 128)));
}

TEST_CASE("the backward pass recomputes the conv1d and the forward's chunk states") {
  const SsdShape s = nemotron_h_8b();
  const auto forward = by_name(ssd_forward_kernels(s));
  const auto backward = by_name(ssd_backward_kernels(s));
  CHECK(backward.at("conv1d.recompute").bytes == forward.at("conv1d.fwd").bytes);
  for (const char* kernel : {"ssd.chunk_cumsum", "ssd.bmm_chunk", "ssd.chunk_state", "ssd.state_passing"}) {
    CAPTURE(kernel);
    CHECK(backward.at(std::string(kernel) + ".recompute").bytes ==
          forward.at(std::string(kernel) + ".fwd").bytes);
    CHECK(backward.at(std::string(kernel) + ".recompute").flops ==
          forward.at(std::string(kernel) + ".fwd").flops);
  }
  // The reverse cumulative sum of dA's gradient is five eager PyTorch ops.
  CHECK(backward.at("ssd.dda_reverse_cumsum").launches == 5);
  // Recomputation and eleven gradient kernels move more than twice the forward's bytes.
  CHECK(total_bytes(ssd_backward_kernels(s)) > 2 * total_bytes(ssd_forward_kernels(s)));
}

TEST_CASE("every kernel's work is linear in tokens and in the heads and groups a GPU holds") {
  const SsdShape s = nemotron_h_8b();
  SsdShape twice = s, half = s;
  twice.tokens *= 2;
  half.heads /= 2;  // tensor parallelism over 2 ranks splits heads and groups
  half.groups /= 2;
  for (const auto& kernels_of : {ssd_forward_kernels, ssd_backward_kernels}) {
    const auto base = kernels_of(s), longer = kernels_of(twice), split = kernels_of(half);
    for (std::size_t i = 0; i < base.size(); ++i) {
      CAPTURE(base[i].name);
      CHECK(longer[i].bytes == simtrain::testing::Approx(2 * base[i].bytes));
      CHECK(longer[i].flops == simtrain::testing::Approx(2 * base[i].flops));
      CHECK(split[i].bytes == simtrain::testing::Approx(base[i].bytes / 2));
      CHECK(split[i].flops == simtrain::testing::Approx(base[i].flops / 2));
    }
  }
}

TEST_CASE("the model's FLOPs count each chunk's whole square, the kernels its causal half") {
  const SsdShape s = nemotron_h_8b();
  const double conv = 2 * 4 * (128 * 64 + 2 * 8 * 128);
  CHECK(ssd_model_flops(s) ==
        simtrain::testing::Approx(8192.0 *
                                  (conv + 128 * (2 * kSsdChunk + 4 * 128) * 64 + 8 * 2 * kSsdChunk * 128)));
  double kernels = 0;
  for (const SsdKernel& k : ssd_forward_kernels(s)) kernels += k.flops;
  CHECK(kernels < ssd_model_flops(s));
}
