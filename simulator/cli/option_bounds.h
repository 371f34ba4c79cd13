// The range of every numeric option of every subcommand, in one table: a value outside it (NaN, infinity, a
// size beyond what one process can simulate, common/input_limits.h) ends as one line naming the option before
// anything is built from it.
#pragma once

#include <boost/program_options/variables_map.hpp>

namespace simtrain::cli {

// Throws Error for the first numeric option of `vm` whose value lies outside its range. Options the table
// does not name are not checked here (their own parsers check them).
void check_option_bounds(const boost::program_options::variables_map& vm);

}  // namespace simtrain::cli
