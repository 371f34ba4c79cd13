// A study's results as one table: a row per scenario, a column per swept option and per Result metric.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "simulator/study/result_store.h"
#include "simulator/study/scenario_file.h"

namespace simtrain::study {

// Columns: index, key, status, error, the study's axis options in file order, then every scalar of the
// Result JSON ("breakdown.compute_s" for nested ones) in the order the first finished run lists them, except
// those named like an axis (the axis keeps the value the study gave, e.g. a platform's file path).
// Scenarios not in the store yet have status "pending". The same records give the same table, however and
// in whatever order the runs were made.
struct StudyTable {
  std::vector<std::string> columns;
  std::vector<std::string> axes;  // the axis columns
  std::vector<std::map<std::string, std::string>> rows;
};

StudyTable collect_table(const Study& study, const std::vector<Scenario>& scenarios,
                         const ResultStore& store);

// The table as CSV text (RFC 4180 quoting).
std::string to_csv(const StudyTable& table);

}  // namespace simtrain::study
