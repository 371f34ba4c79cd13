// Reading the published tables under validation/reference/ in unit tests, row by row.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace simtrain::testing {

// One row of a reference table, by column name. The tables have no quoted fields, so splitting on commas
// works.
using CsvRow = std::map<std::string, std::string>;

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.push_back("");
  return cells;
}

// Every row of a reference table (a path under validation/reference/), its '#' source lines skipped.
inline std::vector<CsvRow> reference_rows(const std::string& path) {
  std::ifstream in(std::string(SIMTRAIN_REFERENCE_DIR) + "/" + path);
  REQUIRE_MESSAGE(in, path);
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = split_csv_line(line);
    if (header.empty()) {
      header = cells;
      continue;
    }
    CsvRow row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace simtrain::testing
