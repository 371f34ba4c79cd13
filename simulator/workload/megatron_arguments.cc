// Implements megatron_arguments.h: a table of the Megatron-LM arguments simtrain reads, then one pass that
// applies them to the plan.
#include "simulator/workload/megatron_arguments.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/error.h"
#include "simulator/workload/megatron_argument_names.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/moe_layer_pattern.h"
#include "simulator/workload/pipeline_layout.h"

namespace simtrain::workload {
namespace {

// The GPT-2 BPE vocabulary, which --vocab-file / --merge-file name in Megatron's GPT examples.
constexpr int kGpt2Vocab = 50257;

class Reader {
 public:
  Reader(const MegatronArguments& arguments, const GivenOption& given)
      : arguments_(arguments), given_(given) {}

  const std::string* value(const std::string& name) const {
    const std::string* found = nullptr;
    for (const auto& [n, v] : arguments_.given)
      if (n == name) found = &v;  // the last one wins, as argparse does
    return found;
  }

  bool has(const std::string& name) const { return value(name) != nullptr; }

  // A positive whole number, or nullopt when not given.
  std::optional<int> integer(const std::string& name, int minimum = 1) const {
    const std::string* text = value(name);
    if (!text) return std::nullopt;
    int number = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), number);
    if (error != std::errc() || end != text->data() + text->size() || number < minimum ||
        number > 100'000'000)
      throw Error("--" + name + ": expected a whole number of at least " + std::to_string(minimum) +
                  ", got '" + *text + "'");
    return number;
  }

  std::optional<double> real(const std::string& name) const {
    const std::string* text = value(name);
    if (!text) return std::nullopt;
    char* end = nullptr;
    const double number = std::strtod(text->c_str(), &end);
    if (text->empty() || end != text->c_str() + text->size() || !std::isfinite(number))
      throw Error("--" + name + ": expected a number, got '" + *text + "'");
    return number;
  }

  // One of `choices`, or nullopt when not given.
  std::optional<std::string> choice(const std::string& name,
                                    std::initializer_list<const char*> choices) const {
    const std::string* text = value(name);
    if (!text) return std::nullopt;
    std::string list;
    for (const char* c : choices) {
      if (*text == c) return *text;
      list += (list.empty() ? "" : ", ") + std::string(c);
    }
    throw Error("--" + name + ": unknown value '" + *text + "' (" + list + ")");
  }

  // A Megatron argument and simtrain's own option for the same thing must say the same.
  void agree(const std::string& megatron, const std::string& simtrain,
             const std::string& megatron_value) const {
    const std::optional<std::string> own = given_(simtrain);
    if (own && *own != megatron_value)
      throw Error("--" + megatron + " " + megatron_value + " and --" + simtrain +
                  (own->empty() ? "" : " " + *own) + " disagree: give one of them");
  }

 private:
  const MegatronArguments& arguments_;
  const GivenOption& given_;
};

// --moe-layer-freq: which layers are MoE layers (moe_layer_pattern.h); as TransformerConfig::first_moe_layer
// where the pattern is K dense layers and then MoE layers only (DeepSeek-V3's ([0]*3+[1]*58)), else as the
// explicit list.
void read_moe_layers(const Reader& in, TransformerConfig& t) {
  const std::string* text = in.value("moe-layer-freq");
  if (!text) return;
  std::vector<std::uint8_t> pattern;
  try {
    pattern = moe_layer_pattern(*text, t.layers);
  } catch (const Error& e) {
    throw Error("--moe-layer-freq " + *text + ": " + e.what());
  }
  const auto first = std::find(pattern.begin(), pattern.end(), 1);
  if (std::all_of(first, pattern.end(), [](std::uint8_t moe) { return moe == 1; }))
    t.first_moe_layer = static_cast<int>(first - pattern.begin());
  else
    t.moe_layers = std::move(pattern);
}

