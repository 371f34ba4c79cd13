// Reading a whole input file and writing an output file atomically, with errors that name the file. Every
// reader and writer of the project (profiles, traces, cluster specs, models, logs, results) goes through
// here.
#pragma once

#include <string>

namespace simtrain {

// The file's bytes. Throws Error(path, "cannot read: ...") when it is missing, unreadable or a directory.
std::string read_file(const std::string& path);

// Writes `content` to a temporary file beside `path`, flushes it to disk, then renames it over `path`, so
// that readers see the old file or the whole new one, never a part, and a failed write leaves no temporary
// file. Throws Error(path, "cannot write: ..." or "cannot replace: ...").
void write_file_atomically(const std::string& path, const std::string& content);

// The temporary name write_file_atomically uses beside `path` (unique per process).
std::string temporary_path_beside(const std::string& path);

}  // namespace simtrain
