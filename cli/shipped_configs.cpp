// Locating the shipped configs relative to the running executable (see shipped_configs.hpp).
#include "cli/shipped_configs.hpp"

#include <cstdlib>
#include <system_error>
#include <vector>

#include "util/input_error.hpp"

namespace maeri::cli {
namespace {

// The installed layout's path from the executable's directory to the configs; the build tree mirrors it.
const std::filesystem::path kConfigsFromBinary = std::filesystem::path("..") / "share" / "maeri" / "configs";

}  // namespace

std::filesystem::path shipped_config_dir() {
  std::vector<std::filesystem::path> tried;
  if (const char* from_environment = std::getenv("MAERI_CONFIG_DIR"); from_environment && *from_environment) {
    const std::filesystem::path dir(from_environment);
    std::error_code error;
    if (std::filesystem::is_directory(dir, error)) return dir;
    // An explicit setting that is wrong is an error, not a reason to quietly use another directory.
    throw util::InputError({"environment", 0, 0}, "MAERI_CONFIG_DIR",
                          "'" + dir.string() + "' is not a directory (it should hold hardware/ and workloads/)");
  }
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path dir = (executable.parent_path() / kConfigsFromBinary).lexically_normal();
    if (std::filesystem::is_directory(dir, error)) return dir;
    tried.push_back(dir);
  }
  std::string places;
  for (const auto& dir : tried) places += " '" + dir.string() + "'";
  throw util::InputError({"installation", 0, 0}, "shipped configs",
                        "not found (looked in" + (places.empty() ? std::string(" no place: /proc/self/exe unreadable")
                                                                 : places) +
                            "); set MAERI_CONFIG_DIR to a directory with hardware/ and workloads/, or give the "
                            "files explicitly");
}

std::string shipped_config(const std::string& relative) { return (shipped_config_dir() / relative).string(); }

std::string shipped_config_label(const std::string& relative) { return "<shipped configs>/" + relative; }

}  // namespace maeri::cli