// --window-size: Megatron's (left, right) tuple, "(128,0)", or a plain left size; a causal model attends
// to the left window only.
int window_size(const std::string& text) {
  std::string compact;
  for (char ch : text)
    if (ch != ' ' && ch != '(' && ch != ')' && ch != '\'' && ch != '"') compact += ch;
  int left = 0, right = 0;
  char tail = 0;
  const int read = std::sscanf(compact.c_str(), "%d,%d%c", &left, &right, &tail);
  const bool plain =
      compact.find(',') == std::string::npos && std::sscanf(compact.c_str(), "%d%c", &left, &tail) == 1;
  if (!(plain || read == 2) || left < 1 || right != 0)
    throw Error("--window-size " + text + ": expected a left window of at least 1 token, as (128,0)");
  return left;
}

// A hybrid model (--hybrid-override-pattern, one of M, *, - or E per layer) and its Mamba-2 mixers
// (--mamba-num-heads, --mamba-head-dim 64, --mamba-state-dim 128, --mamba-num-groups 8: Megatron's defaults).
void hybrid(const Reader& in, TransformerConfig& t) {
  const std::string* pattern = in.value("hybrid-override-pattern");
  if (!pattern) {
    for (const char* option : {"mamba-num-heads", "mamba-head-dim", "mamba-state-dim", "mamba-num-groups"})
      if (in.has(option))
        throw Error(std::string("--") + option + ": give --hybrid-override-pattern with it");
    return;
  }
  if (static_cast<int>(pattern->size()) != t.layers ||
      pattern->find_first_not_of("M*-E") != std::string::npos)
    throw Error("--hybrid-override-pattern " + *pattern + ": expected one of M, *, - or E for each of the " +
                std::to_string(t.layers) + " layers (--num-layers)");
  if (pattern->find('E') != std::string::npos && t.experts == 0)
    throw Error("--hybrid-override-pattern: MoE layers (E) need --num-experts");
  t.hybrid_pattern = *pattern;
  t.mamba_head_dim = in.integer("mamba-head-dim").value_or(64);
  t.mamba_heads = in.integer("mamba-num-heads").value_or(2 * t.hidden / t.mamba_head_dim);
  t.mamba_state = in.integer("mamba-state-dim").value_or(128);
  t.mamba_groups = in.integer("mamba-num-groups").value_or(8);
  if (t.mamba_heads % t.mamba_groups != 0)
    throw Error("--mamba-num-groups " + std::to_string(t.mamba_groups) + ": does not divide the " +
                std::to_string(t.mamba_heads) + " Mamba heads");
}

// Multi-latent attention (--multi-latent-attention with --q-lora-rank, --kv-lora-rank, --qk-head-dim,
// --qk-pos-emb-head-dim, --v-head-dim; Megatron's defaults where one is left out: no query latent, 512,
// 128, 64, 128).
void multi_latent_attention(const Reader& in, TransformerConfig& t) {
  const char* options[] = {"q-lora-rank", "kv-lora-rank", "qk-head-dim", "qk-pos-emb-head-dim", "v-head-dim"};
  if (!in.has("multi-latent-attention")) {
    for (const char* option : options)
      if (in.has(option)) throw Error(std::string("--") + option + ": give --multi-latent-attention with it");
    return;
  }
  t.q_lora_rank = in.integer("q-lora-rank").value_or(0);
  t.kv_lora_rank = in.integer("kv-lora-rank").value_or(512);
  t.qk_nope_head_dim = in.integer("qk-head-dim").value_or(128);
  t.qk_rope_head_dim = in.integer("qk-pos-emb-head-dim").value_or(64);
  t.v_head_dim = in.integer("v-head-dim").value_or(128);
}

