// Output files (contracts/atomic_file): what an output may replace, the errors when it may not or cannot be written,
// and that no failure leaves a half-written file or a temporary behind. Expected reasons are the OS's own
// strerror() texts for the errno each situation produces (POSIX: lstat/mkdir under a regular file give ENOTDIR,
// a missing folder ENOENT, writing past RLIMIT_FSIZE EFBIG).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "util/atomic_file.hpp"
#include "util/input_error.hpp"
#include "temp_file.hpp"

using namespace maeri::util;
using maeri::test::TempDir;

namespace {

std::string contents_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Names in a folder, to show that a failed write left nothing (no temporary) behind.
int entries_in(const std::string& folder) {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) ++count;
  return count;
}

std::string reason(int error) { return std::strerror(error); }

// Lowers the file-size limit for the current process so that write() fails with EFBIG after `bytes`, the way a
// full disk fails, for root too. SIGXFSZ is ignored meanwhile so the process gets the error instead of dying.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_ = signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lowered);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, previous_);
  }

 private:
  rlimit saved_{};
  void (*previous_)(int) = nullptr;
};

}  // namespace

TEST_CASE("outputs are written whole and replace regular files", "[output]") {
  const TempDir folder;
  const std::string path = folder / "out.yaml";
  maeri::util::write_file_atomically(path, "first\n");
  CHECK(contents_of(path) == "first\n");
  maeri::util::write_file_atomically(path, "second\n");
  CHECK(contents_of(path) == "second\n");
  CHECK(entries_in(folder.path()) == 1);  // no temporary left
}

TEST_CASE("outputs never replace what is not a regular file", "[output]") {
  const TempDir folder;
  SECTION("a directory") {
    const std::string path = folder / "sub";
    std::filesystem::create_directory(path);
    CHECK_THROWS_WITH(maeri::util::write_file_atomically(path, "x"),
                      path + ": refusing to replace a directory with an output file (outputs replace only regular "
                             "files)");
    CHECK(std::filesystem::is_directory(path));
    CHECK(entries_in(folder.path()) == 1);  // the directory, no temporary
  }
  SECTION("a symbolic link, whose target stays as it was") {
    const std::string target = folder / "target";
    const std::string link = folder / "link";
    std::ofstream(target) << "kept";
    std::filesystem::create_symlink(target, link);
    CHECK_THROWS_WITH(maeri::util::write_file_atomically(link, "x"),
                      link + ": refusing to replace a symbolic link with an output file (outputs replace only "
                             "regular files)");
    CHECK(std::filesystem::is_symlink(link));
    CHECK(contents_of(target) == "kept");
    CHECK(entries_in(folder.path()) == 2);  // target and link, no temporary
  }
  SECTION("a dangling symbolic link") {
    const std::string link = folder / "dangling";
    std::filesystem::create_symlink(folder / "nowhere", link);
    CHECK_THROWS_WITH(maeri::util::write_file_atomically(link, "x"), Catch::Contains("refusing to replace a symbolic link"));
    CHECK(!std::filesystem::exists(folder / "nowhere"));
    CHECK(entries_in(folder.path()) == 1);
  }
  SECTION("a FIFO") {
    const std::string path = folder / "pipe";
    REQUIRE(mkfifo(path.c_str(), 0600) == 0);
    CHECK_THROWS_WITH(maeri::util::write_file_atomically(path, "x"),
                      path + ": refusing to replace a FIFO (named pipe) with an output file (outputs replace only "
                             "regular files)");
    CHECK(std::filesystem::is_fifo(path));
    CHECK(entries_in(folder.path()) == 1);
  }
  SECTION("a character device (checked without writing: a broken check would replace /dev/null as root)") {
    CHECK_THROWS_WITH(maeri::util::check_output_path("/dev/null"),
                      "/dev/null: refusing to replace a character device with an output file (outputs replace only "
                      "regular files)");
  }
}

TEST_CASE("outputs in places that cannot hold them fail naming the path and the OS's reason", "[output]") {
  const TempDir folder;
  const std::string file = folder / "regular";
  std::ofstream(file) << "a regular file";
  SECTION("under a regular file") {
    CHECK_THROWS_WITH(maeri::util::write_file_atomically(file + "/out.yaml", "x"),
                      file + "/out.yaml: cannot write the output file: " + reason(ENOTDIR));
  }
  SECTION("in a folder that does not exist") {
    const std::string path = folder / "missing/out.yaml";
    CHECK_THROWS_WITH(maeri::util::write_file_atomically(path, "x"),
                      path + ": cannot write the output file: folder '" + folder / "missing" + "': " + reason(ENOENT));
  }
  SECTION("an output directory under a regular file") {
    CHECK_THROWS_WITH(maeri::util::create_output_directory(file + "/images"),
                      file + "/images: cannot create the output directory: " + reason(ENOTDIR));
  }
  SECTION("an output directory where a regular file is") {
    CHECK_THROWS_WITH(maeri::util::create_output_directory(file), Catch::StartsWith(file + ": cannot create the output directory: "));
  }
  SECTION("an output directory in /proc, where even root cannot create one") {
    CHECK_THROWS_WITH(maeri::util::create_output_directory("/proc/maeri-test-images"),
                      Catch::StartsWith("/proc/maeri-test-images: cannot create the output directory: "));
  }
  CHECK(contents_of(file) == "a regular file");
  CHECK(entries_in(folder.path()) == 1);  // nothing created beside it
}

TEST_CASE("a write that fails part-way leaves neither a half-written file nor a temporary", "[output]") {
  const TempDir folder;
  const std::string path = folder / "out.txt";
  const std::string big(64 * 1024, 'x');
  SECTION("new file") {
    {
      const FileSizeLimit limit(1024);
      CHECK_THROWS_WITH(maeri::util::write_file_atomically(path, big), path + ": cannot write the output file: " + reason(EFBIG));
    }
    CHECK(entries_in(folder.path()) == 0);
  }
  SECTION("replacing a file keeps the old contents") {
    maeri::util::write_file_atomically(path, "old\n");
    {
      const FileSizeLimit limit(1024);
      CHECK_THROWS_AS(maeri::util::write_file_atomically(path, big), maeri::util::InputError);
    }
    CHECK(contents_of(path) == "old\n");
    CHECK(entries_in(folder.path()) == 1);
  }
}
