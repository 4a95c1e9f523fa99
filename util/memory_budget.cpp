// The memory budget of one command (see memory_budget.hpp).
#include "util/memory_budget.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <optional>
#include <string_view>

#include "util/decimal_number.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::util {
namespace {

std::uint64_t& budget_in_force() {
  static std::uint64_t budget = default_memory_budget();
  return budget;
}

// MemAvailable in bytes, or 0 when /proc/meminfo does not say.
std::uint64_t available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key, unit;
    std::uint64_t kib = 0;
    if (fields >> key >> kib >> unit && key == "MemAvailable:" && unit == "kB") return kib * 1024;
  }
  return 0;
}

}  // namespace

std::uint64_t default_memory_budget() {
  if (const std::uint64_t available = available_memory()) return available / 2;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) return std::uint64_t(pages) * std::uint64_t(page) / 2;
  return std::uint64_t{4} << 30;
}

std::uint64_t memory_budget() { return budget_in_force(); }

void set_memory_budget(std::uint64_t bytes) { budget_in_force() = bytes; }

std::uint64_t parse_memory_size(const std::string& text, const std::string& field) {
  const auto bad = [&] {
    return InputError({field, 0, 0}, "",
                      "expected a size in bytes, with an optional K, M, G or T (binary multiples), above 0 and "
                      "below 2^63, found '" + shown_value(text) + "'");
  };
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  if (digits == 0 || text[0] == '.') throw bad();
  const std::optional<double> number = decimal_number(std::string_view(text).substr(0, digits));
  if (!number) throw bad();
  long double value = *number;
  const std::string suffix = text.substr(digits);
  int shift = 0;
  if (suffix == "K" || suffix == "KiB") shift = 10;
  else if (suffix == "M" || suffix == "MiB") shift = 20;
  else if (suffix == "G" || suffix == "GiB") shift = 30;
  else if (suffix == "T" || suffix == "TiB") shift = 40;
  else if (!suffix.empty()) throw bad();
  value = std::ldexp(value, shift);
  if (!(value >= 1) || value >= std::ldexp(1.0L, 63)) throw bad();
  return std::uint64_t(value);
}

std::string memory_size_text(long double bytes) {
  static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 6) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} bytes", double(bytes)) : fmt::format("{:.1f} {}", double(bytes), units[unit]);
}

void require_memory(long double bytes, const std::string& file, const std::string& field, const std::string& what) {
  const std::uint64_t budget = memory_budget();
  if (bytes <= static_cast<long double>(budget)) return;
  throw InputError({file, 0, 0}, field,
                   fmt::format("{} would need {:.0f} bytes ({}), more than the memory budget of {} bytes ({}; "
                               "--memory-budget, by default half of the memory available when the command starts)",
                               what, double(bytes), memory_size_text(bytes), budget, memory_size_text(budget)));
}

}  // namespace maeri::util
