// How a pipeline-parallel plan splits a model's layers over its pipeline ranks and virtual stages, as
// Megatron-Core does: evenly, with other counts on the first and last ranks
// (--decoder-first/last-pipeline-num-layers), or with the embedding and the loss counted as a layer each
// (--account-for-embedding/loss-in-pipeline-split).
#pragma once

#include <vector>

#include "simulator/workload/parallel_config.h"

namespace simtrain::workload {

// The decoder layers of each virtual stage, indexed chunk * pp + rank (the order the layers run in:
// Megatron lays chunk 0 of every rank before chunk 1). A stage may hold no layer (the embedding or the
// loss alone, when counted in the split).
struct PipelineSplit {
  int pp = 1, vpp = 1;
  std::vector<int> first_layer;  // pp * vpp + 1 entries; the last is the layer count
  int layers(int stage, int chunk) const {
    const auto v = static_cast<std::size_t>(chunk * pp + stage);
    return first_layer[v + 1] - first_layer[v];
  }
  int first(int stage, int chunk) const { return first_layer[static_cast<std::size_t>(chunk * pp + stage)]; }
  int stage_layers(int stage) const;  // over all of the rank's chunks
  int max_chunk_layers() const;
};

// Megatron-Core's get_num_layers_to_build and get_transformer_layer_offset, re-derived: with first/last
// counts the middle ranks share the rest evenly; with the embedding (loss) accounted, layers + 1 (+ 1) are
// split evenly and the first (last) virtual stage builds one layer fewer; every rank's count is split
// evenly over its vpp chunks; an explicit split (--pp-layers) gives each rank's layers, split evenly over its
// chunks, or each virtual stage's (pp x vpp counts, chunk-major). Throws Error (infeasible) naming the option
// when a count does not divide or add up.
PipelineSplit pipeline_split(const ParallelConfig& config, int layers);

// Whether decoder layer `layer`, of rank `stage`'s model chunk `chunk` in `split`, recomputes in `config`'s
// backward pass (ParallelConfig::recompute_layers; every layer under selective recomputation).
bool recomputes_layer(const ParallelConfig& config, const PipelineSplit& split, int stage, int chunk,
                      int layer);

// The simtrain options' text of an uneven split, for errors and plan commands ("" when even).
bool is_uneven_split(const ParallelConfig& config);

}  // namespace simtrain::workload
