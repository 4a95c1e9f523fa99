// TempFile: unique names from a process-wide counter plus the pid, so parallel ctest runs never collide.
#include "temp_file.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

namespace maeri::test {

TempFile::TempFile(const std::string& contents, const std::string& suffix) {
  static std::atomic<int> counter{0};
  path_ = (std::filesystem::temp_directory_path() /
           ("maeri_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + suffix))
              .string();
  std::ofstream(path_) << contents;
}

TempFile::~TempFile() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

}  // namespace maeri::test