// The model given by its shapes, as Megatron's GPT builds it by default: learned absolute positions, GeLU
// MLP four times the hidden size, biases, LayerNorm, tied embeddings, dropout 0.1, the vocabulary padded to
// a multiple of 128 x TP.
std::shared_ptr<const DecoderShape> model_shape(const Reader& in, int tp, int seq_len) {
  const bool any = in.has("num-layers") || in.has("hidden-size") || in.has("num-attention-heads");
  if (!any) {
    for (const char* shape : {"ffn-hidden-size", "num-query-groups", "kv-channels", "max-position-embeddings",
                              "vocab-size", "num-experts", "swiglu", "normalization"})
      if (in.has(shape))
        throw Error(
            std::string("--") + shape +
            ": describes a model's shapes; give --num-layers, --hidden-size and --num-attention-heads "
            "with it (or a zoo model with --model)");
    return nullptr;
  }
  auto shape = std::make_shared<DecoderShape>();
  TransformerConfig& t = shape->config;
  for (const char* required : {"num-layers", "hidden-size", "num-attention-heads"})
    if (!in.has(required))
      throw Error(
          std::string("--") + required +
          ": a model given by its shapes needs --num-layers, --hidden-size and --num-attention-heads");
  t.layers = *in.integer("num-layers");
  t.hidden = *in.integer("hidden-size");
  t.heads = *in.integer("num-attention-heads");
  if (t.layers > 10'000) throw Error("--num-layers: at most 10,000");
  // --kv-channels gives the head size explicitly (Qwen3, GPT-OSS: heads x head size != hidden).
  if (auto kv = in.integer("kv-channels"); kv && *kv != t.hidden / t.heads) t.head_dim = *kv;
  if (t.head_dim == 0 && !in.has("multi-latent-attention") && t.hidden % t.heads != 0)
    throw Error("--num-attention-heads " + std::to_string(t.heads) + ": does not divide --hidden-size " +
                std::to_string(t.hidden) + " (give the head size with --kv-channels)");
  t.kv_heads = t.heads;
  if (in.has("group-query-attention")) {
    if (!in.has("num-query-groups")) throw Error("--group-query-attention: give --num-query-groups");
    t.kv_heads = *in.integer("num-query-groups");
    if (t.heads % t.kv_heads != 0)
      throw Error("--num-query-groups " + std::to_string(t.kv_heads) +
                  ": does not divide --num-attention-heads " + std::to_string(t.heads));
  } else if (in.has("num-query-groups")) {
    throw Error("--num-query-groups: Megatron reads it only with --group-query-attention");
  }
  t.gated_mlp = in.has("swiglu");
  // Megatron's default MLP width; SwiGLU's keeps the parameter count of a 4h GeLU MLP (2/3 of 4h).
  const int default_ffn = t.gated_mlp ? static_cast<int>(4LL * t.hidden * 2 / 3) : 4 * t.hidden;
  t.ffn_hidden = in.integer("ffn-hidden-size").value_or(default_ffn);
  t.rms_norm = in.choice("normalization", {"LayerNorm", "RMSNorm"}).value_or("LayerNorm") == "RMSNorm";
  t.qk_norm = in.has("qk-layernorm");
  t.bias = !in.has("disable-bias-linear");
  t.tied_embeddings = !in.has("untie-embeddings-and-output-weights");
  const int divisible = in.integer("make-vocab-size-divisible-by").value_or(128) * tp;
  const int vocab = in.integer("vocab-size").value_or(kGpt2Vocab);
  t.vocab = (vocab + divisible - 1) / divisible * divisible;
  if (in.has("num-experts")) {
    t.experts = *in.integer("num-experts");
    t.experts_per_token = in.integer("moe-router-topk").value_or(2);
    if (t.experts_per_token > t.experts) throw Error("--moe-router-topk: more than --num-experts");
    t.moe_ffn_hidden = in.integer("moe-ffn-hidden-size").value_or(t.ffn_hidden);
    // Megatron gives shared experts as one MLP of this width; simtrain counts them in moe_ffn_hidden units.
    if (auto shared = in.integer("moe-shared-expert-intermediate-size")) {
      if (*shared % t.moe_ffn_hidden != 0)
        throw Error("--moe-shared-expert-intermediate-size " + std::to_string(*shared) +
                    ": not a multiple of the expert width " + std::to_string(t.moe_ffn_hidden));
      t.shared_experts = *shared / t.moe_ffn_hidden;
    }
    read_moe_layers(in, t);
    t.moe_latent = in.integer("moe-latent-size").value_or(0);
  } else {
    for (const char* moe : {"moe-ffn-hidden-size", "moe-shared-expert-intermediate-size", "moe-layer-freq",
                            "moe-latent-size"})
      if (in.has(moe)) throw Error(std::string("--") + moe + ": give --num-experts with it");
  }
  multi_latent_attention(in, t);
  if (auto window = in.value("window-size")) t.window_size = window_size(*window);
  t.window_skip_freq = in.integer("window-attn-skip-freq").value_or(0);
  if (t.window_skip_freq > 0 && t.window_size == 0)
    throw Error("--window-attn-skip-freq: give --window-size with it");
  t.mtp_layers = in.integer("mtp-num-layers", 0).value_or(0);
  if (t.mtp_layers > kMaxMtpLayers)
    throw Error("--mtp-num-layers: must be 0 to " + std::to_string(kMaxMtpLayers) + ", got " +
                std::to_string(t.mtp_layers));
  hybrid(in, t);
  const std::string positions =
      in.choice("position-embedding-type", {"learned_absolute", "rope", "none"}).value_or("learned_absolute");
  if (positions == "learned_absolute")
    shape->learned_positions = in.integer("max-position-embeddings").value_or(seq_len);
  const bool no_dropout =
      in.real("hidden-dropout").value_or(0.1) == 0 && in.real("attention-dropout").value_or(0.1) == 0;
  shape->dropout = !no_dropout;
  shape->name = "megatron-gpt (" + std::to_string(t.layers) + " layers, hidden " + std::to_string(t.hidden) +
                ", " + std::to_string(t.heads) + " heads)";
  return shape;
}

// Megatron's recomputation: --recompute-granularity selective | full, the latter with --recompute-method
// uniform (every layer, in groups of --recompute-num-layers) or block (the first N layers of each model
// chunk), into `layers`. --recompute-method alone is full recomputation, as the SC21 scripts use it (Megatron
// of 2021 called it --checkpoint-activations with --activations-checkpoint-method).
Recompute recompute_policy(const Reader& in, int layers_per_chunk, RecomputedLayers& layers) {
  const auto granularity = in.choice("recompute-granularity", {"full", "selective"});
  const auto method = in.choice("recompute-method", {"uniform", "block"});
  if (granularity == "selective") {
    if (method) throw Error("--recompute-method: applies to --recompute-granularity full, not selective");
    return Recompute::Selective;
  }
  if (!granularity && !method) {
    if (in.has("recompute-num-layers"))
      throw Error("--recompute-num-layers: give --recompute-method with it");
    return Recompute::None;
  }
  const int count = in.integer("recompute-num-layers", 0).value_or(1);
  if (method.value_or("uniform") == "uniform") {
    if (count == 0)
      throw Error("--recompute-num-layers: uniform recomputation needs at least 1 layer a group");
    // A group reaching past its chunk's last layer ends there, as Megatron's loop does.
    if (count > 1) layers = {RecomputedLayers::Rule::UniformGroups, count};
    return Recompute::Full;
  }
  if (count >= layers_per_chunk) return Recompute::Full;
  if (count == 0) return Recompute::None;
  layers = {RecomputedLayers::Rule::FirstOfChunk, count};
  return Recompute::Full;
}

}  // namespace

