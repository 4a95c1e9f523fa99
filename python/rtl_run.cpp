// `maeri verify` as a child process of the Python module (see rtl_run.hpp).
#include "python/rtl_run.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace maeri::python {
namespace {

std::string read_whole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A private folder for the child's report and stderr, removed when the run is read.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "maeri-python-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder for the RTL run");
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

std::string maeri_executable(const std::string& module_file) {
  if (const char* given = std::getenv("MAERI_EXECUTABLE"); given && *given) return given;
  namespace fs = std::filesystem;
  const fs::path module_dir = fs::path(module_file).parent_path();
  const fs::path installed = module_dir / ".." / ".." / ".." / "bin" / "maeri";
  if (fs::exists(installed)) return fs::weakly_canonical(installed).string();
  const fs::path built = MAERI_BUILD_EXECUTABLE;
  if (fs::exists(built)) return built.string();
  throw std::runtime_error("no maeri executable: set MAERI_EXECUTABLE, or install the toolkit (looked at " +
                           installed.string() + " and " + built.string() + ")");
}

RtlRun run_maeri(const std::string& executable, const std::vector<std::string>& arguments) {
  ScratchFolder scratch;
  const std::string report = (scratch.path() / "report.json").string();
  const std::string errors = (scratch.path() / "printed.txt").string();
  std::vector<std::string> words{executable};
  words.insert(words.end(), arguments.begin(), arguments.end());
  words.insert(words.end(), {"--json", report});
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // stdout (the text report) is not the notebook's: it goes where stderr goes, and is returned with it.
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  pid_t child = 0;
  const int spawned = posix_spawn(&child, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot run " + executable + ": " + std::strerror(spawned));
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("lost the child running " + executable);

  RtlRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.printed = read_whole(errors);
  if (std::filesystem::exists(report)) run.json = read_whole(report);
  return run;
}

}  // namespace maeri::python
