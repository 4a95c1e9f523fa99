// TempFile: unique names from a process-wide counter plus the pid, so parallel ctest runs never collide.
#include "temp_file.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

namespace maeri::test {

namespace {

std::string unique_temp_path(const std::string& suffix) {
  static std::atomic<int> counter{0};
  return (std::filesystem::temp_directory_path() /
          ("maeri_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + suffix))
      .string();
}

}  // namespace

TempFile::TempFile(const std::string& contents, const std::string& suffix) : path_(unique_temp_path(suffix)) {
  std::ofstream(path_, std::ios::binary) << contents;
}

TempFile::~TempFile() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

TempDir::TempDir() : path_(unique_temp_path(".d")) { std::filesystem::create_directory(path_); }

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace maeri::test
