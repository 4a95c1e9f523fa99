// Wall time since the process started (see process_clock.hpp).
#include "util/process_clock.hpp"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace maeri::util {
namespace {

// The process's start as seconds after boot: field 22 of /proc/self/stat, in clock ticks. The fields after the
// command name (field 2, in parentheses, which may itself hold spaces and parentheses) start after its last ')'.
std::optional<double> start_after_boot() {
  std::ifstream file("/proc/self/stat");
  std::string text;
  if (!file || !std::getline(file, text)) return std::nullopt;
  const std::size_t name_end = text.rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(name_end + 1));
  std::string field;
  for (int number = 3; number < 22; ++number) fields >> field;  // state … itrealvalue
  unsigned long long ticks = 0;
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  if (!(fields >> ticks) || ticks_per_second <= 0) return std::nullopt;
  return double(ticks) / double(ticks_per_second);
}

}  // namespace

double seconds_since_process_start() {
  static const std::optional<double> started = start_after_boot();
  static const auto first_call = std::chrono::steady_clock::now();
  timespec now{};
  if (started && clock_gettime(CLOCK_BOOTTIME, &now) == 0)
    return double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - *started;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - first_call).count();
}

}  // namespace maeri::util
