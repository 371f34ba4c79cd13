// Implements run_inputs.h.
#include "simulator/run/run_inputs.h"

#include <cmath>
#include <filesystem>

#include "calibration/profile_json.h"
#include "common/content_hash.h"
#include "common/error.h"
#include "common/file_io.h"
#include "simulator/platform/cluster_spec.h"

namespace simtrain::run {
namespace {

using nlohmann::json;

// A file as a Result names it: its name (no directories: they belong to one machine) and content hash.
json file_entry(const std::string& path) {
  return {{"name", std::filesystem::path(path).filename().string()}, {"hash", content_hash(read_file(path))}};
}

const char* fsdp_name(workload::FsdpMode mode) {
  switch (mode) {
    case workload::FsdpMode::FullShard:
      return "full";
    case workload::FsdpMode::HybridShard:
      return "hybrid";
    case workload::FsdpMode::None:
      break;
  }
  return "none";
}

// The sequence length the trace was generated with: the option, or else the model's default.
int resolved_seq_len(int option, const trace::Trace& trace) {
  const trace::TraceMetadata& m = trace.metadata;
  if (option > 0 || !(m.samples_per_iteration > 0)) return option;
  return static_cast<int>(std::lround(m.tokens_per_iteration / m.samples_per_iteration));
}

// The host profile a generated step was launched by.
json host_inputs(const workload::HostProfile& host) {
  json j = {{"name", host.name}, {"dispatch_per_kernel_s", host.dispatch_per_kernel_s}};
  if (host.launch_call_s > 0) j["launch_call_s"] = host.launch_call_s;
  return j;
}

json data_parallel_inputs(const workload::DataParallelConfig& c, const trace::Trace& trace) {
  json j = {{"source", "generated"},
            {"model", c.model},
            {"framework", c.framework},
            {"precision", std::string(workload::to_string(c.precision))},
            {"optimizer", std::string(workload::to_string(c.optimizer))},
            {"batch_per_gpu", c.batch_per_gpu},
            {"grad_accum", c.grad_accum},
            {"bucket_bytes", c.bucket_bytes},
            {"parallel", {{"dp", c.gpus}}}};
  if (c.fsdp) {
    j["parallel"]["fsdp"] = c.fsdp_shard_size > 0 && c.fsdp_shard_size < c.gpus ? "hybrid" : "full";
    j.erase("bucket_bytes");
  }
  if (c.activation_checkpointing) j["recompute"] = "full";
  if (c.attention_kernel != trace::AttentionKernel::Fused)
    j["attention_kernel"] = std::string(trace::to_string(c.attention_kernel));
  if (const int seq_len = resolved_seq_len(c.model_options.seq_len, trace); seq_len > 0)
    j["seq_len"] = seq_len;
  if (c.host) j["host"] = host_inputs(*c.host);
  return j;
}

// "fp8" for Transformer Engine's default (delayed scaling), "fp8-<recipe>" for the others, "nvfp4".
std::string precision_name(const workload::ParallelConfig& c) {
  if (!c.fp8) return std::string(workload::to_string(c.precision));
  if (c.quant_recipe == workload::QuantRecipe::NVFP4) return "nvfp4";
  if (c.quant_recipe == workload::QuantRecipe::Delayed) return "fp8";
  return "fp8-" + std::string(workload::to_string(c.quant_recipe));
}

json model_parallel_inputs(const workload::ParallelConfig& c, const trace::Trace& trace) {
  const int dp = c.data_parallel_size();
  json j = {{"source", "generated"},
            {"model", c.model},
            {"framework", c.zero > 0                           ? "deepspeed"
                          : c.fsdp != workload::FsdpMode::None ? "fsdp"
                                                               : "megatron"},
            {"precision", precision_name(c)},
            {"micro_batch", c.micro_batch},
            {"global_batch", c.global_batch > 0 ? c.global_batch : c.micro_batch * dp},
            {"seq_len", resolved_seq_len(c.seq_len, trace)},
            {"recompute", std::string(workload::to_string(c.recompute))},
            {"recomputed_layers", c.recompute == workload::Recompute::Full
                                      ? json(workload::recomputed_layers_text(c.recompute_layers))
                                      : json(nullptr)},
            {"flash_attention", c.flash_attention},
            {"overlap_grad_reduce", c.overlap_grad_reduce},
            {"overlap_param_gather", c.distributed_optimizer && c.overlap_param_gather},
            {"overlap_p2p_communication", c.vpp > 1 && c.overlap_p2p_communication},
            {"tp_comm_overlap", c.tp_comm_overlap},
            {"overlap_moe_expert_parallel_comm", c.overlap_moe_expert_parallel_comm},
            {"parallel",
             {{"tp", c.tp},
              {"sp", c.sp},
              {"pp", c.pp},
              {"vpp", c.vpp},
              {"cp", c.cp},
              {"ep", c.ep},
              {"dp", dp},
              {"zero", c.zero},
              {"fsdp", fsdp_name(c.fsdp)},
              {"distributed_optimizer", c.distributed_optimizer}}}};
  if (c.host) {
    j["host"] = host_inputs(*c.host);
    j["host"]["overhead"] = c.host_overhead;
    j["host"]["pass_overhead"] = c.host_pass_overhead;
    j["host"]["moe_layer_overhead"] = c.host_moe_layer_overhead;
    if (!c.batch_p2p_sync) j["host"]["batch_p2p_sync"] = false;
  }
  if (c.moe_pad_to_capacity) j["moe_pad_expert_input_to_capacity"] = true;
  if (c.cuda_graphs.impl != workload::CudaGraphs::Impl::None)
    j["cuda_graphs"] = {
        {"impl",
         c.cuda_graphs.impl == workload::CudaGraphs::Impl::FullIteration ? "full_iteration" : "per_layer"},
        {"scope", workload::cuda_graph_modules_string(c.cuda_graphs.modules)}};
  if (c.fp8_param_gather) j["fp8_param_gather"] = true;
  if (c.moe_dispatcher != workload::TokenDispatcher::AllToAll)
    j["moe_token_dispatcher_type"] = std::string(workload::to_string(c.moe_dispatcher));
  if (c.moe_dispatcher == workload::TokenDispatcher::Flex)
    j["moe_flex_dispatcher_backend"] = std::string(workload::to_string(c.moe_flex_backend));
  if (c.te_op_fuser) j["use_transformer_engine_op_fuser"] = true;
  if (c.grad_reduce_in_bf16) j["grad_reduce_in_bf16"] = true;
  if (c.fsdp_reduce_in_fp32) j["fsdp_reduce_in_fp32"] = true;
  if (c.eager_pointwise) j["eager_pointwise"] = true;
  if (c.attention_kernel != trace::AttentionKernel::Fused)
    j["attention_kernel"] = std::string(trace::to_string(c.attention_kernel));
  if (c.cross_entropy_fusion != workload::CrossEntropyFusion::Unfused)
    j["cross_entropy_fusion_impl"] = std::string(workload::to_string(c.cross_entropy_fusion));
  if (c.etp > 0) j["parallel"]["etp"] = c.etp;
  if (c.mtp_layers) j["mtp_layers"] = *c.mtp_layers;
  if (c.cpu_offloading_layers > 0) j["cpu_offloading_num_layers"] = c.cpu_offloading_layers;
  return j;
}

json trace_inputs(const RunRequest& request, const trace::Trace& trace) {
  json files = json::array();
  for (const std::string& path : request.trace_paths) files.push_back(file_entry(path));
  const trace::ImportOptions& o = request.import;
  json j = {{"source", "trace"},
            {"files", files},
            {"model", trace.metadata.model},
            {"step", o.step ? json(*o.step) : json("last")},
            {"host_speed", o.host_speed}};
  if (o.host_step_time_s > 0) j["host_step_time_s"] = o.host_step_time_s;
  if (o.data_parallel_ranks > 0) {
    const bool fsdp = o.sharding == trace::DataParallelSharding::Fsdp;
    j["scale_out"] = {{"as", fsdp ? "fsdp" : "ddp"}, {"dp", o.data_parallel_ranks}};
    if (fsdp)
      j["scale_out"]["fsdp_min_unit_params"] = o.fsdp_min_unit_params;
    else
      j["scale_out"]["bucket_bytes"] = o.ddp_bucket_bytes;
  }
  return j;
}

}  // namespace

json describe_inputs(const RunRequest& request, const RunOutput& out) {
  json j;
  if (request.workload)
    j["workload"] = data_parallel_inputs(*request.workload, out.trace);
  else if (request.parallel)
    j["workload"] = model_parallel_inputs(*request.parallel, out.trace);
  else if (!request.trace_paths.empty())
    j["workload"] = trace_inputs(request, out.trace);
  else
    j["workload"] = {{"source", "in memory"}, {"model", out.trace.metadata.model}};
  for (const std::string& path : request.config_files)
    j["workload"]["config_files"].push_back(file_entry(path));

  const bool xml = request.platform.size() > 4 && request.platform.ends_with(".xml");
  const std::string platform_path = xml ? request.platform : platform::cluster_spec_path(request.platform);
  j["platform"] = {{"name", out.result.platform},
                   {"file", file_entry(platform_path)},
                   {"nodes", out.result.nodes},
                   {"gpus_per_node", out.result.gpus_per_node}};
  // The profile as used (a spec profile takes the fabric's NCCL efficiencies), whether built in from a
  // datasheet or read from a file.
  j["profile"] = {{"name", out.profile.device.name},
                  {"kind", std::string(calibration::to_string(out.profile.kind))},
                  {"hash", content_hash(calibration::to_json(out.profile).dump())}};
  std::error_code ignored;
  if (!request.profile.empty() && std::filesystem::is_regular_file(request.profile, ignored))
    j["profile"]["file"] = file_entry(request.profile);

  json what_ifs = json::object();
  if (request.nccl.algorithm) what_ifs["nccl_algo"] = cost::to_string(*request.nccl.algorithm);
  if (request.nccl.protocol) what_ifs["nccl_proto"] = cost::to_string(*request.nccl.protocol);
  if (request.nccl.buffer_bytes != cost::kNcclDefaultBufferBytes)
    what_ifs["nccl_buffsize"] = request.nccl.buffer_bytes;
  if (request.nccl.min_channels > 0) what_ifs["nccl_min_nchannels"] = request.nccl.min_channels;
  if (request.nccl.p2p_net_chunk_bytes > 0)
    what_ifs["nccl_p2p_net_chunksize"] = request.nccl.p2p_net_chunk_bytes;
  if (request.nccl.collnet) what_ifs["nccl_collnet_enable"] = true;
  for (const auto& [link, factor] : request.degraded_links) what_ifs["degraded_links"][link] = factor;
  for (const auto& [rank, slowdown] : request.rank_slowdown)
    what_ifs["stragglers"][std::to_string(rank)] = slowdown;
  if (request.jitter.seed != 0)
    what_ifs["jitter"] = {{"seed", request.jitter.seed},
                          {"run_sigma", request.jitter.run_sigma},
                          {"kernel_sigma", request.jitter.kernel_sigma}};
  if (request.fold_replicas) what_ifs["fidelity"] = "fast";
  if (request.lockstep_group.empty()) what_ifs["lockstep"] = false;
  if (!request.comm_sms) what_ifs["comm_sms"] = false;
  if (!request.sample_replicas) what_ifs["replica_sampling"] = false;
  if (request.allow_oom) what_ifs["allow_oom"] = true;
  j["what_ifs"] = what_ifs;
  return j;
}

}  // namespace simtrain::run
