// Layer counts per pipeline rank and virtual stage (pipeline_split.h).
#include "simulator/workload/pipeline_split.h"

#include <algorithm>
#include <string>

#include "common/error.h"

namespace simtrain::workload {
namespace {

std::string str(int value) { return std::to_string(value); }

void require_feasible(bool ok, const std::string& message) {
  if (!ok) throw Error(message, ErrorKind::Infeasible);
}

}  // namespace

int PipelineSplit::stage_layers(int stage) const {
  int total = 0;
  for (int chunk = 0; chunk < vpp; ++chunk) total += layers(stage, chunk);
  return total;
}

int PipelineSplit::max_chunk_layers() const {
  int most = 0;
  for (std::size_t v = 0; v + 1 < first_layer.size(); ++v)
    most = std::max(most, first_layer[v + 1] - first_layer[v]);
  return most;
}

bool is_uneven_split(const ParallelConfig& c) {
  return c.pp_first_layers >= 0 || c.pp_last_layers >= 0 || c.pp_embedding_in_split || c.pp_loss_in_split ||
         !c.pp_layers.empty();
}

namespace {

std::string layer_list(const std::vector<int>& counts) {
  std::string text;
  for (int n : counts) text += (text.empty() ? "" : ",") + str(n);
  return text;
}

}  // namespace

PipelineSplit pipeline_split(const ParallelConfig& c, int layers) {
  const int pp = std::max(1, c.pp), vpp = std::max(1, c.vpp);
  const bool first_given = c.pp_first_layers >= 0, last_given = c.pp_last_layers >= 0;
  const std::string first_option = "--pp-first-layers " + str(c.pp_first_layers);
  const std::string last_option = "--pp-last-layers " + str(c.pp_last_layers);
  const std::string vpp_option = "--vpp " + str(vpp);
  require_feasible(!is_uneven_split(c) || pp > 1,
                   std::string(first_given               ? first_option
                               : last_given              ? last_option
                               : c.pp_embedding_in_split ? "--pp-embedding-in-split"
                                                         : "--pp-loss-in-split") +
                       ": an uneven pipeline split needs --pp > 1");
  require_feasible(!((first_given || last_given) && (c.pp_embedding_in_split || c.pp_loss_in_split)),
                   std::string(first_given ? first_option : last_option) +
                       ": Megatron-LM does not combine first/last stage layer counts with "
                       "--pp-embedding-in-split or --pp-loss-in-split");

  const std::string layers_option = "--pp-layers " + layer_list(c.pp_layers);
  require_feasible(
      c.pp_layers.empty() || (!first_given && !last_given && !c.pp_embedding_in_split && !c.pp_loss_in_split),
      layers_option + ": give either the layers of every stage or first/last/embedding/loss rules");
  std::vector<int> per_rank(static_cast<std::size_t>(pp));
  if (!c.pp_layers.empty() && vpp > 1 && static_cast<int>(c.pp_layers.size()) == pp * vpp) {
    // One count per virtual stage, in the order the layers run (chunk 0 of every rank, then chunk 1, ...),
    // as Megatron-Core's --pipeline-model-parallel-layout lists them: a rank's chunks may differ.
    PipelineSplit split;
    split.pp = pp;
    split.vpp = vpp;
    split.first_layer.assign(1, 0);
    for (const int n : c.pp_layers) split.first_layer.push_back(split.first_layer.back() + n);
    require_feasible(split.first_layer.back() == layers, layers_option + ": " +
                                                             str(split.first_layer.back()) +
                                                             " layers in all, the model has " + str(layers));
    return split;
  }
  if (!c.pp_layers.empty()) {
    require_feasible(static_cast<int>(c.pp_layers.size()) == pp,
                     layers_option + ": " + str(static_cast<int>(c.pp_layers.size())) + " counts for --pp " +
                         str(pp) +
                         (vpp > 1 ? " --vpp " + str(vpp) + " (give " + str(pp) + ", one per rank, or " +
                                        str(pp * vpp) + ", one per virtual stage)"
                                  : ""));
    int total = 0;
    for (int s = 0; s < pp; ++s) {
      const int n = c.pp_layers[static_cast<std::size_t>(s)];
      require_feasible(n >= 0 && n % vpp == 0, layers_option + ": pipeline stage " + str(s) + "'s " + str(n) +
                                                   " layers do not split into " + str(vpp) +
                                                   " virtual stages");
      total += n;
      per_rank[static_cast<std::size_t>(s)] = n;
    }
    require_feasible(total == layers,
                     layers_option + ": " + str(total) + " layers in all, the model has " + str(layers));
  } else if (first_given || last_given) {
    int rest = layers, middle = pp;
    if (first_given) rest -= c.pp_first_layers, --middle;
    if (last_given) rest -= c.pp_last_layers, --middle;
    const std::string given = first_given ? first_option : last_option;
    require_feasible(rest >= 0, given + ": more layers than the model's " + str(layers));
    if (middle == 0) {
      require_feasible(rest == 0, given + ": the first and last stages must hold all " + str(layers) +
                                      " layers with --pp 2");
    } else {
      require_feasible(rest % middle == 0, given + ": the other " + str(rest) +
                                               " layers do not split evenly over " + str(middle) +
                                               " pipeline stages");
    }
    for (int s = 0; s < pp; ++s) per_rank[static_cast<std::size_t>(s)] = middle > 0 ? rest / middle : 0;
    if (first_given) per_rank.front() = c.pp_first_layers;
    if (last_given) per_rank.back() = c.pp_last_layers;
    for (int s = 0; s < pp; ++s)
      require_feasible(per_rank[static_cast<std::size_t>(s)] % vpp == 0,
                       (s == 0 && first_given       ? first_option
                        : s == pp - 1 && last_given ? last_option
                                                    : vpp_option) +
                           ": pipeline stage " + str(s) + "'s " + str(per_rank[static_cast<std::size_t>(s)]) +
                           " layers do not split into " + str(vpp) + " virtual stages");
  } else {
    const int counted = layers + (c.pp_embedding_in_split ? 1 : 0) + (c.pp_loss_in_split ? 1 : 0);
    const std::string what =
        c.pp_embedding_in_split || c.pp_loss_in_split
            ? str(layers) + " layers with the embedding/loss counted (" + str(counted) + ")"
            : str(layers) + " layers";
    require_feasible(counted % (pp * vpp) == 0,
                     "--pp " + str(pp) + " --vpp " + str(vpp) + ": " + what +
                         " are not divisible by pp x vpp = " + str(pp * vpp) +
                         " (an uneven split: --pp-first-layers, --pp-last-layers or --pp-layers)");
    std::fill(per_rank.begin(), per_rank.end(), counted / pp);
  }

  PipelineSplit split;
  split.pp = pp;
  split.vpp = vpp;
  split.first_layer.assign(1, 0);
  for (int chunk = 0; chunk < vpp; ++chunk) {
    for (int s = 0; s < pp; ++s) {
      int n = per_rank[static_cast<std::size_t>(s)] / vpp;
      if (c.pp_embedding_in_split && chunk == 0 && s == 0) --n;
      if (c.pp_loss_in_split && chunk == vpp - 1 && s == pp - 1) --n;
      require_feasible(
          n >= 0, std::string(c.pp_embedding_in_split ? "--pp-embedding-in-split" : "--pp-loss-in-split") +
                      ": a virtual stage of " + str(per_rank[static_cast<std::size_t>(s)] / vpp) +
                      " layers cannot also hold the embedding and the loss");
      split.first_layer.push_back(split.first_layer.back() + n);
    }
  }
  return split;
}

bool recomputes_layer(const ParallelConfig& config, const PipelineSplit& split, int stage, int chunk,
                      int layer) {
  int in_stage = layer - split.first(stage, chunk);
  for (int c = 0; c < chunk; ++c) in_stage += split.layers(stage, c);
  return config.recompute_layers.includes(layer - split.first(stage, chunk), in_stage);
}

}  // namespace simtrain::workload
