// Specification of the DDP trace generator: program structure, gradient buckets, all-reduce dependencies,
// gradient accumulation, the optimizer step, metadata and configuration errors.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <map>
#include <set>

#include "common/error.h"
#include "simulator/workload/data_parallel.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

constexpr double kMiB = 1024.0 * 1024;

std::vector<const trace::Op*> all_reduces(const trace::Program& program) {
  std::vector<const trace::Op*> ops;
  for (const trace::Op& op : program.ops) {
    if (op.type == trace::OpType::Collective) ops.push_back(&op);
  }
  return ops;
}

}  // namespace

TEST_CASE("a DDP trace is one program shared by all ranks, with one data-parallel communicator") {
  DataParallelConfig config;
  config.gpus = 16;
  const trace::Trace t = generate_data_parallel_trace(config);
  CHECK(t.world_size == 16);
  REQUIRE(t.programs.size() == 1);
  CHECK(t.programs[0].name == "ddp");
  CHECK(t.programs[0].streams == std::vector<std::string>{"compute", "comm"});
  CHECK(t.rank_program == std::vector<std::uint32_t>(16, 0));
  REQUIRE(t.groups.size() == 1);
  CHECK(t.groups[0].name == "dp");
  REQUIRE(t.groups[0].communicators.size() == 1);
  CHECK(t.groups[0].communicators[0] ==
        std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  CHECK_NOTHROW(trace::validate(t, "generated"));
  std::set<std::string> names;
  for (const trace::Op& op : t.programs[0].ops) CHECK(names.insert(op.name).second);
}

TEST_CASE("ResNet-50 gradients go into five buckets: fc alone, then about 25 MiB each") {
  const Model model = build_model("resnet50");
  const std::vector<GradientBucket> buckets = gradient_buckets(model, 1 * kMiB, 25 * kMiB);
  REQUIRE(buckets.size() == 5);
  // The fc layer (2,049,000 parameters, 8.2 MB) alone overfills the 1 MiB first bucket.
  CHECK(buckets[0].layers.size() == 1);
  CHECK(model.layers[buckets[0].layers[0]].name == "fc");
  CHECK(buckets[0].bytes == 4.0 * 2049000);
  // Layer4.2 and layer4.1's bn3, conv3, bn2, conv2: 7,875,584 parameters, the first to pass 25 MiB.
  CHECK(model.layers[buckets[1].layers.back()].name == "layer4.1.conv2");
  CHECK(buckets[1].bytes == 4.0 * 7875584);
  // Every closed bucket passed its cap only with its last layer; the last bucket takes what is left.
  for (std::size_t b = 1; b + 1 < buckets.size(); ++b) {
    const double last_layer_bytes = 4 * model.layers[buckets[b].layers.back()].parameters;
    CHECK(buckets[b].bytes >= 25 * kMiB);
    CHECK(buckets[b].bytes - last_layer_bytes < 25 * kMiB);
  }
  CHECK(model.layers[buckets.back().layers.back()].name == "conv1");
}

TEST_CASE("every layer with parameters is in exactly one bucket, in reverse layer order") {
  for (const std::string& name : model_names()) {
    CAPTURE(name);
    const Model model = build_model(name);
    double bytes = 0;
    std::vector<std::size_t> order;
    for (const GradientBucket& bucket : gradient_buckets(model, 1 * kMiB, 25 * kMiB)) {
      bytes += bucket.bytes;
      order.insert(order.end(), bucket.layers.begin(), bucket.layers.end());
    }
    std::vector<std::size_t> expected;
    for (std::size_t i = model.layers.size(); i-- > 0;) {
      if (model.layers[i].parameters > 0) expected.push_back(i);
    }
    CHECK(order == expected);
    CHECK(bytes == 4 * model.parameters());
  }
}

TEST_CASE("each all-reduce waits for the weight gradient of its bucket's last layer and carries its bytes") {
  DataParallelConfig config;  // resnet50, 8 GPUs, AMP
  const trace::Trace t = generate_data_parallel_trace(config);
  const trace::Program& program = t.programs[0];
  const std::vector<const trace::Op*> reduces = all_reduces(program);
  REQUIRE(reduces.size() == 5);
  // The last backward kernel of each bucket's last layer: under autocast, the cast of its 16-bit weight
  // gradient to fp32 (eager_pytorch.h); fc's third elementwise weight-gradient kernel, after its bias
  // reduction and the bias gradient's cast.
  const std::vector<std::string> expected_deps = {
      "step1.fc.cast.bwd_weight.3", "step1.layer4.1.conv2.cast.bwd_weight",
      "step1.layer4.0.conv2.cast.bwd_weight", "step1.layer3.0.downsample.0.cast.bwd_weight",
      "step1.conv1.cast.bwd_weight"};
  double total_bytes = 0;
  for (std::size_t b = 0; b < reduces.size(); ++b) {
    const trace::Op& op = *reduces[b];
    CHECK(op.name == "step1.bucket" + std::to_string(b) + ".allreduce");
    CHECK(op.stream == 1);
    CHECK(op.collective.kind == trace::CollectiveKind::AllReduce);
    CHECK(op.collective.dtype == DType::FP32);
    CHECK(op.collective.group == 0);
    REQUIRE(op.deps.size() == 1);
    CHECK(program.ops[op.deps[0]].name == expected_deps[b]);
    total_bytes += op.collective.bytes;
  }
  // AMP keeps fp32 gradients: 4 bytes per parameter in all.
  CHECK(total_bytes == 4.0 * 25557032);
}

TEST_CASE("with gradient accumulation only the last micro-step all-reduces") {
  DataParallelConfig config;
  config.grad_accum = 4;
  const trace::Trace t = generate_data_parallel_trace(config);
  const trace::Program& program = t.programs[0];
  const std::vector<const trace::Op*> reduces = all_reduces(program);
  REQUIRE(reduces.size() == 5);
  for (const trace::Op* op : reduces) CHECK(op->name.rfind("step4.", 0) == 0);
  std::map<std::string, int> forward_ops_per_step;
  for (const trace::Op& op : program.ops) {
    if (op.type == trace::OpType::Compute && op.compute.pass == trace::Pass::Forward) {
      ++forward_ops_per_step[op.name.substr(0, op.name.find('.'))];
    }
  }
  // One forward kernel per layer, an autocast weight cast per convolution and linear layer (and one for
  // fc's bias); each batch norm adds cuDNN's statistics kernel and its num_batches_tracked increment.
  const Model resnet = build_model("resnet50");
  int per_step = 0;
  for (const Layer& layer : resnet.layers)
    per_step += layer.type == "batchnorm" ? 3 : layer.type == "conv" || layer.type == "linear" ? 2 : 1;
  per_step += 1;  // fc.bias
  CHECK(forward_ops_per_step ==
        std::map<std::string, int>{
            {"step1", per_step}, {"step2", per_step}, {"step3", per_step}, {"step4", per_step}});
  // Micro-step 2 starts right after micro-step 1's last backward kernel: no all-reduce in between.
  std::size_t step2_start = 0;
  while (program.ops[step2_start].name != "step2.conv1.cast.fwd") ++step2_start;
  CHECK(program.ops[step2_start - 1].name == "step1.conv1.cast.bwd_weight");
}

TEST_CASE(
    "the optimizer steps once, after every all-reduce, as multi-tensor launches moving 32 B per parameter") {
  DataParallelConfig config;
  config.grad_accum = 2;
  const trace::Trace t = generate_data_parallel_trace(config);
  const trace::Program& program = t.programs[0];
  // The step's launches are the program's last ops (optimizer_kernels.h): under fp16 autocast the
  // GradScaler's unscale (8 B per parameter) and scale update, then SGD's foreach kernels (m *= momentum,
  // m += g, p -= lr m: 8 + 12 + 12 B per parameter).
  std::size_t first = program.ops.size();
  while (first > 0 && program.ops[first - 1].compute.pass == trace::Pass::Update &&
         program.ops[first - 1].type == trace::OpType::Compute)
    --first;
  REQUIRE(program.ops.size() - first == 3 + 1 + 3 + 6);
  const trace::Op& step = program.ops.back();
  CHECK(step.name == "optimizer.step");
  CHECK(program.ops[first].name == "optimizer.step.1");
  double bytes = 0;
  for (std::size_t i = first; i < program.ops.size(); ++i) {
    const trace::Op& op = program.ops[i];
    CHECK(op.stream == 0);
    CHECK(op.compute.kind == trace::ComputeKind::Optimizer);
    CHECK(op.compute.dtype == DType::FP32);
    bytes += op.compute.bytes;
  }
  CHECK(bytes == simtrain::testing::Approx((32.0 + 8) * 25557032 + 16));
  std::vector<std::uint32_t> reduce_indices;
  for (std::uint32_t i = 0; i < program.ops.size(); ++i) {
    if (program.ops[i].type == trace::OpType::Collective) reduce_indices.push_back(i);
  }
  CHECK(program.ops[first].deps == reduce_indices);
}

TEST_CASE("the trace metadata describe the global batch and its model FLOPs") {
  DataParallelConfig config;
  config.model = "bert-large";
  config.gpus = 4;
  config.batch_per_gpu = 8;
  config.grad_accum = 2;
  config.precision = Precision::AMP_BF16;
  config.optimizer = Optimizer::LAMB;
  const trace::Trace t = generate_data_parallel_trace(config);
  const Model model = build_model("bert-large");
  const trace::TraceMetadata& meta = t.metadata;
  CHECK(meta.model == "bert-large");
  CHECK(meta.generator == "simtrain workload ddp");
  CHECK(meta.parallelism == "ddp");
  CHECK(meta.samples_per_iteration == 64);
  CHECK(meta.tokens_per_iteration == 64 * 128);
  CHECK(meta.model_flops_per_iteration ==
        simtrain::testing::Approx(3 * model.forward_flops_per_sample() * 64));
  CHECK(meta.compute_dtype == DType::BF16);
  CHECK(meta.peak_memory_bytes ==
        simtrain::testing::Approx(
            estimate_data_parallel_memory(model, 8, Precision::AMP_BF16, 8, config.bucket_bytes)
                .total_bytes()));
  config.model = "resnet50";
  CHECK(generate_data_parallel_trace(config).metadata.tokens_per_iteration == 0);
}

TEST_CASE("CNNs default to SGD and transformers to Adam; optimizer names round-trip") {
  CHECK(default_optimizer(build_model("resnet50")) == Optimizer::SGD);
  CHECK(default_optimizer(build_model("lenet5")) == Optimizer::SGD);
  CHECK(default_optimizer(build_model("vit-b16")) == Optimizer::Adam);
  CHECK(default_optimizer(build_model("bert-large")) == Optimizer::Adam);
  for (Optimizer o : {Optimizer::SGD, Optimizer::Adam, Optimizer::LAMB}) {
    Optimizer parsed = Optimizer::SGD;
    CHECK(parse_optimizer(to_string(o), parsed));
    CHECK(parsed == o);
  }
  Optimizer unchanged = Optimizer::LAMB;
  CHECK_FALSE(parse_optimizer("adagrad", unchanged));
  CHECK(unchanged == Optimizer::LAMB);
  CHECK(optimizer_state_bytes_per_parameter(Optimizer::SGD) == 4);
  CHECK(optimizer_state_bytes_per_parameter(Optimizer::Adam) == 8);
}

TEST_CASE("impossible configurations are errors naming the option") {
  DataParallelConfig config;
  config.gpus = 0;
  CHECK_THROWS_WITH_AS(generate_data_parallel_trace(config), "--gpus: must be from 1 to 1048576, got 0",
                       Error);
  config = {};
  config.batch_per_gpu = 0;
  CHECK_THROWS_WITH_AS(generate_data_parallel_trace(config), "--batch-per-gpu: must be at least 1, got 0",
                       Error);
  config = {};
  config.grad_accum = 0;
  CHECK_THROWS_WITH_AS(generate_data_parallel_trace(config), "--grad-accum: must be from 1 to 65536, got 0",
                       Error);
  config = {};
  config.bucket_bytes = 0;
  CHECK_THROWS_WITH_AS(generate_data_parallel_trace(config), "--bucket-bytes: must be positive", Error);
  config = {};
  config.first_bucket_bytes = -1;
  CHECK_THROWS_WITH_AS(generate_data_parallel_trace(config), "--first-bucket-bytes: must be positive", Error);
  config = {};
  config.model = "alexnet";
  CHECK_THROWS_AS(generate_data_parallel_trace(config), Error);
}

namespace {

// Llama-2-7B in the eager generator under FSDP on 16 GPUs, two micro-steps of one sequence of 512 tokens.
DataParallelConfig llama_fsdp() {
  DataParallelConfig config;
  config.model = "llama2-7b";
  config.model_options.seq_len = 512;
  config.gpus = 16;
  config.batch_per_gpu = 1;
  config.grad_accum = 2;
  config.precision = Precision::AMP_BF16;
  config.optimizer = Optimizer::Adam;
  config.fsdp = true;
  return config;
}

std::map<std::string, const trace::Op*> ops_by_name(const trace::Program& program) {
  std::map<std::string, const trace::Op*> ops;
  for (const trace::Op& op : program.ops) ops[op.name] = &op;
  return ops;
}

std::uint32_t index_of(const trace::Program& program, const trace::Op* op) {
  return static_cast<std::uint32_t>(op - program.ops.data());
}

}  // namespace

TEST_CASE("FSDP gathers every block twice and reduce-scatters it once per micro-step, in 16 and 32 bits") {
  const trace::Trace t = generate_data_parallel_trace(llama_fsdp());
  CHECK_NOTHROW(trace::validate(t, "generated"));
  const trace::Program& p = t.programs[0];
  CHECK(p.name == "fsdp");
  CHECK(p.streams == std::vector<std::string>{"compute", "reduce_scatter", "all_gather"});
  CHECK(t.metadata.parallelism == "fsdp");
  const double parameters = build_model("llama2-7b", {.seq_len = 512}).parameters();
  double gathered = 0, reduced = 0;
  int gathers = 0, reduce_scatters = 0;
  for (const trace::Op& op : p.ops) {
    if (op.type != trace::OpType::Collective) continue;
    if (op.collective.kind == trace::CollectiveKind::AllGather) {
      ++gathers;
      CHECK(op.stream == 2);
      CHECK(op.collective.dtype == DType::BF16);
      gathered += op.collective.bytes;
    } else {
      REQUIRE(op.collective.kind == trace::CollectiveKind::ReduceScatter);
      ++reduce_scatters;
      CHECK(op.stream == 1);
      CHECK(op.collective.dtype == DType::FP32);
      reduced += op.collective.bytes;
    }
  }
  // Per micro-step: the root once, each of the 32 blocks in forward and again in backward.
  CHECK(gathers == 2 * (1 + 2 * 32));
  CHECK(reduce_scatters == 2 * (1 + 32));
  // Every parameter gathered in bf16 once per pass but the root's (kept from forward into backward).
  const double root = 2.0 * 32000 * 4096 + 4096;
  CHECK(gathered == doctest::Approx(2 * 2 * (2 * parameters - root)));
  CHECK(reduced == doctest::Approx(2 * 4 * parameters));
  // Nothing casts a weight: the gathered parameters are bf16 already.
  const auto ops = ops_by_name(p);
  CHECK(ops.count("step1.model.layers.0.self_attn.o_proj.cast.fwd") == 0);
  CHECK(ops.count("step1.model.layers.0.self_attn.o_proj.fwd") == 1);
}

TEST_CASE(
    "FSDP's kernels wait for their block's gather, prefetched two blocks deep, and gradients leave after") {
  const trace::Trace t = generate_data_parallel_trace(llama_fsdp());
  const trace::Program& p = t.programs[0];
  const auto ops = ops_by_name(p);
  const auto deps_of = [&](const std::string& name) {
    REQUIRE(ops.count(name) == 1);
    return ops.at(name)->deps;
  };
  const auto id = [&](const std::string& name) {
    REQUIRE(ops.count(name) == 1);
    return index_of(p, ops.at(name));
  };
  // Forward: block 3's first kernel waits for block 3's gather, which waited for block 1 to finish
  // (its last forward kernel, the residual add) so that two blocks' parameters are alive at once.
  CHECK(deps_of("step1.model.layers.3.input_layernorm.fwd") ==
        std::vector<std::uint32_t>{id("step1.model.layers.3.all_gather.fwd")});
  CHECK(deps_of("step1.model.layers.3.all_gather.fwd") ==
        std::vector<std::uint32_t>{id("step1.model.layers.1.add_2.fwd")});
  CHECK(deps_of("step1.model.embed_tokens.fwd") ==
        std::vector<std::uint32_t>{id("step1.root.all_gather.fwd")});
  // The second micro-step's root gather comes after the first micro-step's backward.
  const std::vector<std::uint32_t> after_step1 = deps_of("step2.root.all_gather.fwd");
  REQUIRE(after_step1.size() == 1);
  CHECK(p.ops[after_step1[0]].name.starts_with("step1.model.embed_tokens."));
  for (std::uint32_t i = after_step1[0] + 1; i < id("step2.root.all_gather.fwd"); ++i)
    CHECK(p.ops[i].type == trace::OpType::Collective);  // nothing of step 1 computes after it
  // Backward: the last block's gather follows the forward; block 29's was prefetched once block 31 finished.
  const std::vector<std::uint32_t> after_forward = deps_of("step1.model.layers.31.all_gather.bwd");
  REQUIRE(after_forward.size() == 1);
  CHECK(p.ops[after_forward[0]].compute.pass == trace::Pass::Forward);
  CHECK(deps_of("step1.model.layers.29.all_gather.bwd").size() == 1);
  const trace::Op& freed = p.ops[deps_of("step1.model.layers.29.all_gather.bwd")[0]];
  CHECK(freed.name.starts_with("step1.model.layers.31."));
  CHECK(freed.compute.pass != trace::Pass::Forward);
  // A block's gradients are reduce-scattered after its last backward kernel (its input norm's).
  const trace::Op& last = p.ops[deps_of("step1.model.layers.5.reduce_scatter")[0]];
  CHECK(last.name.starts_with("step1.model.layers.5.input_layernorm."));
  // The optimizer waits for every reduce-scatter of both micro-steps and steps 1/16 of the parameters.
  const trace::Op& step = *ops.at("optimizer.step.1");
  CHECK(step.deps.size() == 2 * 33);
  double bytes = 0;
  for (const trace::Op& op : p.ops)
    if (op.compute.kind == trace::ComputeKind::Optimizer) bytes += op.compute.bytes;
  CHECK(bytes == doctest::Approx(28 * build_model("llama2-7b", {.seq_len = 512}).parameters() / 16));
}

TEST_CASE("FSDP keeps 1/N of the fp32 parameters, gradients and optimizer states per rank") {
  DataParallelConfig ddp = llama_fsdp();
  ddp.fsdp = false;
  const auto& sharded = generate_data_parallel_trace(llama_fsdp()).metadata.memory_breakdown_bytes;
  const auto& full = generate_data_parallel_trace(ddp).metadata.memory_breakdown_bytes;
  for (const char* part : {"weights", "gradients", "optimizer_states"})
    CHECK(sharded.at(part) == doctest::Approx(full.at(part) / 16));
  CHECK(sharded.at("activations") == full.at("activations"));
  // The gathered root and two blocks in bf16, one block's gradients in fp32.
  const double block = 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008 + 2 * 4096, root = 2.0 * 32000 * 4096 + 4096;
  CHECK(sharded.at("communication_buffers") == doctest::Approx((root + 2 * block) * 2 + block * 4));
}

TEST_CASE("activation checkpointing reruns each block's forward before its backward, after its gather") {
  DataParallelConfig config = llama_fsdp();
  config.activation_checkpointing = true;
  const trace::Trace t = generate_data_parallel_trace(config);
  CHECK_NOTHROW(trace::validate(t, "generated"));
  const trace::Program& p = t.programs[0];
  const auto ops = ops_by_name(p);
  REQUIRE(ops.count("step1.recompute.model.layers.7.input_layernorm.fwd") == 1);
  const trace::Op& first = *ops.at("step1.recompute.model.layers.7.input_layernorm.fwd");
  CHECK(first.deps == std::vector<std::uint32_t>{index_of(p, ops.at("step1.model.layers.7.all_gather.bwd"))});
  // The rerun ends right before the block's first backward kernel.
  const std::uint32_t rerun_end = index_of(p, ops.at("step1.recompute.model.layers.7.add_2.fwd"));
  CHECK(p.ops[rerun_end + 1].name.starts_with("step1.model.layers.7."));
  CHECK(p.ops[rerun_end + 1].compute.pass != trace::Pass::Forward);
  // Every block's forward kernels run twice; the root's once.
  int forward = 0, rerun = 0;
  for (const trace::Op& op : p.ops) {
    if (op.type != trace::OpType::Compute || op.compute.pass != trace::Pass::Forward) continue;
    (op.name.find(".recompute.") != std::string::npos ? rerun : forward)++;
  }
  CHECK(rerun < forward);
  CHECK(rerun > forward * 9 / 10);
  // Only the blocks' inputs stay saved.
  DataParallelConfig plain = llama_fsdp();
  CHECK(t.metadata.memory_breakdown_bytes.at("activations") <
        generate_data_parallel_trace(plain).metadata.memory_breakdown_bytes.at("activations") / 4);

  DataParallelConfig cnn;
  cnn.activation_checkpointing = true;  // resnet50
  CHECK_THROWS_WITH(
      generate_data_parallel_trace(cnn),
      "--recompute full: resnet50 has no transformer blocks to checkpoint in the eager generator");
}

TEST_CASE(
    "HYBRID_SHARD gathers within each group of 8 ranks and all-reduces each reduced shard across them") {
  DataParallelConfig config = llama_fsdp();
  config.fsdp_shard_size = 8;
  const trace::Trace t = generate_data_parallel_trace(config);
  CHECK_NOTHROW(trace::validate(t, "generated"));
  CHECK(t.metadata.parallelism == "fsdp-hybrid");
  REQUIRE(t.groups.size() == 3);
  CHECK(t.groups[0].name == "dp");  // every rank: the replicas the engine may sample
  CHECK(t.groups[1].name == "fsdp_shard");
  CHECK(t.groups[1].communicators ==
        std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}});
  CHECK(t.groups[2].name == "fsdp_replicate");
  REQUIRE(t.groups[2].communicators.size() == 8);
  CHECK(t.groups[2].communicators[3] == std::vector<int>{3, 11});
  const trace::Program& p = t.programs[0];
  const auto ops = ops_by_name(p);
  const trace::Op& scatter = *ops.at("step1.model.layers.4.reduce_scatter");
  const trace::Op& reduce = *ops.at("step1.model.layers.4.all_reduce");
  CHECK(scatter.collective.group == 1);
  CHECK(ops.at("step1.model.layers.4.all_gather.fwd")->collective.group == 1);
  CHECK(reduce.collective.kind == trace::CollectiveKind::AllReduce);
  CHECK(reduce.collective.group == 2);
  CHECK(reduce.stream == scatter.stream);
  CHECK(reduce.deps == std::vector<std::uint32_t>{index_of(p, &scatter)});
  CHECK(reduce.collective.bytes == doctest::Approx(scatter.collective.bytes / 8));  // this rank's shard
  // The state is sharded 8 ways, not 16.
  DataParallelConfig ddp = llama_fsdp();
  ddp.fsdp = false;
  CHECK(t.metadata.memory_breakdown_bytes.at("weights") ==
        doctest::Approx(generate_data_parallel_trace(ddp).metadata.memory_breakdown_bytes.at("weights") / 8));

  config.fsdp_shard_size = 6;
  CHECK_THROWS_WITH(generate_data_parallel_trace(config),
                    "--fsdp: a shard group of 6 ranks does not divide 16 GPUs");
}
