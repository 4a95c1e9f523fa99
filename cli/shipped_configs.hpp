// Where the shipped configs (configs/hardware, configs/workloads) are at run time, so that default arguments work
// from any directory: in an installed tree next to the binary (<prefix>/bin/maeri -> <prefix>/share/maeri/configs),
// in a build tree through the same relative path (the build creates <build>/share/maeri/configs, see
// cli/CMakeLists.txt), or wherever MAERI_CONFIG_DIR points. No source path is compiled in.
#pragma once

#include <filesystem>
#include <string>

namespace maeri::cli {

// The shipped configs directory; throws util::InputError naming every place it looked when none exists.
std::filesystem::path shipped_config_dir();

// shipped_config_dir() / relative, e.g. shipped_config("hardware/maeri-64.yaml").
std::string shipped_config(const std::string& relative);

// How help texts name a shipped default: "<configs>/hardware/maeri-64.yaml".
std::string shipped_config_label(const std::string& relative);

}  // namespace maeri::cli
