// Implements atomic_file.h: write to a temporary file, then rename.
#include "simulator/report/atomic_file.h"

#include <cstdio>
#include <fstream>

#include <unistd.h>

#include "common/error.h"

namespace simtrain::report {

void write_file_atomically(const std::string& path, const std::string& content) {
  std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path, 0, "", "cannot write file");
    out << content;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw Error(path, 0, "", "write failed");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw Error(path, 0, "", "cannot replace file");
  }
}

}  // namespace simtrain::report
