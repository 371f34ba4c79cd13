// Megatron-Core's --pipeline-model-parallel-layout: the layers of every (virtual) pipeline stage written as
// a string, "E" the embedding, "t" a decoder layer, "m" a multi-token-prediction module, "L" the loss, "|"
// between stages, "x*n" and "(...)*n" repeating (one level, as Megatron unrolls them), commas ignored; the
// stages in the order they run, chunk 0 of every rank first. "Et*3|(tt|)*29,m|L" is DeepSeek-V3's 61
// layers on 32 stages (PP 16 VP 2, or PP 8 VP 4): 3 with the embedding, 29 of 2, the MTP module, the loss.
// simtrain keeps the decoder layers of each stage, which is what --pp-layers with pp x vpp counts says
// (pipeline_split.h); the embedding must open the first stage and the loss close the last, where simtrain
// runs them (it runs the MTP modules with the loss, so a stage of MTP alone is an empty stage).
#pragma once

#include <string>
#include <vector>

namespace simtrain::workload {

// The decoder layers of each stage of `layout`, in order. Throws Error naming the option on a character it
// does not know, a repetition that does not parse, an embedding or loss elsewhere than the first and last
// stages' ends, or a layout of more than 1,000,000 layers once unrolled.
std::vector<int> decoder_layers_per_stage(const std::string& layout);

}  // namespace simtrain::workload
