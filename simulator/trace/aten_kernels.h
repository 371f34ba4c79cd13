// The GPU kernels a PyTorch (ATen) operator launches, derived from the shapes and types an execution trace
// records for it: which operators are kernels at all, and for those the ComputeSpec (kind, shape, FLOPs,
// bytes, dtype) the cost model needs to time them. An execution trace has no durations, so this is all the
// cost model gets. Used by pytorch_et_import.h; kept apart so that the tables of operator names can grow
// without touching the trace walk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/trace/trace.h"

namespace simtrain::trace {

// One tensor argument or result of an operator, as the execution trace's
// [tensor_id, storage_id, offset, numel, element_bytes, device] tuple and its shape describe it.
struct AtenTensor {
  std::int64_t id = 0;
  std::int64_t storage = 0;  // views share their base's storage: the identity data flow is tracked by
  std::vector<std::int64_t> shape;
  int element_bytes = 0;
  std::optional<DType> dtype;  // nullopt for integer and boolean tensors
  bool on_gpu = false;

  double elements() const;
  double bytes() const { return elements() * element_bytes; }
};

// One argument or result: a tensor, a list of tensors (empty for anything else), and its schema name.
struct AtenValue {
  std::string name;  // from the operator's schema ("stride", "is_causal"); empty when unknown
  std::vector<AtenTensor> tensors;
  bool is_tensor_list = false;
  std::vector<std::int64_t> ints;  // an int, bool or int list argument's values ("stride": {2, 2})
  std::string text;                // a string argument's value (record_param_comms' collective name)
};

// An operator as the execution trace records it.
struct AtenOperator {
  std::string name;  // "aten::mm"
  std::vector<AtenValue> inputs;
  std::vector<AtenValue> outputs;

  bool touches_gpu() const;
  // The integer values of the input argument `name` (from the schema), or nullopt.
  const std::vector<std::int64_t>* input_ints(std::string_view name) const;
};

// How the trace walk treats an operator.
enum class AtenRole : std::uint8_t {
  View,       // metadata only (a view, an allocation, a no-op cast): never a kernel itself, whatever its children
  Kernel,     // launches the kernels of its whole subtree itself (aten::mm, aten::cudnn_convolution): costed
              // as one op, its children are not looked at
  Composite,  // anything else: its children launch the kernels; when none does, it is a kernel itself
};

AtenRole aten_role(std::string_view operator_name);

// The kernels `op` runs as part of `pass` (a convolution's backward gives its data- and weight-gradient
// kernels separately); empty when the operator does no GPU work. Throws nothing: shapes it cannot make sense
// of (a GEMM whose operands are not matrices) fall back to a memory-bound kernel over its tensors.
std::vector<ComputeSpec> aten_kernels(const AtenOperator& op, Pass pass);

// The names of the arguments of an operator schema, in order:
// "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" gives {self, other, alpha}.
std::vector<std::string> schema_argument_names(std::string_view schema);

}  // namespace simtrain::trace
