// The NCCL tuner plugins whose choices simtrain models. A cluster spec names the one its system loads
// (nics.nccl_tuner_plugin), a run may replace it (--nccl-tuner-plugin), and the cost model takes the
// plugin's choices (simulator/cost/ofi_tuner_regions.h): one vocabulary for the three.
#pragma once

#include <utility>

namespace simtrain {

// aws-ofi-nccl's builds for the AWS instance types whose regions simtrain carries (p5/p5e, p5en, p6-b200);
// None: NCCL's own tuner decides.
enum class NcclTunerPlugin { None, AwsOfiNcclP5, AwsOfiNcclP5en, AwsOfiNcclP6B200 };

// The names specs and options give them, in the order error messages list them.
inline constexpr std::pair<const char*, NcclTunerPlugin> kNcclTunerPluginNames[] = {
    {"none", NcclTunerPlugin::None},
    {"aws-ofi-nccl-p5", NcclTunerPlugin::AwsOfiNcclP5},
    {"aws-ofi-nccl-p5en", NcclTunerPlugin::AwsOfiNcclP5en},
    {"aws-ofi-nccl-p6-b200", NcclTunerPlugin::AwsOfiNcclP6B200}};

// Its name in kNcclTunerPluginNames.
inline const char* to_string(NcclTunerPlugin plugin) {
  for (const auto& [name, value] : kNcclTunerPluginNames)
    if (value == plugin) return name;
  return "none";
}

}  // namespace simtrain
