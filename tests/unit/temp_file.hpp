// A file with given contents (TempFile) or an empty folder (TempDir) in the system temp directory, removed with
// everything in it when the object goes away.
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

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace maeri::test
