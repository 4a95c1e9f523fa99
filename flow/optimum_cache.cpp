// The optimum cache of `maeri explore` read strictly and written atomically (see optimum_cache.hpp).
#include "flow/optimum_cache.hpp"

#include <fmt/format.h>

#include <optional>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "util/atomic_file.hpp"
#include "util/decimal_number.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::flow {
namespace {

constexpr const char* kHeader = "key,optimum,exhaustive";

double optimum_field(const std::string& text, const util::SourceLocation& where) {
  const std::optional<double> value = util::decimal_number(text);
  // An underflow to 0 or a subnormal is refused with 0 and below: the minimum check after reading is the cache's.
  if (!value || *value <= 0 || !std::isnormal(*value))
    // Runs are reported as found / optimum: 0 or below would make every ratio infinite or an "improvement".
    throw util::InputError(where, "optimum",
                           "expected a positive, finite number (the objective's optimum), found '" +
                               util::shown_value(text) + "'");
  return *value;
}

}  // namespace

std::map<std::string, CachedOptimum> parse_optimum_cache(const std::string& text, const std::string& path) {
  util::refuse_cr_only_line_endings(text, path);
  std::map<std::string, CachedOptimum> entries;
  int line_number = 0;
  const std::string byte_order_mark = "\xEF\xBB\xBF";
  for (std::size_t start = text.rfind(byte_order_mark, 0) == 0 ? byte_order_mark.size() : 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (line_number == 1 && line.rfind("key,", 0) == 0)) continue;
    const std::size_t last = line.rfind(',');
    const std::size_t previous = last == std::string::npos || last == 0 ? std::string::npos : line.rfind(',', last - 1);
    if (previous == std::string::npos || previous == 0)
      throw util::InputError({path, line_number, 1}, "",
                             fmt::format("expected a row '{}' (a key, then two fields after the last commas), found '{}'",
                                         kHeader, util::shown_value(line)));
    const std::string exhaustive = line.substr(last + 1);
    if (exhaustive != "0" && exhaustive != "1")
      throw util::InputError({path, line_number, int(last) + 2}, "exhaustive",
                             "expected 0 or 1, found '" + util::shown_value(exhaustive) + "'");
    const double optimum =
        optimum_field(line.substr(previous + 1, last - previous - 1), {path, line_number, int(previous) + 2});
    const CachedOptimum entry{optimum, exhaustive == "1", line_number};
    const auto [place, added] = entries.emplace(line.substr(0, previous), entry);
    if (!added && (place->second.optimum != optimum || place->second.exhaustive != entry.exhaustive))
      throw util::InputError({path, line_number, 1}, "key",
                             fmt::format("the key of line {} again, with another optimum or exhaustive flag: which "
                                         "one holds is ambiguous; remove one of the rows",
                                         place->second.line));
  }
  return entries;
}

OptimumCache::OptimumCache(std::string path) : path_(std::move(path)) {
  std::error_code error;
  if (path_.empty() || !std::filesystem::exists(std::filesystem::symlink_status(path_, error))) return;
  entries_ = parse_optimum_cache(
      util::read_input_file(path_, {"an optimum cache (CSV)", kMaxOptimumCacheBytes, "kMaxOptimumCacheBytes"}), path_);
}

std::string OptimumCache::key(const contracts::Hardware& hardware, const std::string& hardware_digest,
                              mapper::Objective objective, bool two_level, const contracts::Layer& layer) {
  std::string text = fmt::format("{}/{}MS/{}/{}/{}/{}", hardware.name, hardware.num_ms, hardware_digest.substr(0, 16),
                                 to_string(objective), two_level ? "two-level" : "single-level",
                                 contracts::to_string(layer.type));
  for (const auto& field : contracts::kLayerShapeFields) text += fmt::format("/{}={}", field.name, layer.*field.member);
  return text;
}

const CachedOptimum* OptimumCache::find(const std::string& key, double minimum) const {
  const auto found = entries_.find(key);
  if (found == entries_.end()) return nullptr;
  // A relative margin for the rounding of two formulas of one number: an optimum may equal the minimum.
  if (found->second.optimum < minimum * (1 - 1e-9))
    throw util::InputError({path_, found->second.line, 1}, "optimum",
                           fmt::format("{:.17g} is below the algorithmic minimum {:.17g} of the layer of key '{}': no "
                                       "mapping reaches it, so the row was edited or written by another model; "
                                       "remove it and the exhaustive search runs again",
                                       found->second.optimum, minimum, util::shown_value(found->first)));
  return &found->second;
}

void OptimumCache::add(const std::string& key, double optimum, bool exhaustive) {
  entries_[key] = {optimum, exhaustive, 0};
  if (path_.empty()) return;
  std::string text = std::string(kHeader) + "\n";
  for (const auto& [k, entry] : entries_) text += fmt::format("{},{:.17g},{}\n", k, entry.optimum, entry.exhaustive ? 1 : 0);
  util::write_file_atomically(path_, text);
}

}  // namespace maeri::flow
