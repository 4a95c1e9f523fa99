// The fabric cache (fabric_cache.hpp): key, lock, build in a temporary directory, manifest, atomic rename, dlopen.
// The toolchain (compiler, flags, Verilator, the RTL sources and the Verilator arguments of the prebuilt fabrics)
// comes from the build (sim/CMakeLists.txt; lists joined with "|"); MAERI_FABRIC_CXX and MAERI_VERILATOR override the tools.
#include "sim/fabric_cache.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "sim/fabric_session.hpp"

extern char** environ;

namespace maeri::sim {
namespace fs = std::filesystem;
namespace {

constexpr const char* kModel = "Vmaeri_fabric";
// How a fabric is made beyond the build's toolchain: Verilated as a plain C++ model (the driver clocks it, no
// SystemC: sim/fabric_driver.hpp), compiled with these defines, its per-clock code optimised hard and its run-once
// code (construction, trace set-up) lightly. All of it is part of the fabric key (fabric_key), so changing any of it
// rebuilds the cached fabrics instead of loading stale ones.
const std::vector<std::string> kVerilateMode = {"--cc"};
const std::vector<std::string> kModelDefines = {"-DVM_SC=0", "-DVM_TRACE=1", "-DVM_TRACE_VCD=1", "-DVM_TRACE_FST=0",
                                                "-DVM_COVERAGE=0"};
constexpr const char* kHotOptimisation = "-O2";
constexpr const char* kColdOptimisation = "-O1";
constexpr const char* kObject = "fabric.so";
constexpr const char* kManifest = "manifest.txt";
constexpr const char* kNeeds = "building a fabric needs verilator, a C++ compiler and the SystemC headers "
                               "(apt-get install verilator g++ libsystemc-dev; docs/rtl.md)";

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string environment(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

// What the build was configured with (sim/CMakeLists.txt), tools overridable from the environment.
struct Toolchain {
  std::string cxx = environment("MAERI_FABRIC_CXX", MAERI_FABRIC_CXX);
  std::string verilator = environment("MAERI_VERILATOR", MAERI_FABRIC_VERILATOR);
  std::string verilator_root = MAERI_FABRIC_VERILATOR_ROOT;
  std::vector<std::string> cxx_flags = split(MAERI_FABRIC_CXX_FLAGS, ' ');
  std::vector<std::string> systemc_includes = split(MAERI_FABRIC_SYSTEMC_INCLUDES, '|');
  std::string source_dir = MAERI_FABRIC_SOURCE_DIR;
  std::vector<std::string> rtl_sources = split(MAERI_FABRIC_RTL_SOURCES, '|');
  std::vector<std::string> verilator_args = split(MAERI_FABRIC_VERILATOR_ARGS, '|');
};

// The executable `program` names (a path, or a name looked up on PATH), "" if there is none.
std::string find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
  for (const std::string& directory : split(environment("PATH", ""), ':')) {
    const std::string candidate = directory + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Runs `args` with stdout and stderr appended to `log` ("" = captured and returned); returns the exit status
// (-1: could not start).
int run(const std::vector<std::string>& args, const std::string& log, std::string* captured = nullptr) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  int pipe_fds[2] = {-1, -1};
  if (captured) {
    if (pipe(pipe_fds) != 0) return -1;
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (captured) {
    close(pipe_fds[1]);
    char buffer[4096];
    for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) captured->append(buffer, size_t(n));
    close(pipe_fds[0]);
  }
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs the commands, up to `jobs` at a time; the first failure's command line, or "".
std::string run_parallel(const std::vector<std::vector<std::string>>& commands, const std::string& log, int jobs) {
  std::mutex mutex;
  size_t next = 0;
  std::string failed;
  std::vector<std::thread> workers;
  for (int j = 0; j < jobs; ++j)
    workers.emplace_back([&] {
      for (;;) {
        size_t index = 0;
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (next >= commands.size() || !failed.empty()) return;
          index = next++;
        }
        if (run(commands[index], log) != 0) {
          std::lock_guard<std::mutex> lock(mutex);
          if (failed.empty()) failed = fmt::format("{}", fmt::join(commands[index], " "));
        }
      }
    });
  for (std::thread& worker : workers) worker.join();
  return failed;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// FNV-1a, 64 bits: a cache key, not a security boundary.
struct Hash {
  std::uint64_t value = 1469598103934665603ull;
  void add(const std::string& text) {
    for (unsigned char c : text) value = (value ^ c) * 1099511628211ull;
    value = (value ^ 0xff) * 1099511628211ull;  // separator, so that ("ab","c") and ("a","bc") differ
  }
};

std::string parameters_of(const codegen::ImageHardware& hw) {
  return fmt::format("num_ms {}, dn_bw {}, rn_bw {}, data_width {}, acc_width {}, config_bw {}", hw.num_ms, hw.dn_bw,
                     hw.rn_bw, hw.data_width, hw.acc_width, hw.config_bw);
}

std::string required_program(const std::string& program, const char* role, const char* variable) {
  const std::string found = find_program(program);
  if (found.empty())
    throw FabricBuildError(fmt::format("cannot build a Verilated fabric: {} '{}' was not found (set {} to its path); "
                                       "{}",
                                       role, program, variable, kNeeds));
  return found;
}

std::string tool_version(const std::string& program) {
  std::string output;
  run({program, "--version"}, "", &output);
  return output;
}

// A real directory (not a link to one) named by a fabric key — the cache's, or a user's folder of such a name.
bool is_fabric_directory(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(fs::symlink_status(path, error)) && is_fabric_key(path.filename().string());
}

// The key and process id of a temporary build directory's name, .build-KEY-PID; nullopt for any other name.
std::optional<std::pair<std::string, long>> build_directory_parts(const std::string& name) {
  const std::string prefix = ".build-";
  const std::size_t pid_dash = name.rfind('-');
  if (name.rfind(prefix, 0) != 0 || pid_dash == std::string::npos || pid_dash < prefix.size() ||
      pid_dash + 1 == name.size() || pid_dash + 10 < name.size() ||
      name.find_first_not_of("0123456789", pid_dash + 1) != std::string::npos)
    return std::nullopt;
  std::string key = name.substr(prefix.size(), pid_dash - prefix.size());
  if (!is_fabric_key(key)) return std::nullopt;
  return std::pair{std::move(key), std::stol(name.substr(pid_dash + 1))};
}

// Whether a build of `key` by process `pid` is under way: the builder holds KEY.lock for the whole build, and the
// process still exists (a killed builder released the lock; another may hold it now for its own directory).
bool build_running(const fs::path& cache, const std::string& key, long pid) {
  if (kill(pid_t(pid), 0) != 0 && errno == ESRCH) return false;
  const int fd = open((cache / (key + ".lock")).c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return held;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The cache's other entries: KEY.lock and KEY.failed.log files, .build-KEY-PID directories.
bool is_cache_leftover(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  const std::string name = path.filename().string();
  for (const std::string suffix : {".lock", ".failed.log"})
    if (ends_with(name, suffix) && is_fabric_key(name.substr(0, name.size() - suffix.size())))
      return fs::is_regular_file(status);
  return fs::is_directory(status) && build_directory_parts(name).has_value();
}

// The last `lines` lines of `text` ("(no output)" when it is empty).
std::string tail_lines(const std::string& text, int lines) {
  if (text.empty()) return "(no output)";
  size_t start = text.size();
  if (text.back() == '\n') --start;  // the final newline ends the last line, it does not start another
  for (int n = 0; n < lines && start > 0; ++n) {
    const size_t newline = text.rfind('\n', start - 1);
    if (newline == std::string::npos) return text;
    start = newline;
  }
  return start == 0 ? text : text.substr(start + 1);
}

std::uint32_t crc_of_file(const std::string& path) {
  const std::string bytes = read_file(path);
  return std::uint32_t(crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), uInt(bytes.size())));
}

// The manifest: the parameters, the key, and the size and CRC-32 of the shared object, written last, so a directory
// whose object does not match it (truncated, edited, half-copied) is recognised as corrupt.
void write_manifest(const fs::path& directory, const std::string& key, const codegen::ImageHardware& hw) {
  const std::string object = (directory / kObject).string();
  std::ofstream out(directory / kManifest);
  out << "key " << key << "\nparameters " << parameters_of(hw) << "\nsize " << fs::file_size(object) << "\ncrc32 "
      << crc_of_file(object) << "\n";
  if (!out.flush()) throw FabricBuildError(fmt::format("cannot write {}", (directory / kManifest).string()));
}

std::map<std::string, std::string> read_manifest(const fs::path& directory) {
  std::map<std::string, std::string> fields;
  std::ifstream in(directory / kManifest);
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.find(' ');
    if (space != std::string::npos) fields[line.substr(0, space)] = line.substr(space + 1);
  }
  return fields;
}

// A fabric directory the cache made: a build writes the manifest, naming the key, before it renames its temporary
// directory to the key, so a folder of that name without such a manifest was made by someone else (list and clean
// leave it alone). A fabric whose object no longer matches the manifest is still the cache's (corrupt).
bool is_cached_fabric(const fs::path& path) {
  if (!is_fabric_directory(path)) return false;
  std::error_code error;
  if (!fs::is_regular_file(fs::symlink_status(path / kManifest, error))) return false;
  const auto manifest = read_manifest(path);
  return manifest.count("key") && manifest.at("key") == path.filename().string();
}

// Why the cached fabric in `directory` must not be loaded, or "" if it matches its manifest.
std::string corruption_of(const fs::path& directory, const std::string& key) {
  const auto manifest = read_manifest(directory);
  const fs::path object = directory / kObject;
  if (manifest.empty()) return "it has no manifest";
  if (manifest.count("key") == 0 || manifest.at("key") != key) return "its manifest names another key";
  if (!fs::exists(object)) return fmt::format("{} is missing", kObject);
  if (manifest.count("size") == 0 || manifest.at("size") != std::to_string(fs::file_size(object)))
    return fmt::format("{} has {} bytes, the manifest says {}", kObject, fs::file_size(object),
                       manifest.count("size") ? manifest.at("size") : "nothing");
  if (manifest.count("crc32") == 0 || manifest.at("crc32") != std::to_string(crc_of_file(object.string())))
    return fmt::format("the CRC-32 of {} differs from the manifest's", kObject);
  return "";
}

void build_into(const fs::path& work, const std::string& key, const codegen::ImageHardware& hw,
                const Toolchain& tools, const std::string& cxx, const std::string& verilator, const std::string& log,
                const ProgressLine& progress) {
  const fs::path model_dir = work / "model";
  fs::create_directories(model_dir);
  std::vector<std::string> verilate = {verilator};
  verilate.insert(verilate.end(), kVerilateMode.begin(), kVerilateMode.end());
  verilate.insert(verilate.end(), {"--prefix", kModel, "--Mdir", model_dir.string(), "--top-module", "maeri_top"});
  verilate.insert(verilate.end(), tools.verilator_args.begin(), tools.verilator_args.end());
  // Verilator refuses generate loops longer than about 32 × --unroll-count iterations ("Loop unrolling took too
  // long"); the RTL has generate loops over 2·NUM_MS emit slots, so past 256 MS the count grows with the fabric
  // (measured: 512 MS needs 16, 1024 MS 32). The last --unroll-count given wins.
  if (hw.num_ms / 32 > 8) verilate.insert(verilate.end(), {"--unroll-count", std::to_string(hw.num_ms / 32)});
  for (const auto& [name, value] :
       {std::pair<const char*, int>{"NUM_MS", int(hw.num_ms)}, {"DN_BW", int(hw.dn_bw)}, {"RN_BW", int(hw.rn_bw)},
        {"DATA_W", hw.data_width}, {"ACC_W", hw.acc_width}, {"CONFIG_BW", hw.config_bw}})
    verilate.push_back(fmt::format("-G{}={}", name, value));
  for (const std::string& source : tools.rtl_sources) verilate.push_back(tools.source_dir + "/" + source);
  progress(fmt::format("maeri: building fabric {} ({}): Verilating", key, parameters_of(hw)));
  if (run(verilate, log) != 0) throw std::runtime_error(fmt::format("{}", fmt::join(verilate, " ")));

  {
    std::ofstream plugin(work / "plugin.cpp");
    plugin << "// Generated by sim/fabric_cache.cpp: the fabric " << key << ".\n#include \"" << kModel
           << ".h\"\n#include \"sim/fabric_plugin.hpp\"\nMAERI_FABRIC_PLUGIN(" << kModel << ", " << hw.num_ms << ", "
           << hw.dn_bw << ", " << hw.rn_bw << ", " << int(hw.data_width) << ", " << int(hw.acc_width) << ", "
           << hw.config_bw << ", \"" << key << "\")\n";
  }
  std::vector<std::string> sources = {(work / "plugin.cpp").string()};
  for (const fs::directory_entry& entry : fs::directory_iterator(model_dir))
    if (entry.path().extension() == ".cpp") sources.push_back(entry.path().string());
  std::sort(sources.begin() + 1, sources.end());

  std::vector<std::string> common = {cxx, "-std=c++17", "-fPIC", "-c"};
  common.insert(common.end(), kModelDefines.begin(), kModelDefines.end());
  common.insert(common.end(), {"-I" + model_dir.string(), "-I" + tools.source_dir, "-isystem",
                               tools.verilator_root + "/include", "-isystem", tools.verilator_root + "/include/vltstd"});
  for (const std::string& include : tools.systemc_includes) common.insert(common.end(), {"-isystem", include});
  common.insert(common.end(), tools.cxx_flags.begin(), tools.cxx_flags.end());
  std::vector<std::vector<std::string>> compiles;
  std::vector<std::string> objects;
  for (const std::string& source : sources) {
    std::vector<std::string> command = common;
    // Verilator's __Slow files run once (construction, tracing set-up) and its __Trace files only while a VCD is
    // written: optimising them hard only costs build time (a third of the C++ at 1024 MS).
    const bool cold = source.find("__Slow") != std::string::npos || source.find("__Trace") != std::string::npos;
    command.push_back(cold ? kColdOptimisation : kHotOptimisation);
    objects.push_back((work / (fs::path(source).stem().string() + ".o")).string());
    command.insert(command.end(), {source, "-o", objects.back()});
    compiles.push_back(command);
  }
  const int jobs = std::max(1, int(std::thread::hardware_concurrency()));
  progress(fmt::format("maeri: building fabric {}: compiling {} files ({} at a time)", key, compiles.size(), jobs));
  const std::string failed = run_parallel(compiles, log, jobs);
  if (!failed.empty()) throw std::runtime_error(failed);

  std::vector<std::string> link = {cxx, "-shared", "-o", (work / kObject).string()};
  link.insert(link.end(), objects.begin(), objects.end());
  link.insert(link.end(), tools.cxx_flags.begin(), tools.cxx_flags.end());
  if (run(link, log) != 0) throw std::runtime_error(fmt::format("{}", fmt::join(link, " ")));
  for (const std::string& object : objects) fs::remove(object);
  fs::remove_all(model_dir);
  write_manifest(work, key, hw);
}

// Holds an exclusive flock on `path` for its lifetime.
class FileLock {
 public:
  FileLock(const std::string& path, const std::string& key, const ProgressLine& progress) {
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw FabricBuildError(fmt::format("cannot create the lock file {}: {} (the fabric cache directory must be "
                                         "writable; set MAERI_FABRIC_CACHE or XDG_CACHE_HOME)",
                                         path, std::strerror(errno)));
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      progress(fmt::format("maeri: waiting for another process building fabric {}", key));
      if (flock(fd_, LOCK_EX) != 0) throw FabricBuildError(fmt::format("cannot lock {}: {}", path, std::strerror(errno)));
    }
  }
  ~FileLock() { close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

ProgressLine or_stderr(const ProgressLine& progress) {
  if (progress) return progress;
  return [](const std::string& line) { std::cerr << line << std::endl; };
}

}  // namespace

std::string fabric_cache_directory() {
  if (const char* cache = std::getenv("MAERI_FABRIC_CACHE"); cache && *cache) return cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/maeri/fabrics";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/maeri/fabrics";
  throw FabricBuildError("no fabric cache directory: set MAERI_FABRIC_CACHE, XDG_CACHE_HOME or HOME");
}

std::string fabric_key(const codegen::ImageHardware& hw) {
  const Toolchain tools;
  const std::string cxx = required_program(tools.cxx, "the C++ compiler", "MAERI_FABRIC_CXX");
  const std::string verilator = required_program(tools.verilator, "verilator", "MAERI_VERILATOR");
  Hash hash;
  hash.add(parameters_of(hw));
  for (const std::string& source : tools.rtl_sources) hash.add(read_file(tools.source_dir + "/" + source));
  std::vector<std::string> headers;
  for (const char* folder : {"util", "contracts", "codegen", "sim"})
    for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(tools.source_dir) / folder))
      if (entry.path().extension() == ".hpp") headers.push_back(entry.path().string());
  std::sort(headers.begin(), headers.end());
  for (const std::string& header : headers) hash.add(read_file(header));
  for (const std::string& part : {cxx, tool_version(cxx), verilator, tool_version(verilator), tools.verilator_root})
    hash.add(part);
  for (const auto* list : {&tools.cxx_flags, &tools.systemc_includes, &tools.verilator_args, &kVerilateMode,
                           &kModelDefines})
    for (const std::string& part : *list) hash.add(part);
  hash.add(kHotOptimisation);
  hash.add(kColdOptimisation);
  return fmt::format("m{}-dn{}-rn{}-d{}-a{}-c{}-{:016x}", hw.num_ms, hw.dn_bw, hw.rn_bw, hw.data_width, hw.acc_width,
                     hw.config_bw, hash.value);
}

bool is_fabric_key(const std::string& name) {
  static const std::regex key_form("m[0-9]+-dn[0-9]+-rn[0-9]+-d[0-9]+-a[0-9]+-c[0-9]+-[0-9a-f]{16}");
  return std::regex_match(name, key_form);
}

std::string build_fabric(const codegen::ImageHardware& hw, const ProgressLine& progress_or_null) {
  const ProgressLine progress = or_stderr(progress_or_null);
  const std::string key = fabric_key(hw);
  const fs::path cache = fabric_cache_directory();
  std::error_code error;
  fs::create_directories(cache, error);
  if (error)
    throw FabricBuildError(fmt::format("cannot create the fabric cache directory {}: {} (set MAERI_FABRIC_CACHE or "
                                       "XDG_CACHE_HOME to a writable directory)",
                                       cache.string(), error.message()));
  const FileLock lock((cache / (key + ".lock")).string(), key, progress);
  const fs::path final_dir = cache / key;
  if (fs::exists(final_dir) && !is_cached_fabric(final_dir))
    throw FabricBuildError(fmt::format("{} is in the way: the fabric cache did not make it (it holds no manifest "
                                       "naming its key); move it away, or set MAERI_FABRIC_CACHE to another folder",
                                       final_dir.string()));
  if (fs::exists(final_dir)) {
    const std::string corruption = corruption_of(final_dir, key);
    if (!corruption.empty())
      throw FabricBuildError(fmt::format("the cached fabric {} is corrupt: {}; remove it (maeri fabric clean) and run "
                                         "again to rebuild it",
                                         final_dir.string(), corruption));
    return (final_dir / kObject).string();
  }

  const Toolchain tools;
  const std::string cxx = required_program(tools.cxx, "the C++ compiler", "MAERI_FABRIC_CXX");
  const std::string verilator = required_program(tools.verilator, "verilator", "MAERI_VERILATOR");
  const fs::path work = cache / fmt::format(".build-{}-{}", key, getpid());
  const std::string log = (cache / (key + ".failed.log")).string();
  const auto start = std::chrono::steady_clock::now();
  try {
    fs::remove_all(work);
    fs::remove(log);
    fs::create_directories(work);
    build_into(work, key, hw, tools, cxx, verilator, log, progress);
    fs::rename(work, final_dir);  // atomic: a later run sees the whole fabric or none
  } catch (const FabricBuildError&) {
    fs::remove_all(work, error);
    throw;
  } catch (const fs::filesystem_error& failure) {
    fs::remove_all(work, error);
    throw FabricBuildError(fmt::format("cannot build the fabric {} in {}: {}", key, cache.string(), failure.what()));
  } catch (const std::runtime_error& failure) {
    fs::remove_all(work, error);
    throw FabricBuildError(fmt::format("building the fabric {} failed; the command\n  {}\nfailed, its output is in "
                                       "{}; the last lines:\n{}",
                                       key, failure.what(), log, tail_lines(read_file(log), 12)));
  }
  fs::remove(log, error);
  progress(fmt::format("maeri: built fabric {} in {:.0f} s", key,
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
  return (final_dir / kObject).string();
}

std::optional<double> make_fabric_available(const codegen::ImageHardware& hw, const ProgressLine& progress) {
  if (has_prebuilt_fabric(hw)) return std::nullopt;
  const fs::path final_dir = fs::path(fabric_cache_directory()) / fabric_key(hw);
  if (is_cached_fabric(final_dir)) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  build_fabric(hw, progress);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<CachedFabric> cached_fabrics() {
  std::vector<CachedFabric> fabrics;
  const fs::path cache = fabric_cache_directory();
  std::error_code error;
  if (!fs::is_directory(cache, error)) return fabrics;
  for (const fs::directory_entry& entry : fs::directory_iterator(cache)) {
    if (!is_cached_fabric(entry.path())) continue;
    const auto manifest = read_manifest(entry.path());
    fabrics.push_back({entry.path().filename().string(), entry.path().string(),
                       manifest.count("parameters") ? manifest.at("parameters") : "(no parameters: corrupt)"});
  }
  std::sort(fabrics.begin(), fabrics.end(), [](const CachedFabric& a, const CachedFabric& b) { return a.key < b.key; });
  return fabrics;
}

std::vector<UnfinishedBuild> unfinished_builds() {
  std::vector<UnfinishedBuild> builds;
  const fs::path cache = fabric_cache_directory();
  std::error_code error;
  if (!fs::is_directory(cache, error)) return builds;
  for (const fs::directory_entry& entry : fs::directory_iterator(cache)) {
    const std::string name = entry.path().filename().string();
    const auto parts = build_directory_parts(name);
    if (!parts || !fs::is_directory(fs::symlink_status(entry.path(), error))) continue;
    std::uintmax_t bytes = 0;
    for (auto file = fs::recursive_directory_iterator(entry.path(), error); !error && file != fs::end(file);
         file.increment(error))
      if (fs::is_regular_file(file->symlink_status(error))) bytes += file->file_size(error);
    builds.push_back({name, parts->first, parts->second, bytes, build_running(cache, parts->first, parts->second)});
  }
  std::sort(builds.begin(), builds.end(),
            [](const UnfinishedBuild& a, const UnfinishedBuild& b) { return a.name < b.name; });
  return builds;
}

CacheCleaning clean_fabric_cache() {
  const fs::path cache = fabric_cache_directory();
  CacheCleaning cleaning;
  std::error_code error;
  if (!fs::is_directory(cache, error)) return cleaning;
  for (const fs::directory_entry& entry : fs::directory_iterator(cache)) {
    const std::string name = entry.path().filename().string();
    const auto build = build_directory_parts(name);
    if (is_cached_fabric(entry.path())) {
      ++cleaning.fabrics_removed;
    } else if (build && fs::is_directory(fs::symlink_status(entry.path(), error)) &&
               build_running(cache, build->first, build->second)) {
      cleaning.builds_running.push_back(name);
      continue;
    } else if (!is_cache_leftover(entry.path())) {
      const bool folder = fs::is_directory(fs::symlink_status(entry.path(), error));
      cleaning.left_alone.push_back(entry.path().filename().string() + (folder ? "/" : ""));
      continue;
    }
    fs::remove_all(entry.path());
  }
  std::sort(cleaning.left_alone.begin(), cleaning.left_alone.end());
  std::sort(cleaning.builds_running.begin(), cleaning.builds_running.end());
  return cleaning;
}

std::unique_ptr<FabricSession> open_fabric(const codegen::ImageHardware& hw, std::uint64_t watchdog_cycles,
                                           const std::string& trace_path) {
  if (std::unique_ptr<FabricSession> prebuilt = open_prebuilt_fabric(hw, watchdog_cycles, trace_path)) return prebuilt;
  const std::string object = build_fabric(hw);
  // Never closed: the model's code must outlive the session, and SystemC cannot tear a design down anyway.
  void* handle = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw FabricBuildError(fmt::format("cannot load the cached fabric {}: {} (remove it with `maeri fabric clean` to "
                                       "rebuild it)",
                                       object, dlerror()));
  using KeyFunction = const char* (*)();
  using OpenFunction = FabricSession* (*)(std::uint64_t, const char*);
  const auto key = reinterpret_cast<KeyFunction>(dlsym(handle, "maeri_fabric_key"));
  const auto open = reinterpret_cast<OpenFunction>(dlsym(handle, "maeri_fabric_open"));
  const std::string expected = fs::path(object).parent_path().filename().string();
  if (!key || !open || key() != expected)
    throw FabricBuildError(fmt::format("the cached fabric {} is not the fabric {} (remove it with `maeri fabric "
                                       "clean`)",
                                       object, expected));
  return std::unique_ptr<FabricSession>(open(watchdog_cycles, trace_path.c_str()));
}

}  // namespace maeri::sim