bool MegatronArguments::has(const std::string& name) const {
  return std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == name; });
}

// Megatron names that simtrain's own options also use: Megatron's only on a line that has other Megatron
// arguments (`--seed` alone is simtrain's noise seed; in a pasted Megatron line, its RNG seed;
// `--tp-comm-overlap`, `--overlap-moe-expert-parallel-comm`, `--use-transformer-engine-op-fuser`,
// `--moe-pad-expert-input-to-capacity`,
// `--moe-expert-capacity-factor`, `--moe-token-dispatcher-type`, `--moe-flex-dispatcher-backend`,
// `--grad-reduce-in-bf16`,
// `--cross-entropy-loss-fusion`, `--cross-entropy-fusion-impl` and
// `--recompute-modules` mean the same either way; `--profile` is Megatron's profiling switch only bare, as
// simtrain's takes a file).
bool shared_with_simtrain(std::string_view name) {
  return name == "seed" || name == "tp-comm-overlap" || name == "overlap-moe-expert-parallel-comm" ||
         name == "use-transformer-engine-op-fuser" || name == "moe-pad-expert-input-to-capacity" ||
         name == "moe-expert-capacity-factor" || name == "moe-token-dispatcher-type" ||
         name == "moe-flex-dispatcher-backend" || name == "grad-reduce-in-bf16" ||
         name == "cross-entropy-loss-fusion" || name == "cross-entropy-fusion-impl" ||
         name == "recompute-modules" || name == "cuda-graph-impl" || name == "cuda-graph-scope" ||
         name == "profile";
}

