// Implements calibration_shapes.h.
#include "simulator/trace/calibration_shapes.h"

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

namespace simtrain::trace {
namespace {

using Shape = std::vector<std::int64_t>;

bool all_positive(const Shape& shape, std::size_t count) {
  if (shape.size() < count) return false;
  for (std::size_t i = 0; i < count; ++i)
    if (shape[i] <= 0) return false;
  return true;
}

std::string gemm_line(const ComputeSpec& kernel) {
  const Shape& d = kernel.shape;
  const char* layout = kernel.pass == Pass::Forward          ? "nt"
                       : kernel.pass == Pass::BackwardWeight ? "tn"
                                                             : "nn";
  return fmt::format("gemm {} {} {} {}", d[0], d[1], d[2], layout);
}

using Nchw = std::array<std::int64_t, 4>;

// {n, c, h, w} of the convolution inputs and outputs, by element count: several when different tensors hold
// as many elements (ResNet's 64 x 112 x 112 and 256 x 56 x 56), all listed, since the simulator keys a batch
// norm by its element count and averages the shapes measured under one.
std::map<std::int64_t, std::set<Nchw>> convolution_tensors(const Trace& trace) {
  std::map<std::int64_t, std::set<Nchw>> tensors;
  for (const Program& program : trace.programs)
    for (const Op& op : program.ops) {
      const ComputeSpec& k = op.compute;
      if (op.type != OpType::Compute || k.kind != ComputeKind::Conv || !all_positive(k.shape, 8) ||
          k.shape.size() != 9)
        continue;
      const Shape& d = k.shape;
      const std::int64_t out_h = (d[2] + 2 * d[8] - d[5]) / d[7] + 1,
                         out_w = (d[3] + 2 * d[8] - d[6]) / d[7] + 1;
      tensors[d[0] * d[1] * d[2] * d[3]].insert({d[0], d[1], d[2], d[3]});
      if (out_h > 0 && out_w > 0) tensors[d[0] * d[4] * out_h * out_w].insert({d[0], d[4], out_h, out_w});
    }
  return tensors;
}

// The max pooling a forward pool op of `input` is, when its work (outputs x window^2) is a 3x3 window at
// stride 2 with padding 1; empty otherwise (an average pooling, or a window the tool's grid does not take).
std::string pool_line(const ComputeSpec& kernel, const Nchw& input) {
  const auto [n, c, h, w] = input;
  const std::int64_t out_h = (h + 2 - 3) / 2 + 1, out_w = (w + 2 - 3) / 2 + 1;
  if (kernel.flops != static_cast<double>(n * c * out_h * out_w * 9)) return "";
  return fmt::format("pool {} {} {} {} 3 2 1", n, c, h, w);
}

// `text` on one comment line: a file name may hold a line break, which would start a line the tool parses.
std::string one_line(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text;
}

}  // namespace

std::string calibration_shapes_file(const Trace& trace, const std::string& origin) {
  const auto tensors = convolution_tensors(trace);
  std::set<std::string> lines;
  for (const Program& program : trace.programs)
    for (const Op& op : program.ops) {
      if (op.type != OpType::Compute) continue;
      const ComputeSpec& k = op.compute;
      const Shape& d = k.shape;
      switch (k.kind) {
        case ComputeKind::Gemm:
          if ((d.size() == 3 || d.size() == 4) && all_positive(d, d.size())) lines.insert(gemm_line(k));
          break;
        case ComputeKind::Conv:
          if (d.size() == 9 && all_positive(d, 8))
            lines.insert(fmt::format("conv {} {} {} {} {} {} {} {} {}", d[0], d[1], d[2], d[3], d[4], d[5],
                                     d[6], d[7], d[8]));
          break;
        case ComputeKind::Attention:
          if (d.size() == 4 && all_positive(d, 4))
            lines.insert(fmt::format("attention {} {} {} {}", d[0], d[1], d[2], d[3]));
          break;
        case ComputeKind::Softmax:
          if (d.size() == 2 && all_positive(d, 2)) lines.insert(fmt::format("softmax {} {}", d[0], d[1]));
          break;
        case ComputeKind::BatchNorm:
          if (const auto found = tensors.find(d.size() == 1 ? d[0] : 0); found != tensors.end())
            for (const auto& [n, c, h, w] : found->second)
              lines.insert(fmt::format("batch_norm {} {} {} {}", n, c, h, w));
          break;
        case ComputeKind::Pool:
          if (const auto found = tensors.find(d.size() == 1 ? d[0] : 0);
              found != tensors.end() && k.pass == Pass::Forward)
            for (const Nchw& input : found->second)
              if (std::string line = pool_line(k, input); !line.empty()) lines.insert(line);
          break;
        default:
          break;
      }
    }
  std::string text = "# kernel shapes of " + one_line(origin) + " (simtrain trace shapes)\n";
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

}  // namespace simtrain::trace
