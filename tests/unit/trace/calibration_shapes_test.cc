// Specification of calibration_shapes.h: a trace's measurable kernels as simtrain-calibrate's shapes file.
#include "simulator/trace/calibration_shapes.h"

#include <doctest/doctest.h>

using namespace simtrain;
using trace::ComputeKind;
using trace::Pass;

namespace {

trace::Op kernel(ComputeKind kind, Pass pass, std::vector<std::int64_t> shape, double flops = 0) {
  trace::Op op;
  op.name = "k";
  op.compute.kind = kind;
  op.compute.pass = pass;
  op.compute.shape = std::move(shape);
  op.compute.flops = flops;
  return op;
}

trace::Trace one_program(std::vector<trace::Op> ops) {
  trace::Trace t;
  t.world_size = 1;
  t.programs.resize(1);
  t.programs[0].name = "rank0";
  t.programs[0].streams = {"compute"};
  t.programs[0].ops = std::move(ops);
  t.rank_program = {0};
  return t;
}

}  // namespace

TEST_CASE("GEMMs are laid out as their pass runs them, a grouped GEMM as one group, repeats once") {
  const trace::Trace t = one_program({kernel(ComputeKind::Gemm, Pass::Forward, {32, 1000, 2048}),
                                      kernel(ComputeKind::Gemm, Pass::BackwardData, {32, 2048, 1000}),
                                      kernel(ComputeKind::Gemm, Pass::BackwardWeight, {1000, 2048, 32}),
                                      kernel(ComputeKind::Gemm, Pass::Forward, {32, 1000, 2048}),
                                      kernel(ComputeKind::Gemm, Pass::Forward, {96, 512, 256, 4}),
                                      kernel(ComputeKind::Gemm, Pass::Forward, {0, 512, 256})});
  CHECK(trace::calibration_shapes_file(t, "t.json") ==
        "# kernel shapes of t.json (simtrain trace shapes)\n"
        "gemm 1000 2048 32 tn\n"
        "gemm 32 1000 2048 nt\n"
        "gemm 32 2048 1000 nn\n"
        "gemm 96 512 256 nt\n");
}

TEST_CASE("batch norm and pooling take the N C H W of a convolution tensor of as many elements") {
  // conv {n 2, c 3, 8x8, k 4, 3x3, stride 1, pad 1}: input 2x3x8x8 = 384, output 2x4x8x8 = 512 elements.
  const std::vector<std::int64_t> conv = {2, 3, 8, 8, 4, 3, 3, 1, 1};
  const double pool_flops = 2 * 4 * 4 * 4 * 9;  // 3x3 max pooling at stride 2 of the 8x8 output
  const trace::Trace t = one_program(
      {kernel(ComputeKind::Conv, Pass::Forward, conv), kernel(ComputeKind::BatchNorm, Pass::Forward, {512}),
       kernel(ComputeKind::BatchNorm, Pass::Forward, {384}),
       kernel(ComputeKind::BatchNorm, Pass::Forward, {4}),  // statistics: left out
       kernel(ComputeKind::Pool, Pass::Forward, {512}, pool_flops),
       kernel(ComputeKind::Pool, Pass::Forward, {384}, 384),  // not 3x3/2: out
       kernel(ComputeKind::Attention, Pass::Forward, {2, 4, 16, 8}),
       kernel(ComputeKind::Softmax, Pass::Forward, {2, 10}),
       kernel(ComputeKind::Elementwise, Pass::Forward, {512})});
  CHECK(trace::calibration_shapes_file(t, "cnn") ==
        "# kernel shapes of cnn (simtrain trace shapes)\n"
        "attention 2 4 16 8\n"
        "batch_norm 2 3 8 8\n"
        "batch_norm 2 4 8 8\n"
        "conv 2 3 8 8 4 3 3 1 1\n"
        "pool 2 4 8 8 3 2 1\n"
        "softmax 2 10\n");
}

TEST_CASE("the origin cannot start a line of its own") {
  const trace::Trace t = one_program({kernel(ComputeKind::Softmax, Pass::Forward, {2, 10})});
  CHECK(trace::calibration_shapes_file(t, "a\ngemm 1 1 1") ==
        "# kernel shapes of a?gemm 1 1 1 (simtrain trace shapes)\nsoftmax 2 10\n");
}
