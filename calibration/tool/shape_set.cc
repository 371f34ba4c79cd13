// Combining and de-duplicating shape lists, and the GEMMs of a linear layer.
#include "calibration/tool/shape_set.h"

#include <algorithm>

namespace simtrain::calibration::tool {
namespace {

template <typename T>
void append_all(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

template <typename T>
void sort_unique(std::vector<T>& list) {
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
}

}  // namespace

bool ShapeSet::empty() const {
  return gemms.empty() && convs.empty() && batch_norms.empty() && pools.empty() && activations.empty() &&
         softmaxes.empty() && attentions.empty();
}

void ShapeSet::append(const ShapeSet& other) {
  append_all(gemms, other.gemms);
  append_all(convs, other.convs);
  append_all(batch_norms, other.batch_norms);
  append_all(pools, other.pools);
  append_all(activations, other.activations);
  append_all(softmaxes, other.softmaxes);
  append_all(attentions, other.attentions);
}

void ShapeSet::deduplicate() {
  sort_unique(gemms);
  sort_unique(convs);
  sort_unique(batch_norms);
  sort_unique(pools);
  sort_unique(activations);
  sort_unique(softmaxes);
  sort_unique(attentions);
}

void add_linear(ShapeSet& set, std::int64_t tokens, std::int64_t in, std::int64_t out) {
  set.gemms.push_back({tokens, out, in, false, true});
  set.gemms.push_back({tokens, in, out, false, false});
  set.gemms.push_back({out, in, tokens, true, false});
}

void add_pointwise_conv_gemms(ShapeSet& set) {
  for (const ConvShape& c : set.convs)
    if (c.r == 1 && c.s == 1 && c.stride == 1 && c.pad == 0) add_linear(set, c.n * c.h * c.w, c.c, c.k);
}

}  // namespace simtrain::calibration::tool
