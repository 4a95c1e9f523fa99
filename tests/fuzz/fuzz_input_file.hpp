// Fuzz-harness helper: the spec loaders and the tensor reader take a path, so each input is written to one private
// temporary file (created once per process, rewritten for every input) and the reader is given its path.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

namespace maeri::fuzz {

class FuzzInputFile {
 public:
  explicit FuzzInputFile(const std::string& suffix) {
    const char* directory = std::getenv("TMPDIR");
    std::string pattern = std::string(directory && *directory ? directory : "/tmp") + "/maeri-fuzz-XXXXXX" + suffix;
    const int descriptor = mkstemps(pattern.data(), int(suffix.size()));
    if (descriptor < 0) throw std::runtime_error("cannot create a temporary file for fuzz inputs");
    close(descriptor);
    path_ = pattern;
  }
  ~FuzzInputFile() { std::remove(path_.c_str()); }
  FuzzInputFile(const FuzzInputFile&) = delete;
  FuzzInputFile& operator=(const FuzzInputFile&) = delete;

  // Replaces the file's contents with the input and returns its path.
  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    if (!out) throw std::runtime_error("cannot write the fuzz input file " + path_);
    return path_;
  }

 private:
  std::string path_;
};

}  // namespace maeri::fuzz
