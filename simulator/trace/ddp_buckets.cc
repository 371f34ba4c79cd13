// Implements ddp_buckets.h.
#include "simulator/trace/ddp_buckets.h"

#include <algorithm>

namespace simtrain::trace {

std::vector<DdpBucket> plan_ddp_buckets(const std::vector<GradientReady>& gradients, double bucket_cap_bytes,
                                        double first_bucket_bytes) {
  std::vector<DdpBucket> buckets;
  DdpBucket open;
  // As DDP's compute_bucket_assignment_by_size: a bucket takes gradients until it holds at least its limit.
  const auto limit = [&] {
    return buckets.empty() ? std::min(first_bucket_bytes, bucket_cap_bytes) : bucket_cap_bytes;
  };
  for (const GradientReady& g : gradients) {
    if (open.gradients > 0 && g.dtype != open.dtype) {
      buckets.push_back(open);
      open = DdpBucket{};
    }
    open.dtype = g.dtype;
    open.bytes += g.bytes;
    open.ready_after = std::max(open.ready_after, g.ready_after);
    ++open.gradients;
    if (open.bytes >= limit()) {
      buckets.push_back(open);
      open = DdpBucket{};
    }
  }
  if (open.gradients > 0) buckets.push_back(open);
  return buckets;
}

}  // namespace simtrain::trace
