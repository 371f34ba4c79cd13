// Specification of uneven pipeline splits (pipeline_split.h), as Megatron-Core builds them: first/last stage
// layer counts, the embedding and loss counted as layers, virtual stages, and one-line errors.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/workload/pipeline_split.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

ParallelConfig pipeline(int pp, int vpp) {
  ParallelConfig c;
  c.pp = pp;
  c.vpp = vpp;
  return c;
}

ParallelConfig accounted(int pp, int vpp) {
  ParallelConfig c = pipeline(pp, vpp);
  c.pp_embedding_in_split = c.pp_loss_in_split = true;
  return c;
}

}  // namespace

TEST_CASE("an even split lays chunk 0 of every rank before chunk 1") {
  const PipelineSplit s = pipeline_split(pipeline(4, 2), 32);
  CHECK(s.layers(0, 0) == 4);
  CHECK(s.first(1, 0) == 4);
  CHECK(s.first(0, 1) == 16);
  CHECK(s.first(3, 1) == 28);
  CHECK(s.stage_layers(2) == 8);
  CHECK(s.max_chunk_layers() == 4);
}

TEST_CASE("Llama-3.1-405B's 126 layers with the embedding and loss counted: PP 8 VP 8, PP 16 VP 4 and VP 8") {
  // Megatron-Bridge runs 405B with --account-for-embedding-in-pipeline-split and --account-for-loss-...:
  // 128 "layers" over 8 ranks of 8 virtual stages of 2, the first and last virtual stage one layer short.
  const PipelineSplit s = pipeline_split(accounted(8, 8), 126);
  CHECK(s.layers(0, 0) == 1);
  CHECK(s.layers(1, 0) == 2);
  CHECK(s.layers(7, 7) == 1);
  CHECK(s.stage_layers(0) == 15);
  CHECK(s.stage_layers(3) == 16);
  CHECK(s.stage_layers(7) == 15);
  CHECK(s.first_layer.back() == 126);
  const PipelineSplit pp16_vp4 = pipeline_split(accounted(16, 4), 126);
  CHECK(pp16_vp4.layers(0, 0) == 1);
  CHECK(pp16_vp4.layers(15, 3) == 1);
  CHECK(pp16_vp4.stage_layers(5) == 8);
  // VP 8: one layer per virtual stage; the first holds the embedding alone, the last the loss alone.
  const PipelineSplit pp16_vp8 = pipeline_split(accounted(16, 8), 126);
  CHECK(pp16_vp8.layers(0, 0) == 0);
  CHECK(pp16_vp8.layers(15, 7) == 0);
  CHECK(pp16_vp8.layers(1, 0) == 1);
  CHECK(pp16_vp8.first_layer.back() == 126);
  // Without accounting, 126 does not divide into 64 virtual stages.
  CHECK_THROWS_WITH_AS(pipeline_split(pipeline(8, 8), 126),
                       "--pp 8 --vpp 8: 126 layers are not divisible by pp x vpp = 64"
                       " (an uneven split: --pp-first-layers, --pp-last-layers or --pp-layers)",
                       Error);
}

TEST_CASE("DeepSeek-V3's 61 layers with first/last stage counts on PP 4, 8 and 16") {
  ParallelConfig c = pipeline(16, 1);
  c.pp_first_layers = 3;
  c.pp_last_layers = 2;
  PipelineSplit s = pipeline_split(c, 61);
  CHECK(s.stage_layers(0) == 3);
  CHECK(s.stage_layers(1) == 4);
  CHECK(s.stage_layers(15) == 2);
  CHECK(s.first_layer.back() == 61);
  c = pipeline(8, 1);
  c.pp_first_layers = 7;  // 54 left for 6 middle stages and the last: 9 x 6 with last = 0? no: last given
  c.pp_last_layers = 0;
  s = pipeline_split(c, 61);
  CHECK(s.stage_layers(0) == 7);
  CHECK(s.stage_layers(3) == 9);
  CHECK(s.stage_layers(7) == 0);
  c = pipeline(4, 1);
  c.pp_last_layers = 16;  // 45 over the other 3: 15 each
  s = pipeline_split(c, 61);
  CHECK(s.stage_layers(0) == 15);
  CHECK(s.stage_layers(3) == 16);
}

TEST_CASE("Qwen3-235B's 94 layers with the embedding and loss counted: PP 8 VP 4 and 12, PP 4 VP 3") {
  CHECK(pipeline_split(accounted(8, 4), 94).layers(0, 0) == 2);
  CHECK(pipeline_split(accounted(8, 4), 94).stage_layers(4) == 12);
  CHECK(pipeline_split(accounted(8, 12), 94).layers(0, 0) == 0);
  CHECK(pipeline_split(accounted(4, 3), 94).stage_layers(0) == 23);
  CHECK(pipeline_split(accounted(4, 3), 94).stage_layers(1) == 24);
}

