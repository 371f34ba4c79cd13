// Which decoder layers of a Megatron-LM model are MoE layers, from its --moe-layer-freq.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simtrain::workload {

// Megatron-LM's --moe-layer-freq (arguments.py moe_freq_type, gpt_layer_specs.py): an integer N makes layers
// 0, N, 2N, ... MoE layers and the rest dense; a Python list expression gives one entry per layer, 1 for MoE
// ("([0]*3+[1]*58)": DeepSeek-V3's three dense layers first; "([1]*3+[0]*1)*3"; "[1,0,1,0]"). This reads the
// expressions Megatron's help and examples write: lists of 0 and 1, repetition by a whole number on either
// side, concatenation and parentheses. Returns one flag per layer. Throws Error saying why (for the caller to
// put after the option's or key's name) when the text is not such an expression, its length is not `layers`,
// or it names no MoE layer; no list is built longer than `layers`, nor nested deeper than 64. Megatron's
// --moe-layer-freq and a model file's [moe] layer_freq read it.
std::vector<std::uint8_t> moe_layer_pattern(const std::string& text, int layers);

}  // namespace simtrain::workload