MegatronArguments take_megatron_arguments(std::vector<std::string>& args) {
  const auto known_at = [&](std::size_t i) -> const KnownArgument* {
    const KnownArgument* known =
        args[i].starts_with("--") ? find_argument(std::string_view(args[i]).substr(2)) : nullptr;
    const bool valued = i + 1 < args.size() && !args[i + 1].starts_with("--");
    return known && known->arity == Arity::BareSwitch && valued ? nullptr : known;
  };
  bool megatron_line = false;
  for (std::size_t i = 0; i < args.size() && !megatron_line; ++i)
    megatron_line = known_at(i) && !shared_with_simtrain(std::string_view(args[i]).substr(2));
  MegatronArguments out;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const KnownArgument* known = megatron_line ? known_at(i) : nullptr;
    if (!known) {
      rest.push_back(arg);
      continue;
    }
    const std::string name = arg.substr(2);
    if (known->arity == Arity::Switch || known->arity == Arity::BareSwitch) {
      out.given.emplace_back(name, "");
      continue;
    }
    if (i + 1 >= args.size() || args[i + 1].starts_with("--"))
      throw Error("--" + name + ": expects a value (Megatron-LM's argument)");
    std::string value = args[++i];
    while (known->arity == Arity::List && i + 1 < args.size() && !args[i + 1].starts_with("--"))
      value += " " + args[++i];
    out.given.emplace_back(name, value);
  }
  args = std::move(rest);
  return out;
}

