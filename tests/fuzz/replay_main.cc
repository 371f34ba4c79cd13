// The main() of a fuzz target in the normal build: replays every file of the corpus directories (or files)
// given on the command line through LLVMFuzzerTestOneInput, so that each crasher ever found stays a
// regression test. A harness catches simtrain::Error itself; any other exception escaping it fails here,
// and a crash fails the process.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// The files named, directories expanded, in name order so that runs are reproducible.
std::vector<fs::path> inputs(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& entry : fs::directory_iterator(argv[i]))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<fs::path> files = inputs(argc, argv);
  if (files.empty()) {
    std::cerr << argv[0] << ": no corpus files given\n";
    return 1;
  }
  int failures = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::cout << file.filename().string() << std::endl;  // before the run, so a crash shows its input
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& error) {
      std::cout << "FAIL " << file.string() << ": exception other than simtrain::Error: " << error.what()
                << "\n";
      ++failures;
    }
  }
  std::cout << files.size() << " inputs replayed, " << failures << " failed\n";
  return failures == 0 ? 0 : 1;
}
