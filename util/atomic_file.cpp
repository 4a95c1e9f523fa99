// Temp-and-rename file writing shared by every command that produces files.
#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/input_error.hpp"

namespace maeri::util {

namespace {

// What a file-system entry is, for "refusing to replace ..." messages.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

std::string folder_of(const std::string& path) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  return folder.empty() ? "." : folder.string();
}

[[noreturn]] void fail(const std::string& path, const std::string& problem) { throw InputError({path, 0, 0}, "", problem); }

std::string os_reason() { return std::strerror(errno); }

// The temporary beside the target; removed on destruction unless it was renamed into place.
class Temporary {
 public:
  explicit Temporary(const std::string& target) {
    // O_EXCL: never write through something (a symbolic link, a leftover) already at the temporary's name.
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      path_ = target + ".tmp." + std::to_string(getpid()) + (attempt ? "." + std::to_string(attempt) : "");
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0 && errno != EEXIST) break;
    }
    if (fd_ < 0) fail(target, "cannot create the output file in '" + folder_of(target) + "': " + os_reason());
  }
  ~Temporary() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

  void write_all(const std::string& target, const std::string& contents) {
    std::size_t done = 0;
    while (done < contents.size()) {
      const ssize_t wrote = ::write(fd_, contents.data() + done, contents.size() - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote < 0) fail(target, "cannot write the output file: " + os_reason());
      done += static_cast<std::size_t>(wrote);
    }
    const int status = ::close(fd_);  // NFS and quotas report some write errors only here
    fd_ = -1;
    if (status != 0) fail(target, "cannot write the output file: " + os_reason());
  }
  void rename_to(const std::string& target) {
    if (::rename(path_.c_str(), target.c_str()) != 0) fail(target, "cannot move the output file into place: " + os_reason());
    path_.clear();
  }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace

void check_output_path(const std::string& path) {
  if (path.empty()) fail("command line", "an output path is empty");
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode))
      fail(path, std::string("refusing to replace ") + kind_of(info.st_mode) +
                     " with an output file (outputs replace only regular files)");
  } else if (errno != ENOENT) {
    fail(path, "cannot write the output file: " + os_reason());  // e.g. ENOTDIR: a parent is a regular file
  }
  const std::string folder = folder_of(path);
  if (::stat(folder.c_str(), &info) != 0)
    fail(path, "cannot write the output file: folder '" + folder + "': " + os_reason());
  if (!S_ISDIR(info.st_mode)) fail(path, "cannot write the output file: '" + folder + "' is not a directory");
}

void check_output_prefix(const std::string& prefix) {
  if (prefix.empty()) fail("command line", "an output prefix is empty");
  struct stat info {};
  // A directory is a fine prefix: P.csv goes beside it.
  if (::lstat(prefix.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode))
    fail(prefix, std::string("is ") + kind_of(info.st_mode) +
                     ": it is the prefix of the output files' names (PREFIX.csv, PREFIX.svg, ...), not a file to write");
}

void create_output_directory(const std::string& path) {
  if (path.empty()) fail("command line", "an output directory is empty");
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) fail(path, "cannot create the output directory: " + error.message());
  // create_directories() reports success when a non-directory is already there under some libstdc++ versions.
  if (!std::filesystem::is_directory(path, error))
    fail(path, "cannot create the output directory: something that is not a directory is in the way");
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  check_output_path(path);
  Temporary temporary(path);
  temporary.write_all(path, contents);
  temporary.rename_to(path);
}

}  // namespace maeri::util
