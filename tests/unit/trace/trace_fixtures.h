// Small hand-built traces shared by the trace tests: each is valid, so a test breaks one thing and
// checks that exactly that is reported.
#pragma once

#include "simulator/trace/trace.h"

namespace simtrain::trace::testing {

inline Op compute_op(std::string name, ComputeKind kind, Pass pass, std::vector<std::uint32_t> deps) {
  Op op;
  op.name = std::move(name);
  op.type = OpType::Compute;
  op.stream = 0;
  op.deps = std::move(deps);
  op.compute = {.kind = kind,
                .pass = pass,
                .dtype = DType::BF16,
                .flops = 2.0 * 1024 * 1024 * 1024,
                .bytes = 3.0 * 1024 * 1024 * 2,
                .shape = {1024, 1024, 1024}};
  return op;
}

// Two data-parallel ranks: forward, backward, an all-reduce of the gradients on the comm stream, update.
inline Trace two_rank_ddp() {
  Trace trace;
  trace.world_size = 2;
  trace.metadata = {.model = "mlp",
                    .generator = "hand-written",
                    .parallelism = "ddp",
                    .samples_per_iteration = 64,
                    .model_flops_per_iteration = 3 * 2.0 * 1024 * 1024 * 1024,
                    .compute_dtype = DType::BF16};
  trace.groups = {{.name = "dp", .communicators = {{0, 1}}}};
  Program program{.name = "ddp", .streams = {"compute", "comm"}, .ops = {}};
  program.ops.push_back(compute_op("fc.fwd", ComputeKind::Gemm, Pass::Forward, {}));
  program.ops.push_back(compute_op("fc.bwd_data", ComputeKind::Gemm, Pass::BackwardData, {0}));
  program.ops.push_back(compute_op("fc.bwd_weight", ComputeKind::Gemm, Pass::BackwardWeight, {0}));
  Op all_reduce{.name = "grad.all_reduce", .type = OpType::Collective, .stream = 1, .deps = {2}};
  all_reduce.collective = {
      .kind = CollectiveKind::AllReduce, .dtype = DType::BF16, .bytes = 2.0 * 1024 * 1024};
  program.ops.push_back(all_reduce);
  program.ops.push_back(compute_op("sgd", ComputeKind::Optimizer, Pass::Update, {3}));
  trace.programs = {program};
  trace.rank_program = {0, 0};
  return trace;
}

// Two pipeline stages of two data-parallel replicas each (ranks 0,1 = stage 0; ranks 2,3 = stage 1):
// two programs, send/recv, a measured duration and doubles that have no short decimal form.
inline Trace two_stage_pipeline() {
  Trace trace;
  trace.world_size = 4;
  trace.metadata = {.model = "gpt-tiny",
                    .generator = "test",
                    .parallelism = "pp2-dp2",
                    .samples_per_iteration = 8,
                    .tokens_per_iteration = 8 * 2048,
                    .model_flops_per_iteration = 1.0 / 3.0 * 1e15,
                    .peak_memory_bytes = 40e9,
                    .compute_dtype = DType::FP16};
  trace.groups = {{.name = "pp", .communicators = {{0, 2}, {1, 3}}},
                  {.name = "dp", .communicators = {{0, 1}, {2, 3}}}};
  Program stage0{.name = "stage0", .streams = {"compute", "send"}, .ops = {}};
  stage0.ops.push_back(compute_op("attn", ComputeKind::Attention, Pass::Forward, {}));
  stage0.ops.back().compute.shape = {4, 16, 2048, 64};
  stage0.ops.back().compute.duration_s = 0.1 + 0.2;  // 0.30000000000000004: must survive exactly
  Op send{.name = "act.send", .type = OpType::Send, .stream = 1, .deps = {0}};
  send.p2p = {.group = 0, .peer_offset = 1, .bytes = 4.0 * 2048 * 1024 * 2, .tag = 7};
  stage0.ops.push_back(send);
  Program stage1{.name = "stage1", .streams = {"compute", "recv", "comm"}, .ops = {}};
  Op recv{.name = "act.recv", .type = OpType::Recv, .stream = 1, .deps = {}};
  recv.p2p = {.group = 0, .peer_offset = -1, .bytes = 4.0 * 2048 * 1024 * 2, .tag = 7};
  stage1.ops.push_back(recv);
  stage1.ops.push_back(compute_op("mlp", ComputeKind::Gemm, Pass::Forward, {0}));
  stage1.ops.back().compute.flops = 1e-300;
  Op gather{.name = "params.all_gather", .type = OpType::Collective, .stream = 2, .deps = {1}};
  gather.collective = {
      .kind = CollectiveKind::AllGather, .dtype = DType::FP32, .bytes = 123456789.125, .group = 1};
  stage1.ops.push_back(gather);
  trace.programs = {stage0, stage1};
  trace.rank_program = {0, 0, 1, 1};
  return trace;
}

}  // namespace simtrain::trace::testing
