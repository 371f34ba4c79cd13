// PyTorch DistributedDataParallel's gradient buckets, for scaling a one-GPU trace out to many: DDP packs the
// gradients, in the order backward produces them, into buckets of bucket_cap_mb (25 MiB; the first bucket
// only 1 MiB so that communication starts early; a bucket closes once it holds at least its limit), and
// all-reduces each bucket on its NCCL stream as soon as its last gradient is ready, overlapping the rest of
// backward. (After the first iteration DDP rebuilds its buckets in the order gradients became ready, which
// is the order used here.)
#pragma once

#include <cstdint>
#include <vector>

#include "common/dtype.h"

namespace simtrain::trace {

// A parameter's gradient: its size, and the index (in launch order) of the GPU activity after which it is
// complete.
struct GradientReady {
  double bytes = 0;
  DType dtype = DType::FP32;
  std::size_t ready_after = 0;
};

struct DdpBucket {
  double bytes = 0;
  DType dtype = DType::FP32;
  std::size_t ready_after = 0;  // the latest ready_after of its gradients
  int gradients = 0;
};

inline constexpr double kDdpFirstBucketBytes = 1024.0 * 1024;

// The buckets for `gradients`, given in the order they become ready. A bucket never mixes dtypes (DDP
// groups by dtype); a gradient larger than the cap gets a bucket of its own.
std::vector<DdpBucket> plan_ddp_buckets(const std::vector<GradientReady>& gradients, double bucket_cap_bytes,
                                        double first_bucket_bytes = kDdpFirstBucketBytes);

}  // namespace simtrain::trace
