// Implements nccl_tests_import.h: logs into a profile's collective table and refitted NCCL efficiencies.
#include "calibration/nccl_tests_import.h"

#include "calibration/nccl_tests_log.h"
#include "common/error.h"

namespace simtrain::calibration {

NcclTestsImport import_nccl_tests(CalibrationProfile base, const std::vector<std::string>& log_paths,
                                  const CollectiveLinks& links, const NcclTestsLogHints& hints) {
  if (log_paths.empty()) throw Error("profile import nccl-tests: name at least one log file");
  NcclTestsImport out;
  std::string sources;
  for (const std::string& path : log_paths) {
    std::vector<CollectiveMeasurement> rows = to_collective_measurements(read_nccl_tests_log(path, hints));
    out.measurements_added += rows.size();
    base.collectives.insert(base.collectives.end(), rows.begin(), rows.end());
    sources += (sources.empty() ? "" : ", ") + path;
  }
  out.fits = fit_collectives(base.collectives);
  base.efficiencies = efficiencies_from_fits(out.fits, links, base.efficiencies);
  std::string& source = base.environment.source;
  source +=
      (source.empty() ? "" : "; ") + std::string("collectives imported from nccl-tests logs: ") + sources;
  out.profile = std::move(base);
  return out;
}

}  // namespace simtrain::calibration
