// `simtrain profile import nccl-tests`: nccl-tests logs into a calibration profile. The logs' rows join the
// profile's collective table, and the fitted curves set the NCCL efficiencies the simulator's collective
// model uses, for the links the measurements ran over.
#pragma once

#include <string>
#include <vector>

#include "calibration/calibration_profile.h"
#include "calibration/collective_fit.h"
#include "calibration/nccl_tests_log.h"

namespace simtrain::calibration {

struct NcclTestsImport {
  CalibrationProfile profile;       // the base profile with the logs' measurements added
  std::vector<CollectiveFit> fits;  // one per (op, ranks, nodes, algorithm) of the whole table
  std::size_t measurements_added = 0;
};

// Reads every log (throwing Error with file and line on a malformed one), appends its rows to `base`'s
// collective table, refits all tables, and updates the NCCL efficiencies from the fits over `links`
// (a zero bandwidth in `links` leaves the efficiency that depends on it unchanged).
// `hints` fill in what a log lacks (its collective, ranks and nodes without a device list).
NcclTestsImport import_nccl_tests(CalibrationProfile base, const std::vector<std::string>& log_paths,
                                  const CollectiveLinks& links, const NcclTestsLogHints& hints = {});

}  // namespace simtrain::calibration
