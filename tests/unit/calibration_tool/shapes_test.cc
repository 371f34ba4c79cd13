// The shapes simtrain-calibrate measures: default grids, built-in model shapes keyed as the simulator keys
// them, and the --shapes file (calibration/tool/shape_grid.h, model_shapes.h, shapes_file.h).
#include <doctest/doctest.h>

#include <algorithm>

#include "calibration/tool/model_shapes.h"
#include "calibration/tool/shape_grid.h"
#include "calibration/tool/shapes_file.h"
#include "common/error.h"

using namespace simtrain::calibration::tool;

namespace {

bool has_gemm(const ShapeSet& set, GemmShape g) {
  return std::find(set.gemms.begin(), set.gemms.end(), g) != set.gemms.end();
}

}  // namespace

TEST_CASE("the default GEMM grid covers every (M, N, K) of its sizes once") {
  const auto quick = default_gemm_grid(true);
  CHECK(quick.size() == 27);  // {256, 1024, 4096}^3
  CHECK(quick.front() == GemmShape{256, 256, 256});
  CHECK(quick.back() == GemmShape{4096, 4096, 4096});
  const auto full = default_gemm_grid(false);
  CHECK(full.size() == 343);  // {128, 256, ..., 8192}^3
  CHECK(std::count(full.begin(), full.end(), GemmShape{8192, 128, 1024}) == 1);
}

TEST_CASE("collective sizes run from 8 bytes to 1 GiB as nccl-tests' -b 8 -e 1G") {
  const auto full = collective_sizes_bytes(false);
  CHECK(full.front() == 8);
  CHECK(full.back() == 1 << 30);
  CHECK(full.size() == 28);                          // doubling
  CHECK(collective_sizes_bytes(true).size() == 10);  // factors of 8
  CHECK(memory_sizes_bytes(false).back() == 4.0 * (1 << 30));
}

TEST_CASE("a linear layer contributes its forward, data-gradient and weight-gradient GEMMs") {
  ShapeSet set;
  add_linear(set, 512, 1024, 4096);
  REQUIRE(set.gemms.size() == 3);
  CHECK(set.gemms[0] == GemmShape{512, 4096, 1024, false, true});   // y = x W^T
  CHECK(set.gemms[1] == GemmShape{512, 1024, 4096, false, false});  // dx = dy W
  CHECK(set.gemms[2] == GemmShape{4096, 1024, 512, true, false});   // dW = dy^T x
}

TEST_CASE("pointwise stride-1 convolutions are measured as GEMMs too, and no other convolution is") {
  ShapeSet set;
  set.convs = {{256, 64, 56, 56, 256, 1, 1, 1, 0},    // pointwise: a GEMM over 256 x 56 x 56 pixels
               {256, 64, 56, 56, 64, 3, 3, 1, 1},     // 3x3
               {256, 256, 56, 56, 512, 1, 1, 2, 0}};  // strided: pixels are gathered, not a plain GEMM
  add_pointwise_conv_gemms(set);
  const std::int64_t pixels = 256 * 56 * 56;
  CHECK(set.gemms == std::vector<GemmShape>{{pixels, 256, 64, false, true},
                                            {pixels, 64, 256, false, false},
                                            {256, 64, pixels, true, false}});
}

TEST_CASE("ResNet-50 shapes are keyed as the simulator keys its kernels") {
  const ShapeSet set = model_shapes("resnet50", 256);
  // The stem: conv {n, c, h, w, k, r, s, stride, pad}, its batch norm and the max pool.
  CHECK(std::count(set.convs.begin(), set.convs.end(), ConvShape{256, 3, 224, 224, 64, 7, 7, 2, 3}) == 1);
  CHECK(std::count(set.batch_norms.begin(), set.batch_norms.end(), TensorShape{256, 64, 112, 112}) == 1);
  REQUIRE(set.pools.size() == 1);
  CHECK(set.pools[0].out_h() == 56);
  // layer2.0's strided 3x3 and its strided downsample.
  CHECK(std::count(set.convs.begin(), set.convs.end(), ConvShape{256, 128, 56, 56, 128, 3, 3, 2, 1}) == 1);
  CHECK(std::count(set.convs.begin(), set.convs.end(), ConvShape{256, 256, 56, 56, 512, 1, 1, 2, 0}) == 1);
  // 53 convolutions, of 20 distinct shapes... at most: repeats are measured once.
  CHECK(set.convs.size() < 53);
  CHECK(has_gemm(set, {256, 1000, 2048, false, true}));  // the classifier
  CHECK(set.softmaxes == std::vector<SoftmaxShape>{{256, 1000}});
  CHECK(set.attentions.empty());
}

