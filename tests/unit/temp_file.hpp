// A file with given contents in the system temp directory, removed when the object goes away.
#pragma once

#include <string>

namespace maeri::test {

class TempFile {
 public:
  TempFile(const std::string& contents, const std::string& suffix = ".yaml");
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace maeri::test
