// Writing an output file so that readers see either the old file or the complete new one, never a part.
#pragma once

#include <string>

namespace simtrain::report {

// Writes `content` to a temporary file beside `path`, then renames it over `path`.
// Throws Error naming the path when it cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace simtrain::report