MegatronPlan apply_megatron_arguments(const MegatronArguments& arguments, ParallelConfig base,
                                      const GivenOption& given) {
  const Reader in(arguments, given);
  MegatronPlan plan;
  ParallelConfig& c = base;
  const auto sized = [&](const char* megatron, const char* simtrain, int& field) {
    if (auto v = in.integer(megatron)) {
      in.agree(megatron, simtrain, std::to_string(*v));
      field = *v;
    }
  };
  sized("tensor-model-parallel-size", "tp", c.tp);
  sized("pipeline-model-parallel-size", "pp", c.pp);
  sized("context-parallel-size", "cp", c.cp);
  sized("expert-model-parallel-size", "ep", c.ep);
  sized("expert-tensor-parallel-size", "etp", c.etp);
  sized("micro-batch-size", "micro-batch", c.micro_batch);
  sized("global-batch-size", "global-batch", c.global_batch);
  sized("seq-length", "seq-len", c.seq_len);
  sized("virtual-pipeline-model-parallel-size", "vpp", c.vpp);
  for (const auto& [megatron, simtrain] :
       {std::pair{"sequence-parallel", "sp"}, {"use-distributed-optimizer", "distributed-optimizer"}})
    if (in.has(megatron)) in.agree(megatron, simtrain, "");
  // Megatron turns sequence parallelism off without tensor parallelism (with a warning), as its example
  // scripts rely on ("Always enable sequence parallelism" at TP 1).
  if (in.has("sequence-parallel")) c.sp = c.tp > 1;
  if (in.has("use-distributed-optimizer")) c.distributed_optimizer = true;

  // Megatron's gradient reduction waits for the end of backward unless told to overlap (or, before 2023,
  // unless --DDP-impl torch ran PyTorch's DDP).
  const auto ddp_impl = in.choice("DDP-impl", {"local", "torch"});
  const bool overlap = in.has("overlap-grad-reduce") || ddp_impl == "torch";
  if (overlap && given("no-overlap-grad-reduce"))
    throw Error("--overlap-grad-reduce and --no-overlap-grad-reduce disagree: give one of them");
  c.overlap_grad_reduce = overlap;
  // Off unless given, as in Megatron, which also asserts its prerequisites.
  const bool param_gather = in.has("overlap-param-gather");
  if (param_gather && given("no-overlap-param-gather"))
    throw Error("--overlap-param-gather and --no-overlap-param-gather disagree: give one of them");
  if (param_gather && !(c.distributed_optimizer && overlap))
    throw Error("--overlap-param-gather: needs --use-distributed-optimizer and --overlap-grad-reduce");
  c.overlap_param_gather = param_gather;
  if (in.has("no-overlap-p2p-communication")) c.overlap_p2p_communication = false;
  if (in.has("tp-comm-overlap")) c.tp_comm_overlap = true;
  if (in.has("overlap-moe-expert-parallel-comm")) c.overlap_moe_expert_parallel_comm = true;
  if (in.has("use-transformer-engine-op-fuser")) c.te_op_fuser = true;
  if (in.has("grad-reduce-in-bf16")) c.grad_reduce_in_bf16 = true;
  // Megatron's loss fusion and its implementation (native unless --cross-entropy-fusion-impl te).
  const auto fusion_impl = in.choice("cross-entropy-fusion-impl", {"native", "te"});
  if (fusion_impl && !in.has("cross-entropy-loss-fusion"))
    throw Error("--cross-entropy-fusion-impl: has no effect without --cross-entropy-loss-fusion");
  if (in.has("cross-entropy-loss-fusion"))
    c.cross_entropy_fusion = *parse_cross_entropy_fusion_impl(fusion_impl.value_or("native"));
  if (const auto dispatcher = in.choice("moe-token-dispatcher-type", {"alltoall", "allgather", "flex"}))
    parse_token_dispatcher(*dispatcher, c.moe_dispatcher);
  if (const auto backend = in.choice("moe-flex-dispatcher-backend", {"deepep", "hybridep"}))
    parse_flex_backend(*backend, c.moe_flex_backend);
  // Token dropping: padded to capacity, every expert gets capacity x its even share of token slots.
  if (in.has("moe-pad-expert-input-to-capacity")) {
    const std::optional<double> capacity = in.real("moe-expert-capacity-factor");
    if (!capacity) throw Error("--moe-pad-expert-input-to-capacity: needs --moe-expert-capacity-factor");
    if (!(*capacity > 0 && *capacity <= 64))
      throw Error("--moe-expert-capacity-factor: must be in (0, 64], got " + std::to_string(*capacity));
    c.moe_pad_to_capacity = true;
    c.capacity_factor = *capacity;
  }

  if (in.has("cuda-graph-impl") || in.has("cuda-graph-modules") || in.has("cuda-graph-scope")) {
    const std::string* impl = in.value("cuda-graph-impl");
    const std::string* modules = in.value("cuda-graph-modules");
    if (!modules) modules = in.value("cuda-graph-scope");
    std::string why;
    const auto graphs = parse_cuda_graphs(impl ? *impl : "none", modules ? *modules : "", &why);
    if (!graphs) throw Error("--cuda-graph-impl: " + why);
    c.cuda_graphs = *graphs;
  }

  const bool fp16 = in.has("fp16"), bf16 = in.has("bf16");
  if (fp16 && bf16) throw Error("--fp16 and --bf16: give one of them");
  if (fp16 || bf16) {
    const std::string precision = fp16 ? "amp" : "amp-bf16";
    in.agree(fp16 ? "fp16" : "bf16", "precision", precision);
    c.precision = fp16 ? Precision::AMP_FP16 : Precision::AMP_BF16;
  }
  if (in.choice("fp8-format", {"e4m3", "hybrid"})) {
    if (fp16) throw Error("--fp8-format: simtrain models FP8 over bf16 (give --bf16)");
    c.fp8 = true;
    c.precision = Precision::AMP_BF16;
  }
  // Megatron's --fp8-recipe (Transformer Engine's scaling recipes); "rowwise" is simtrain's alias of
  // blockwise. Megatron reads it only with --fp8-format; simtrain also with --precision fp8.
  if (const auto recipe =
          in.choice("fp8-recipe", {"delayed", "tensorwise", "blockwise", "rowwise", "mxfp8"})) {
    if (!c.fp8 || c.quant_recipe == QuantRecipe::NVFP4)
      throw Error("--fp8-recipe " + *recipe +
                  ": applies to FP8 training (give --fp8-format or --precision fp8)");
    c.quant_recipe = *parse_quant_recipe(*recipe);
  }
  // Megatron's NVFP4 training: --fp4-format e2m1 with --fp4-recipe nvfp4 (its default).
  const auto fp4_format = in.choice("fp4-format", {"e2m1"});
  const auto fp4_recipe = in.choice("fp4-recipe", {"nvfp4"});
  if (fp4_format || fp4_recipe) {
    if (!fp4_format) throw Error("--fp4-recipe: applies with --fp4-format e2m1");
    if (fp16) throw Error("--fp4-format: simtrain models NVFP4 over bf16 (give --bf16)");
    if (in.has("fp8-format")) throw Error("--fp4-format and --fp8-format: give one of them");
    c.fp8 = true;
    c.quant_recipe = QuantRecipe::NVFP4;
    c.precision = Precision::AMP_BF16;
  }
  // Megatron reads the two counts (1 each by default) only with --first-last-layers-bf16; validate()
  // checks them against the model's layers.
  if (in.has("first-last-layers-bf16")) {
    c.bf16_layers_at_start = in.integer("num-layers-at-start-in-bf16", 0).value_or(1);
    c.bf16_layers_at_end = in.integer("num-layers-at-end-in-bf16", 0).value_or(1);
  }
  // Transformer Engine (Megatron's default) fuses attention; the local implementation does only with
  // --use-flash-attn.
  if (in.choice("transformer-impl", {"transformer_engine", "local"}) == "local")
    c.flash_attention = in.has("use-flash-attn");

  if (auto iters = in.integer("train-iters")) plan.train_iters = *iters;
  // --train-samples: Megatron's steps are the samples over the global batch (without a batch-size ramp).
  if (auto samples = in.real("train-samples")) {
    if (plan.train_iters)
      throw Error("--train-samples and --train-iters: give one of them, as Megatron asks");
    if (!(*samples >= 1)) throw Error("--train-samples: must be at least 1");
    if (c.global_batch < 1) throw Error("--train-samples: give --global-batch-size with it");
    plan.train_iters = std::max(1.0, std::floor(*samples / c.global_batch));
  }
  // --attention-backend (Megatron-Core's AttnBackend): fused is Transformer Engine's cuDNN attention
  // (simtrain's flash), flash the FlashAttention-2 package it calls (flash2), unfused and local the
  // separate GEMMs and softmax; auto leaves Transformer Engine's choice, simtrain's default.
  if (const auto backend = in.choice("attention-backend", {"auto", "fused", "flash", "unfused", "local"});
      backend && *backend != "auto") {
    const std::string attention = *backend == "fused" ? "flash" : *backend == "flash" ? "flash2" : "unfused";
    in.agree("attention-backend", "attention", attention);
    c.flash_attention = attention != "unfused";
    c.attention_kernel =
        attention == "flash2" ? trace::AttentionKernel::FlashAttention2 : trace::AttentionKernel::Fused;
  }
  // --fp8-param-gather: the compute weights stay in FP8 and the distributed optimizer (or FSDP) gathers
  // them in FP8, one byte a parameter.
  if (in.has("fp8-param-gather")) c.fp8_param_gather = true;
  if (c.seq_len == 0 && in.has("num-layers"))
    throw Error("--seq-length: a model given by its shapes needs its sequence length");
  c.decoder = model_shape(in, c.tp, c.seq_len);
  int layers = 0;
  if (c.decoder) {
    c.model = c.decoder->name;
    layers = c.decoder->config.layers;
  } else {
    const Model model = build_model(c.model);
    if (!model.transformer)
      throw Error("--model " + c.model + ": Megatron-LM's arguments need a transformer");
    layers = model.transformer->layers;
  }
  if (auto per_chunk = in.integer("num-layers-per-virtual-pipeline-stage")) {
    if (in.has("virtual-pipeline-model-parallel-size"))
      throw Error(
          "--num-layers-per-virtual-pipeline-stage and --virtual-pipeline-model-parallel-size: give one");
    if (layers % (c.pp * *per_chunk) != 0)
      throw Error("--num-layers-per-virtual-pipeline-stage " + std::to_string(*per_chunk) + ": " +
                  std::to_string(layers) + " layers do not split into " + std::to_string(c.pp) +
                  " stages of chunks of " + std::to_string(*per_chunk));
    const int vpp = layers / (c.pp * *per_chunk);
    in.agree("num-layers-per-virtual-pipeline-stage", "vpp", std::to_string(vpp));
    c.vpp = vpp;
  }
  if (auto first = in.integer("decoder-first-pipeline-num-layers", 0)) {
    in.agree("decoder-first-pipeline-num-layers", "pp-first-layers", std::to_string(*first));
    c.pp_first_layers = *first;
  }
  if (auto last = in.integer("decoder-last-pipeline-num-layers", 0)) {
    in.agree("decoder-last-pipeline-num-layers", "pp-last-layers", std::to_string(*last));
    c.pp_last_layers = *last;
  }
  if (in.has("account-for-embedding-in-pipeline-split")) c.pp_embedding_in_split = true;
  if (in.has("account-for-loss-in-pipeline-split")) c.pp_loss_in_split = true;
  if (const std::string* layout = in.value("pipeline-model-parallel-layout")) {
    // The layout fixes the virtual stages too: Megatron derives VPP from its stage count.
    const std::vector<int> stages = decoder_layers_per_stage(*layout);
    const int count = static_cast<int>(stages.size());
    if (count % c.pp != 0)
      throw Error("--pipeline-model-parallel-layout " + *layout + ": " + std::to_string(count) +
                  " stages are not a multiple of --pipeline-model-parallel-size " + std::to_string(c.pp));
    if (in.has("virtual-pipeline-model-parallel-size") && c.vpp != count / c.pp)
      throw Error("--pipeline-model-parallel-layout " + *layout + ": " + std::to_string(count) +
                  " stages on " + std::to_string(c.pp) + " pipeline ranks are " +
                  std::to_string(count / c.pp) +
                  " virtual stages, --virtual-pipeline-model-parallel-size says " + std::to_string(c.vpp));
    in.agree("pipeline-model-parallel-layout", "vpp", std::to_string(count / c.pp));
    c.vpp = count / c.pp;
    c.pp_layers = stages;
  }
  if (c.vpp > 1 && c.schedule == PipelineSchedule::OneFOneB) c.schedule = PipelineSchedule::Interleaved;
  const int chunk_layers = std::max(1, layers / std::max(1, c.pp * c.vpp));
  RecomputedLayers recomputed_layers;
  const Recompute recompute = recompute_policy(in, chunk_layers, recomputed_layers);
  if (recompute != Recompute::None)
    in.agree("recompute-granularity", "recompute", std::string(to_string(recompute)));
  if (in.has("recompute-granularity") || in.has("recompute-method")) {
    c.recompute = recompute;
    c.recompute_layers = recomputed_layers;
  }
  if (const std::string* modules = in.value("recompute-modules")) {
    if (c.recompute != Recompute::Selective)
      throw Error(
          "--recompute-modules: applies to selective recomputation (--recompute-granularity selective, "
          "or simtrain's --recompute selective)");
    std::string why;
    const auto parsed = parse_recompute_modules(*modules, &why);
    if (!parsed) throw Error("--recompute-modules: " + why);
    c.recompute_modules = *parsed;
  }

  for (const auto& [name, value] : arguments.given)
    if (const KnownArgument* a = find_argument(name); a && a->effect == Effect::None)
      plan.ignored.push_back("--" + name);
  plan.config = std::move(c);
  return plan;
}

}  // namespace simtrain::workload