TEST_CASE("transformer shapes multiply tokens by the batch and keep attention per head") {
  const ShapeSet llama = model_shapes("llama2-7b", 2);
  CHECK(has_gemm(llama, {8192, 11008, 4096, false, true}));  // gate/up projection, 2 x 4096 tokens
  CHECK(has_gemm(llama, {32000, 4096, 8192, true, false}));  // LM head weight gradient
  CHECK(llama.attentions == std::vector<AttentionShape>{{2, 32, 4096, 128}});
  CHECK(llama.softmaxes == std::vector<SoftmaxShape>{{8192, 32000}});
  const ShapeSet bert = model_shapes("bert-large", 32);
  CHECK(bert.attentions == std::vector<AttentionShape>{{32, 16, 128, 64}});
  CHECK(has_gemm(bert, {32, 2, 1024, false, true}));  // the next-sentence head sees one row per sample
  CHECK(model_shapes("gpt2-xl", 1).attentions == std::vector<AttentionShape>{{1, 25, 1024, 64}});
}

TEST_CASE("unknown models and batches below one are errors that list what is known") {
  CHECK_THROWS_WITH_AS(model_shapes("alexnet", 1),
                       doctest::Contains("resnet50, bert-large, gpt2-xl, llama2-7b"), simtrain::Error);
  CHECK_THROWS_AS(model_shapes("resnet50", 0), simtrain::Error);
  for (const std::string& name : builtin_model_names()) CHECK(default_batch(name) >= 1);
}

TEST_CASE("a shapes file lists kernels one per line, with comments and repeats") {
  const ShapeSet set = parse_shapes(
      "# from simtrain\n"
      "gemm 4096 4096 1024 nt\n"
      "gemm 4096 4096 1024 nt   # again\n"
      "gemm 64 64 64\n"
      "\n"
      "conv 32 64 56 56 64 3 3 1 1\n"
      "batch_norm 32 64 56 56\n"
      "pool 32 64 112 112 3 2 1\n"
      "activation 1000000\n"
      "softmax 4096 32000\n"
      "attention 1 32 4096 128\n",
      "shapes.txt");
  CHECK(set.gemms.size() == 2);
  CHECK(has_gemm(set, {4096, 4096, 1024, false, true}));
  CHECK(has_gemm(set, {64, 64, 64, false, false}));
  CHECK(set.convs == std::vector<ConvShape>{{32, 64, 56, 56, 64, 3, 3, 1, 1}});
  CHECK(set.batch_norms.size() == 1);
  CHECK(set.pools.size() == 1);
  CHECK(set.activations == std::vector<std::int64_t>{1000000});
  CHECK(set.softmaxes.size() == 1);
  CHECK(set.attentions == std::vector<AttentionShape>{{1, 32, 4096, 128}});
}

TEST_CASE("malformed shapes files are rejected with file and line") {
  CHECK_THROWS_WITH_AS(parse_shapes("gemm 1 2 3\nconv 1 2 3\n", "s.txt"),
                       doctest::Contains("s.txt:2: conv takes 9"), simtrain::Error);
  CHECK_THROWS_WITH_AS(parse_shapes("gemm 1 x 3\n", "s.txt"), doctest::Contains("s.txt:1: 'x' is not"),
                       simtrain::Error);
  CHECK_THROWS_WITH_AS(parse_shapes("gemm 1 2 3 nx\n", "s.txt"), doctest::Contains("layout 'nx'"),
                       simtrain::Error);
  CHECK_THROWS_WITH_AS(parse_shapes("\n\nlayernorm 5\n", "s.txt"),
                       doctest::Contains("s.txt:3: unknown kernel"), simtrain::Error);
  CHECK_THROWS_WITH_AS(parse_shapes("gemm 0 2 3\n", "s.txt"), doctest::Contains("dimension 1 is 0"),
                       simtrain::Error);
  CHECK_THROWS_WITH_AS(parse_shapes("conv 1 3 4 4 8 7 7 1 0\n", "s.txt"), doctest::Contains("larger than"),
                       simtrain::Error);
  CHECK_THROWS_WITH_AS(parse_shapes("# nothing\n", "s.txt"), doctest::Contains("no shapes"), simtrain::Error);
  CHECK_THROWS_WITH_AS(read_shapes_file("/nonexistent/shapes.txt"), doctest::Contains("cannot read"),
                       simtrain::Error);
}
