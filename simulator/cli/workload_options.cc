// Implements workload_options.h: the workload and model-parallel options of simtrain run and trace.
#include "simulator/cli/workload_options.h"

#include "simulator/cli/option_bounds.h"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <numeric>
#include <string_view>

#include <fmt/format.h>

#include "common/error.h"
#include "common/suggest.h"
#include "simulator/workload/framework.h"
#include "simulator/workload/implementation.h"

namespace po = boost::program_options;

namespace simtrain::cli {

void add_workload_options(po::options_description& options) {
  options.add_options()("model", po::value<std::string>()->default_value("resnet50"),
                        "model from the zoo (simtrain models)")("gpus", po::value<int>()->default_value(8),
                                                                "data-parallel GPUs")(
      "batch-per-gpu", po::value<int>()->default_value(256), "micro-batch per GPU, in samples")(
      "grad-accum", po::value<int>()->default_value(1), "micro-batches accumulated per optimizer step")(
      "precision", po::value<std::string>()->default_value("amp"),
      "fp32 | tf32 | amp (fp16) | amp-bf16 | fp8 (--fp8-recipe delayed | tensorwise | blockwise | mxfp8) | "
      "nvfp4 (Blackwell)")("seq-len", po::value<int>()->default_value(0),
                           "tokens per sequence (0 = the model's default)")(
      "bucket-mb", po::value<double>()->default_value(25), "DDP gradient bucket size in MiB")(
      "optimizer", po::value<std::string>(), "sgd | adam | lamb (default: sgd for CNNs, adam otherwise)")(
      "framework", po::value<std::string>()->default_value("ddp"),
      "ddp | ray-train | deepspeed: gradient reduction and overheads (simulator/workload/framework.h)")(
      "impl", po::value<std::string>(),
      "implementation whose kernels are generated: torchvision | hf | megatron (simtrain models lists "
      "each model's; default: the first)")(
      "host", po::value<std::string>(),
      "host profile (JSON): the CPU time per launched kernel of an eager step, so the GPU waits for a slow "
      "host (simulator/workload/host_profile.h)");
}

namespace {

constexpr const char* kParallelOptions[] = {"tp",
                                            "sp",
                                            "pp",
                                            "vpp",
                                            "pp-first-layers",
                                            "pp-last-layers",
                                            "pp-embedding-in-split",
                                            "pp-loss-in-split",
                                            "pp-layers",
                                            "cp",
                                            "ep",
                                            "etp",
                                            "dp",
                                            "zero",
                                            "fsdp",
                                            "distributed-optimizer",
                                            "micro-batch",
                                            "global-batch",
                                            "recompute",
                                            "recompute-modules",
                                            "cpu-offloading-num-layers",
                                            "schedule",
                                            "attention",
                                            "no-async-tensor-model-parallel-allreduce",
                                            "no-gradient-accumulation-fusion",
                                            "no-overlap-grad-reduce",
                                            "no-overlap-param-gather",
                                            "no-overlap-p2p-communication",
                                            "no-batch-p2p-sync",
                                            "tp-comm-overlap",
                                            "overlap-moe-expert-parallel-comm",
                                            "use-transformer-engine-op-fuser",
                                            "cross-entropy-loss-fusion",
                                            "cross-entropy-fusion-impl",
                                            "moe-pad-expert-input-to-capacity",
                                            "moe-expert-capacity-factor",
                                            "cuda-graph-impl",
                                            "cuda-graph-scope",
                                            "host-overhead",
                                            "host-pass-overhead",
                                            "host-moe-layer-overhead"};

// The kernels of a fused attention that --attention names.
trace::AttentionKernel fused_attention_kernel(const std::string& attention) {
  if (attention == "flash") return trace::AttentionKernel::Fused;
  if (attention == "flash2") return trace::AttentionKernel::FlashAttention2;
  if (attention == "triton") return trace::AttentionKernel::Triton;
  throw Error("--attention: unknown implementation '" + attention + "' (flash, flash2, triton, unfused)");
}

}  // namespace

void add_loss_options(po::options_description& options) {
  options.add_options()("cross-entropy-loss-fusion",
                        "Megatron's fused loss over the logits instead of its separate fp32 passes "
                        "(Megatron-Bridge's recipes set it)")(
      "cross-entropy-fusion-impl", po::value<std::string>(),
      "with --cross-entropy-loss-fusion: native (Megatron's jit-fused passes, the default) | te (Transformer "
      "Engine's Triton kernels, as Megatron-Bridge's performance scripts run it)");
}

workload::CrossEntropyFusion loss_from_options(const po::variables_map& vm) {
  if (vm.count("cross-entropy-fusion-impl") && !vm.count("cross-entropy-loss-fusion"))
    throw Error("--cross-entropy-fusion-impl: has no effect without --cross-entropy-loss-fusion");
  if (!vm.count("cross-entropy-loss-fusion")) return workload::CrossEntropyFusion::Unfused;
  const std::string impl =
      vm.count("cross-entropy-fusion-impl") ? vm["cross-entropy-fusion-impl"].as<std::string>() : "native";
  const auto fusion = workload::parse_cross_entropy_fusion_impl(impl);
  if (!fusion) throw Error("--cross-entropy-fusion-impl: unknown implementation '" + impl + "' (native, te)");
  return *fusion;
}

void add_parallel_options(po::options_description& options) {
  add_loss_options(options);
  options.add_options()("tp", po::value<int>()->default_value(1), "tensor-parallel size")(
      "sp", "sequence parallelism (with --tp)")("pp", po::value<int>()->default_value(1), "pipeline stages")(
      "vpp", po::value<int>()->default_value(1), "virtual stages per pipeline rank (interleaved 1F1B)")(
      "pp-first-layers", po::value<int>(),
      "decoder layers on the first pipeline rank; the middle ranks share the rest (Megatron's "
      "--decoder-first-pipeline-num-layers)")(
      "pp-last-layers", po::value<int>(),
      "decoder layers on the last pipeline rank (--decoder-last-pipeline-num-layers)")(
      "pp-embedding-in-split",
      "count the embedding as a layer when splitting (--account-for-embedding-in-pipeline-split)")(
      "pp-loss-in-split", "count the loss as a layer when splitting (--account-for-loss-in-pipeline-split)")(
      "pp-layers", po::value<std::string>(),
      "decoder layers of each pipeline rank, comma-separated (e.g. 4,4,4,3: an explicit split), or with "
      "--vpp of each virtual stage, pp x vpp counts in the order the layers run (chunk 0 of every rank "
      "first), as Megatron's --pipeline-model-parallel-layout")("cp", po::value<int>()->default_value(1),
                                                                "context-parallel size")(
      "ep", po::value<int>()->default_value(1), "expert-parallel size (MoE models)")(
      "etp", po::value<int>(),
      "expert tensor-parallel size (default: --tp); below --tp, MoE parallel folding: expert parallelism "
      "may span the tensor-parallel ranks (Megatron's --expert-tensor-parallel-size)")(
      "dp", po::value<int>()->default_value(0), "data-parallel size (default: GPUs / (tp pp cp))")(
      "zero", po::value<int>()->default_value(0), "DeepSpeed ZeRO stage 0-3")(
      "fsdp", po::value<std::string>(), "PyTorch FSDP: full | hybrid (shards within 8 GPUs)")(
      "distributed-optimizer", "Megatron's distributed optimizer")(
      "micro-batch", po::value<int>()->default_value(1), "sequences per micro-batch")(
      "global-batch", po::value<int>()->default_value(0), "sequences per step (default: micro-batch x dp)")(
      "recompute", po::value<std::string>()->default_value("none"),
      "activation recomputation: none | selective | full")(
      "recompute-modules", po::value<std::vector<std::string>>()->multitoken(),
      "under --recompute selective, the submodules rerun in backward, Megatron's names (spaces or commas): "
      "core_attn layernorm moe_act mla_up_proj mlp moe shared_experts (default: core_attn), or "
      "torchtitan_op (torchtitan's op-level checkpointing: every pointwise op and every second matmul)")(
      "cpu-offloading-num-layers", po::value<int>()->default_value(0),
      "offload the first N decoder layers' activations to host memory between their forward and backward "
      "passes (Megatron's --cpu-offloading-num-layers, Transformer Engine's offloading; no --pp, no "
      "--recompute)")("schedule", po::value<std::string>()->default_value("1f1b"),
                      "pipeline schedule: 1f1b | gpipe")(
      "deepspeed-config", po::value<std::string>(),
      "a DeepSpeed JSON configuration (ZeRO stage, batches, precision)")(
      "torchtitan-config", po::value<std::string>(),
      "a torchtitan job TOML (model, batch, FSDP/TP/PP/CP degrees, float8, activation checkpointing)")(
      "attention", po::value<std::string>()->default_value("flash"),
      "flash (the fused kernel Transformer Engine and PyTorch SDPA run: cuDNN's from Hopper on, "
      "FlashAttention-2's on Ampere) | flash2 "
      "(FlashAttention-2's kernels: the flash-attn package) | triton (FlashAttention's Triton port, as "
      "llm-foundry's attn_impl triton) | unfused (Megatron-LM before 2022: scores in memory)")(
      "no-async-tensor-model-parallel-allreduce",
      "the backward's TP all-reduce blocks instead of running under the weight-gradient GEMM (Megatron-LM "
      "2021)")(
      "no-gradient-accumulation-fusion",
      "weight gradients are added into the main_grad buffers by a separate kernel (Megatron-LM before "
      "mid-2022)")("no-overlap-grad-reduce",
                   "data-parallel gradients are reduced after the backward pass, not under it (Megatron's "
                   "local DDP of 2021-22; Megatron-core without --overlap-grad-reduce)")(
      "no-overlap-param-gather",
      "the distributed optimizer's updated parameters are all-gathered after the optimizer step, not under "
      "the next step's forward pass")("no-overlap-p2p-communication",
                                      "interleaved pipeline sends block the next kernel (Megatron-LM before "
                                      "2023)")(
      "no-batch-p2p-sync",
      "with --host: the host does not synchronise the device after each "
      "batch of pipeline sends and receives (Megatron-Core's "
      "batch_p2p_sync = False)")(
      "grad-reduce-in-bf16",
      "Megatron: bf16 training accumulates and reduces gradients in bf16, not in fp32 main_grad buffers "
      "(Megatron-Bridge's grad_reduce_in_fp32 = False)")(
      "tp-comm-overlap",
      "Transformer Engine's userbuffers: sequence-parallel all-gathers and reduce-scatters run in chunks "
      "under their GEMMs (with --sp)")(
      "overlap-moe-expert-parallel-comm",
      "Megatron-Core's combined 1F1B: each forward runs with another micro-batch's backward, layer by layer, "
      "so one's expert-parallel all-to-alls hide under the other's kernels (with --ep; --vpp when --pp > 1)")(
      "use-transformer-engine-op-fuser",
      "Megatron-Core: the routed experts' MLP as Transformer Engine's fused grouped ops (biases and the "
      "clamped activation of GPT-OSS inside them, not in PyTorch)")(
      "moe-pad-expert-input-to-capacity",
      "token-dropping MoE with static expert shapes (with --moe-expert-capacity-factor): the dispatcher "
      "never waits for the token counts (with --host; dropless MoE layers make the host wait once per "
      "forward pass)")(
      "moe-token-dispatcher-type", po::value<std::string>(),
      "MoE token dispatcher as Megatron names it: alltoall (default: NCCL's all-to-all, one copy of a token "
      "per chosen expert) | allgather (Megatron-LM's default: every rank gathers its expert group's tokens, "
      "a reduce-scatter brings the outputs back) | flex (DeepEP or HybridEP: one copy per destination node, "
      "fanned out over NVLink there)")(
      "moe-flex-dispatcher-backend", po::value<std::string>(),
      "the flex dispatcher's kernels, as Megatron names them: deepep (default, as Megatron-LM's: across "
      "nodes "
      "their NVLink fan-out overlaps the network transfer) | hybridep (Megatron-Bridge's recipes: it follows "
      "it)")(
      "moe-expert-capacity-factor", po::value<double>(),
      "token slots per expert with --moe-pad-expert-input-to-capacity, relative to its even share (without "
      "it, balanced routing drops nothing and it changes nothing)")(
      "cuda-graph-impl", po::value<std::string>(),
      "Megatron's CUDA graphs: none | local | transformer_engine (per-layer graphs of --cuda-graph-scope) | "
      "full_iteration (the whole forward-backward pass): a captured region costs the host one launch "
      "(with --host)")(
      "cuda-graph-scope", po::value<std::vector<std::string>>()->multitoken(),
      "the layer parts per-layer graphs capture, Megatron's names (spaces or commas): attn mlp moe "
      "moe_router moe_preprocess mamba (default: whole layers)")(
      "host-overhead", po::value<double>(),
      "each operator dispatch of a Megatron step takes this many times the --host profile's eager PyTorch "
      "cost (default: Megatron-Core's 4, fitted on Megatron-Bridge's runs; 1 = the profile as measured)")(
      "host-pass-overhead", po::value<double>(),
      "the host time Megatron's pipeline schedule takes per pass (a micro-batch's forward or backward "
      "through one model chunk) besides its ops, in the --host profile's eager dispatches (default 0: "
      "the Megatron-Bridge runs fit 100, NeMo's contradict it; README \"Host dispatch\")")(
      "host-moe-layer-overhead", po::value<double>(),
      "the host time Megatron-Core's Python for a MoE layer takes per forward pass besides its ops, after "
      "the dispatcher's sync point, in the --host profile's eager dispatches (default: Megatron-Core's 80, "
      "fitted on Megatron-Bridge's runs; README \"Host dispatch\")")(
      "mtp-layers", po::value<int>(),
      "multi-token-prediction modules instead of the model's own (Megatron's --mtp-num-layers; 0 = none)");
}

bool wants_model_parallelism(const po::variables_map& vm) {
  if (vm.count("impl") && vm["impl"].as<std::string>() == "megatron") return true;
  // An explicit eager implementation runs PyTorch FSDP and chooses its attention kernel in the eager
  // generator (workload_from_options).
  const bool eager = vm.count("impl") > 0;
  const auto eager_option = [](std::string_view name) {
    return name == "fsdp" || name == "attention" || name == "recompute";
  };
  for (const char* name : kParallelOptions)
    if (vm.count(name) && !vm[name].defaulted() && !(eager && eager_option(name))) return true;
  return vm.count("precision") &&
         (vm["precision"].as<std::string>() == "fp8" || vm["precision"].as<std::string>() == "nvfp4");
}

workload::ParallelConfig parallel_from_options(const po::variables_map& vm) {
  workload::ParallelConfig c;
  c.model = vm["model"].as<std::string>();
  c.gpus = vm["gpus"].as<int>();
  c.seq_len = vm["seq-len"].as<int>();
  if (vm.count("impl")) {
    const workload::Model model = workload::build_model(c.model, {.seq_len = c.seq_len});
    if (workload::parse_implementation(vm["impl"].as<std::string>(), model) !=
        workload::Implementation::Megatron)
      throw Error("--impl: " + vm["impl"].as<std::string>() +
                  " runs data-parallel only; model-parallel options (--tp, --pp, ...) generate megatron");
  }
  if (vm.count("host")) c.host = workload::load_host_profile(vm["host"].as<std::string>());
  c.host_overhead = workload::kMegatronCoreHostOverhead;
  if (vm.count("host-overhead")) {
    if (!c.host) throw Error("--host-overhead: needs --host (the profile it scales)");
    c.host_overhead = vm["host-overhead"].as<double>();
    if (!(c.host_overhead > 0 && c.host_overhead <= 100))
      throw Error("--host-overhead: must be in (0, 100], got " + std::to_string(c.host_overhead));
  }
  c.host_pass_overhead = workload::kMegatronCorePassOverhead;
  if (vm.count("host-pass-overhead")) {
    if (!c.host) throw Error("--host-pass-overhead: needs --host (the profile whose dispatches it counts)");
    c.host_pass_overhead = vm["host-pass-overhead"].as<double>();
    if (!(c.host_pass_overhead >= 0 && c.host_pass_overhead <= 10000))
      throw Error("--host-pass-overhead: must be in [0, 10000], got " + std::to_string(c.host_pass_overhead));
  }
  c.host_moe_layer_overhead = workload::kMegatronCoreMoeLayerOverhead;
  if (vm.count("host-moe-layer-overhead")) {
    if (!c.host)
      throw Error("--host-moe-layer-overhead: needs --host (the profile whose dispatches it counts)");
    c.host_moe_layer_overhead = vm["host-moe-layer-overhead"].as<double>();
    if (!(c.host_moe_layer_overhead >= 0 && c.host_moe_layer_overhead <= 10000))
      throw Error("--host-moe-layer-overhead: must be in [0, 10000], got " +
                  std::to_string(c.host_moe_layer_overhead));
  }
  const std::string precision = vm["precision"].as<std::string>();
  if (precision == "fp8" || precision == "nvfp4") {
    c.fp8 = true;
    c.precision = workload::Precision::AMP_BF16;
    if (precision == "nvfp4") c.quant_recipe = workload::QuantRecipe::NVFP4;
  } else if (auto p = workload::parse_precision(precision)) {
    c.precision = *p;
  } else {
    throw Error("--precision: unknown precision '" + precision + "' (fp32, tf32, amp, amp-bf16, fp8, nvfp4)");
  }
  c.tp = vm["tp"].as<int>();
  c.sp = vm.count("sp") > 0;
  c.pp = vm["pp"].as<int>();
  c.vpp = vm["vpp"].as<int>();
  for (const auto& [name, field] :
       {std::pair{"pp-first-layers", &c.pp_first_layers}, std::pair{"pp-last-layers", &c.pp_last_layers}}) {
    if (!vm.count(name)) continue;
    *field = vm[name].as<int>();
    if (*field < 0)
      throw Error(std::string("--") + name + ": must not be negative, got " + std::to_string(*field));
  }
  if (vm.count("pp-layers")) {
    const std::string text = vm["pp-layers"].as<std::string>();
    std::size_t at = 0;
    while (at <= text.size()) {
      const std::size_t comma = std::min(text.find(',', at), text.size());
      const std::string item = text.substr(at, comma - at);
      int value = -1;
      const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
      if (item.empty() || error != std::errc() || end != item.data() + item.size() || value < 0 ||
          value > 100000)
        throw Error("--pp-layers " + text + ": expected comma-separated layer counts, e.g. 4,4,4,3");
      c.pp_layers.push_back(value);
      at = comma + 1;
    }
  }
  c.pp_embedding_in_split = vm.count("pp-embedding-in-split") > 0;
  c.pp_loss_in_split = vm.count("pp-loss-in-split") > 0;
  c.cp = vm["cp"].as<int>();
  c.ep = vm["ep"].as<int>();
  if (vm.count("etp")) {
    c.etp = vm["etp"].as<int>();
    if (c.etp < 1) throw Error("--etp: must be at least 1, got " + std::to_string(c.etp));
  }
  if (vm.count("mtp-layers")) {
    c.mtp_layers = vm["mtp-layers"].as<int>();
    if (*c.mtp_layers < 0 || *c.mtp_layers > workload::kMaxMtpLayers)
      throw Error("--mtp-layers: must be 0 to " + std::to_string(workload::kMaxMtpLayers) + ", got " +
                  std::to_string(*c.mtp_layers));
  }
  c.dp = vm["dp"].as<int>();
  c.zero = vm["zero"].as<int>();
  if (vm.count("fsdp")) {
    const std::string mode = vm["fsdp"].as<std::string>();
    if (mode == "full")
      c.fsdp = workload::FsdpMode::FullShard;
    else if (mode == "hybrid")
      c.fsdp = workload::FsdpMode::HybridShard;
    else
      throw Error("--fsdp: unknown mode '" + mode + "' (full, hybrid)");
  }
  c.distributed_optimizer = vm.count("distributed-optimizer") > 0;
  c.micro_batch = vm["micro-batch"].as<int>();
  c.global_batch = vm["global-batch"].as<int>();
  if (!workload::parse_recompute(vm["recompute"].as<std::string>(), c.recompute))
    throw Error("--recompute: unknown policy '" + vm["recompute"].as<std::string>() +
                "' (none, selective, full)");
  if (vm.count("recompute-modules")) {
    if (c.recompute != workload::Recompute::Selective)
      throw Error("--recompute-modules: applies to --recompute selective");
    std::string names, why;
    for (const std::string& name : vm["recompute-modules"].as<std::vector<std::string>>())
      names += name + ",";
    const auto modules = workload::parse_recompute_modules(names, &why);
    if (!modules) throw Error("--recompute-modules: " + why);
    c.recompute_modules = *modules;
  }
  c.cpu_offloading_layers = vm["cpu-offloading-num-layers"].as<int>();
  const std::string attention = vm["attention"].as<std::string>();
  c.flash_attention = attention != "unfused";
  if (c.flash_attention) c.attention_kernel = fused_attention_kernel(attention);
  c.async_tp_all_reduce = vm.count("no-async-tensor-model-parallel-allreduce") == 0;
  c.gradient_accumulation_fusion = vm.count("no-gradient-accumulation-fusion") == 0;
  c.overlap_grad_reduce = vm.count("no-overlap-grad-reduce") == 0;
  c.overlap_param_gather = vm.count("no-overlap-param-gather") == 0;
  c.overlap_p2p_communication = vm.count("no-overlap-p2p-communication") == 0;
  c.batch_p2p_sync = vm.count("no-batch-p2p-sync") == 0;
  c.tp_comm_overlap = vm.count("tp-comm-overlap") > 0;
  c.overlap_moe_expert_parallel_comm = vm.count("overlap-moe-expert-parallel-comm") > 0;
  c.te_op_fuser = vm.count("use-transformer-engine-op-fuser") > 0;
  c.grad_reduce_in_bf16 = vm.count("grad-reduce-in-bf16") > 0;
  c.cross_entropy_fusion = loss_from_options(vm);
  if (vm.count("moe-pad-expert-input-to-capacity")) {
    if (!vm.count("moe-expert-capacity-factor"))
      throw Error("--moe-pad-expert-input-to-capacity: needs --moe-expert-capacity-factor");
    const double capacity = vm["moe-expert-capacity-factor"].as<double>();
    if (!(capacity > 0 && capacity <= 64))
      throw Error("--moe-expert-capacity-factor: must be in (0, 64], got " + std::to_string(capacity));
    c.moe_pad_to_capacity = true;
    c.capacity_factor = capacity;
  }
  if (vm.count("cuda-graph-impl") || vm.count("cuda-graph-scope")) {
    std::string scope;
    if (vm.count("cuda-graph-scope"))
      for (const std::string& part : vm["cuda-graph-scope"].as<std::vector<std::string>>())
        scope += (scope.empty() ? "" : ",") + part;
    const std::string impl = vm.count("cuda-graph-impl") ? vm["cuda-graph-impl"].as<std::string>() : "none";
    std::string why;
    const auto graphs = workload::parse_cuda_graphs(impl, scope, &why);
    if (!graphs)
      throw Error("--cuda-graph-impl " + impl + (scope.empty() ? "" : " --cuda-graph-scope " + scope) + ": " +
                  why);
    c.cuda_graphs = *graphs;
  }
  if (vm.count("moe-token-dispatcher-type")) {
    const std::string dispatcher = vm["moe-token-dispatcher-type"].as<std::string>();
    if (!workload::parse_token_dispatcher(dispatcher, c.moe_dispatcher))
      throw Error("--moe-token-dispatcher-type: unknown dispatcher '" + dispatcher +
                  "' (alltoall, allgather, flex)");
  }
  if (vm.count("moe-flex-dispatcher-backend")) {
    const std::string backend = vm["moe-flex-dispatcher-backend"].as<std::string>();
    if (!workload::parse_flex_backend(backend, c.moe_flex_backend))
      throw Error("--moe-flex-dispatcher-backend: unknown backend '" + backend + "' (deepep, hybridep)");
  }
  const std::string schedule = vm["schedule"].as<std::string>();
  if (schedule == "gpipe")
    c.schedule = workload::PipelineSchedule::GPipe;
  else if (schedule == "1f1b")
    c.schedule = c.vpp > 1 ? workload::PipelineSchedule::Interleaved : workload::PipelineSchedule::OneFOneB;
  else
    throw Error("--schedule: unknown schedule '" + schedule + "' (1f1b, gpipe)");
  for (const auto& [name, value] : {std::pair{"--tp", c.tp},
                                    {"--pp", c.pp},
                                    {"--vpp", c.vpp},
                                    {"--cp", c.cp},
                                    {"--ep", c.ep},
                                    {"--micro-batch", c.micro_batch}})
    if (value < 1) throw Error(std::string(name) + ": must be at least 1, got " + std::to_string(value));
  if (c.dp < 0) throw Error("--dp: must not be negative");
  if (c.global_batch < 0) throw Error("--global-batch: must not be negative");
  return c;
}

workload::DataParallelConfig workload_from_options(const po::variables_map& vm) {
  workload::DataParallelConfig config;
  config.model = vm["model"].as<std::string>();
  config.gpus = vm["gpus"].as<int>();
  config.batch_per_gpu = vm["batch-per-gpu"].as<int>();
  config.grad_accum = vm["grad-accum"].as<int>();
  auto precision = workload::parse_precision(vm["precision"].as<std::string>());
  if (!precision)
    throw Error("--precision: unknown precision '" + vm["precision"].as<std::string>() +
                "' (fp32, tf32, amp, amp-bf16)");
  config.precision = *precision;
  config.model_options.seq_len = vm["seq-len"].as<int>();
  if (config.model_options.seq_len < 0) throw Error("--seq-len: must not be negative");
  const auto framework = workload::parse_framework(vm["framework"].as<std::string>());
  if (!framework)
    throw Error("--framework: unknown framework '" + vm["framework"].as<std::string>() +
                "' (ddp, ray-train, deepspeed)");
  workload::apply_framework(*framework, config);
  double bucket_mb = vm["bucket-mb"].as<double>();
  if (!(bucket_mb > 0)) throw Error("--bucket-mb: must be positive");
  if (!vm["bucket-mb"].defaulted() || *framework != workload::Framework::DeepSpeed)
    config.bucket_bytes = bucket_mb * 1024 * 1024;
  if (vm.count("optimizer")) {
    if (!workload::parse_optimizer(vm["optimizer"].as<std::string>(), config.optimizer))
      throw Error("--optimizer: unknown optimizer '" + vm["optimizer"].as<std::string>() +
                  "' (sgd, adam, lamb)");
  }
  const workload::Model model = workload::build_model(config.model, config.model_options);
  if (!vm.count("optimizer")) config.optimizer = workload::default_optimizer(model);
  // The eager generator builds torchvision's and Hugging Face's kernel lists; megatron goes through
  // parallel_from_options (wants_model_parallelism), but is still checked against the model here.
  if (vm.count("impl")) workload::parse_implementation(vm["impl"].as<std::string>(), model);
  if (vm.count("fsdp")) {
    const std::string sharding = vm["fsdp"].as<std::string>();
    if (sharding != "full" && sharding != "hybrid")
      throw Error("--fsdp: unknown sharding '" + sharding + "' (full, hybrid)");
    // Hybrid shards within a node's worth of ranks (8 GPUs), as the Megatron-style generator does.
    if (sharding == "hybrid") config.fsdp_shard_size = std::gcd(config.gpus, 8);
    if (*framework == workload::Framework::DeepSpeed)
      throw Error("--fsdp: PyTorch FSDP does not run under --framework deepspeed (its ZeRO is --zero)");
    if (!vm["bucket-mb"].defaulted()) throw Error("--bucket-mb: DDP's buckets do not apply to --fsdp");
    config.fsdp = true;
  }
  if (vm.count("recompute") && !vm["recompute"].defaulted()) {
    const std::string recompute = vm["recompute"].as<std::string>();
    if (recompute != "full" && recompute != "none")
      throw Error("--recompute " + recompute +
                  ": the eager generator checkpoints whole blocks (full) or none");
    config.activation_checkpointing = recompute == "full";
  }
  if (vm.count("attention") && !vm["attention"].defaulted()) {
    const std::string attention = vm["attention"].as<std::string>();
    if (attention == "unfused")
      throw Error("--attention unfused: the eager generator runs flash (PyTorch's SDPA), flash2 or triton");
    config.attention_kernel = fused_attention_kernel(attention);
  }
  if (vm.count("host")) config.host = workload::load_host_profile(vm["host"].as<std::string>());
  return config;
}

std::optional<std::string> explicit_option_text(const po::variables_map& vm, const std::string& name) {
  const auto it = vm.find(name);
  if (it == vm.end() || it->second.defaulted()) return std::nullopt;
  const boost::any& value = it->second.value();
  if (const int* i = boost::any_cast<int>(&value)) return std::to_string(*i);
  if (const std::string* text = boost::any_cast<std::string>(&value)) return *text;
  if (const double* d = boost::any_cast<double>(&value)) return fmt::format("{}", *d);
  return std::string();  // a switch
}

bool parse_or_help(const std::vector<std::string>& args, const po::options_description& options,
                   po::variables_map& vm, const char* usage,
                   const po::positional_options_description& positional) {
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  } catch (const po::unknown_option& unknown) {
    // Boost's own line, with the option that was probably meant.
    std::string name = unknown.get_option_name();
    while (name.starts_with("-")) name.erase(0, 1);
    std::vector<std::string> names;
    for (const auto& o : options.options()) names.push_back(o->long_name());
    const auto meant = closest_name(name, names);
    throw Error(std::string(unknown.what()) + (meant ? " (did you mean '--" + *meant + "'?)" : ""));
  }
  if (vm.count("help")) {
    std::cout << usage << "\n" << options << "\n";
    return false;
  }
  po::notify(vm);
  check_option_bounds(vm);
  return true;
}

}  // namespace simtrain::cli
