// The fabric cache: a Verilated fabric for any valid hardware spec that is not prebuilt, Verilated and compiled on
// first use into a shared object under the cache directory, loaded with dlopen, reused by later runs (docs/rtl.md,
// "Fabrics built on demand"). Safe when several processes want the same fabric: one builds (under a lock file, in
// a temporary directory renamed into place when complete), the others wait and load it. A fabric whose build
// fails, or whose shared object does not match its manifest, is never loaded.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"

namespace maeri::sim {

// A fabric that cannot be built or loaded: a missing tool, an unwritable cache, a failed build, a corrupt cached
// fabric. The message names what failed and what to do; tools report it as bad input (exit 2).
class FabricBuildError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// $MAERI_FABRIC_CACHE, else $XDG_CACHE_HOME/maeri/fabrics, else $HOME/.cache/maeri/fabrics.
std::string fabric_cache_directory();

// Directory name of the fabric in the cache: its parameters, readable, and a 64-bit hash over the parameters, the
// RTL sources, the C++ headers compiled into the shared object, the compiler and Verilator (paths and versions)
// and the flags, e.g. "m64-dn8-rn4-d16-a32-c64-3f2a…". Throws FabricBuildError when a tool is missing.
std::string fabric_key(const codegen::ImageHardware& hardware);
// Whether `name` has the form fabric_key gives (parameters, then 16 hex digits of the hash).
bool is_fabric_key(const std::string& name);

// The shared object of the fabric, built first if the cache does not hold it. `progress` receives one line per
// build stage (default: standard error).
using ProgressLine = std::function<void(const std::string&)>;
std::string build_fabric(const codegen::ImageHardware& hardware, const ProgressLine& progress = {});

// Makes the fabric of `hardware` loadable before a run opens it (in this process or in its children): nothing when
// it is prebuilt or already cached, else build_fabric. The seconds spent building it, or waiting for another process
// that builds it, so a command can tell that time apart from its own; nothing when the fabric was ready.
std::optional<double> make_fabric_available(const codegen::ImageHardware& hardware, const ProgressLine& progress = {});

struct CachedFabric {
  std::string key, directory;
  std::string parameters;  // from the manifest, e.g. "num_ms 64, dn_bw 8, …"
};
std::vector<CachedFabric> cached_fabrics();

// A temporary build directory, .build-KEY-PID: a build under way, or what a killed builder left.
struct UnfinishedBuild {
  std::string name, key;
  long pid = 0;
  std::uintmax_t bytes = 0;
  bool running = false;  // process PID exists and holds KEY.lock
};
std::vector<UnfinishedBuild> unfinished_builds();

// Removes what the cache made — fabric directories named by their key that hold their manifest, their lock files
// and failed-build logs (KEY.lock, KEY.failed.log) and the temporary build directories of builds no longer running
// (.build-KEY-PID) — and nothing else: the cache may be a folder the user also keeps other files in
// (MAERI_FABRIC_CACHE=~/work), with folders of any name.
struct CacheCleaning {
  int fabrics_removed = 0;
  std::vector<std::string> left_alone;      // names of the other entries, sorted; directories end in '/'
  std::vector<std::string> builds_running;  // temporary build directories of builds under way, sorted
};
// The fabrics the cache made: directories named by their key holding a manifest that names it (a folder of such a
// name without one is a user's, not listed).

CacheCleaning clean_fabric_cache();

}  // namespace maeri::sim
