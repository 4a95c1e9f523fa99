// The optimum cache of `maeri explore --optimum-cache` (docs/search.md): the exhaustive optima already computed, one
// CSV line per (hardware file's content, objective, space, layer shape) with the optimum's objective value and
// whether the search was exhaustive. The exhaustive search of a large layer takes minutes; its result depends only
// on this key and on the model. The file is written by the tool, but it is a user's file: it is read strictly,
// every bad row an InputError naming the line, the field and what was expected.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "mapper/search/objective.hpp"

namespace maeri::flow {

// Far above any real cache (a line is about 150 bytes: a hundred thousand layers fit), so a device or a huge file
// is refused before it is held in memory (docs/cli.md, "Limits").
inline constexpr std::size_t kMaxOptimumCacheBytes = std::size_t(16) << 20;

struct CachedOptimum {
  double optimum = 0;  // the objective's value, a positive, finite number
  bool exhaustive = false;
  int line = 0;        // the row's line in the file (for messages); 0 for an entry added by this run
};

// Rows "key,optimum,exhaustive" (the key may contain commas: the last two fields are split off), after an optional
// header line starting "key,"; blank lines, CR LF line endings and a UTF-8 byte order mark (as spreadsheets save CSV)
// are accepted, CR-only line endings are not, nor a key on two rows with different values.
std::map<std::string, CachedOptimum> parse_optimum_cache(const std::string& text, const std::string& path);

class OptimumCache {
 public:
  // "" = no cache file; a file that does not exist yet is an empty cache (created on the first add).
  explicit OptimumCache(std::string path);

  static std::string key(const contracts::Hardware& hardware, const std::string& hardware_digest, mapper::Objective objective,
                         bool two_level, const contracts::Layer& layer);
  // The entry of `key`, or nullptr. `minimum` is the objective's algorithmic minimum for the key's layer: no mapping
  // beats it, so a cached optimum below it (edited, or written by another model) is refused, an InputError naming
  // the file's line, rather than reported as a ratio of 10^8.
  const CachedOptimum* find(const std::string& key, double minimum) const;
  // Adds the entry and rewrites the file (atomically).
  void add(const std::string& key, double optimum, bool exhaustive);

 private:
  std::string path_;
  std::map<std::string, CachedOptimum> entries_;
};

}  // namespace maeri::flow