TEST_CASE("first/last counts with virtual stages split every rank's count evenly over its chunks") {
  ParallelConfig c = pipeline(4, 2);
  c.pp_first_layers = 6;
  c.pp_last_layers = 4;
  const PipelineSplit s = pipeline_split(c, 30);  // 20 over 2 middle ranks: 10 each
  CHECK(s.layers(0, 0) == 3);
  CHECK(s.layers(1, 0) == 5);
  CHECK(s.layers(3, 0) == 2);
  CHECK(s.first(0, 1) == 15);
  CHECK(s.first_layer.back() == 30);
}

TEST_CASE("an impossible uneven split is one line naming the option") {
  ParallelConfig c = pipeline(4, 1);
  c.pp_first_layers = 6;
  CHECK_THROWS_WITH_AS(pipeline_split(c, 32),
                       "--pp-first-layers 6: the other 26 layers do not split evenly over 3 pipeline stages",
                       Error);
  c.pp_first_layers = 40;
  CHECK_THROWS_WITH_AS(pipeline_split(c, 32), "--pp-first-layers 40: more layers than the model's 32", Error);
  c = pipeline(4, 2);
  c.pp_last_layers = 5;
  CHECK_THROWS_WITH_AS(pipeline_split(c, 29),
                       "--pp-last-layers 5: pipeline stage 3's 5 layers do not split into 2 virtual stages",
                       Error);
  c = pipeline(1, 1);
  c.pp_loss_in_split = true;
  CHECK_THROWS_WITH_AS(pipeline_split(c, 32), "--pp-loss-in-split: an uneven pipeline split needs --pp > 1",
                       Error);
  c = pipeline(4, 1);
  c.pp_first_layers = 8;
  c.pp_embedding_in_split = true;
  CHECK_THROWS_WITH_AS(pipeline_split(c, 32),
                       doctest::Contains("--pp-first-layers 8: Megatron-LM does not combine"), Error);
}

TEST_CASE("an explicit split gives every pipeline rank its layers") {
  // DeepSeek-V3 on PP 16, as an explicit layout would give it: 3 layers first, 2 last, 4 in between.
  ParallelConfig c = pipeline(16, 1);
  c.pp_layers = {3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2};
  const PipelineSplit s = pipeline_split(c, 61);
  CHECK(s.stage_layers(0) == 3);
  CHECK(s.stage_layers(8) == 4);
  CHECK(s.stage_layers(15) == 2);
  c = pipeline(4, 2);
  c.pp_layers = {6, 8, 8, 8};
  CHECK(pipeline_split(c, 30).layers(0, 1) == 3);
  CHECK(pipeline_split(c, 30).first(0, 1) == 15);
  CHECK_THROWS_WITH_AS(pipeline_split(c, 32), "--pp-layers 6,8,8,8: 30 layers in all, the model has 32",
                       Error);
  c.pp_layers = {7, 8, 8, 7};
  CHECK_THROWS_WITH_AS(pipeline_split(c, 30),
                       "--pp-layers 7,8,8,7: pipeline stage 0's 7 layers do not split into 2 virtual stages",
                       Error);
  c.pp_layers = {10, 10, 10};
  CHECK_THROWS_WITH_AS(pipeline_split(c, 30),
                       "--pp-layers 10,10,10: 3 counts for --pp 4 --vpp 2 (give 4, one per rank, or 8, one "
                       "per virtual stage)",
                       Error);
}

TEST_CASE("an explicit split of every virtual stage may give a rank chunks of different sizes") {
  // Megatron-Bridge's DeepSeek-V3 layout on PP 8 VP 2: 16 stages of 4 layers in the order they run (chunk 0
  // of every rank, then chunk 1), but the last, which holds 1 layer beside the MTP module and the loss.
  ParallelConfig c = pipeline(8, 2);
  c.pp_layers.assign(15, 4);
  c.pp_layers.push_back(1);
  const PipelineSplit s = pipeline_split(c, 61);
  CHECK(s.layers(7, 0) == 4);
  CHECK(s.layers(7, 1) == 1);
  CHECK(s.first(7, 1) == 60);
  CHECK(s.first(0, 1) == 32);
  CHECK(s.stage_layers(7) == 5);
  CHECK(s.stage_layers(0) == 8);
  CHECK(s.max_chunk_layers() == 4);
  CHECK_THROWS_WITH_AS(pipeline_split(c, 62), doctest::Contains("61 layers in all, the model has 62"), Error);
}
