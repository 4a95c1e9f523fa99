// libFuzzer harness: the optimum cache reader (flow::parse_optimum_cache, what `explore --optimum-cache` reads)
// on arbitrary text. Bad input must end in maeri::util::InputError; every accepted optimum is a finite number
// ≥ 0, and the cache the writer makes of the accepted entries reads back to the same entries.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "flow/optimum_cache.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"
#include "util/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile rewritten(".csv");
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::map<std::string, maeri::flow::CachedOptimum> entries;
  try {
    entries = maeri::flow::parse_optimum_cache(text, "fuzz.csv");
  } catch (const maeri::util::InputError&) {
    return 0;
  }
  for (const auto& [key, entry] : entries)
    if (key.empty() || !std::isfinite(entry.optimum) || entry.optimum < 0) __builtin_trap();
  // What the writer makes of the accepted entries (one key per row: a key never holds a line break).
  const std::string& path = rewritten.write(nullptr, 0);
  maeri::flow::OptimumCache cache(path);
  for (const auto& [key, entry] : entries) cache.add(key, entry.optimum, entry.exhaustive);
  const maeri::flow::OptimumCache again(path);
  for (const auto& [key, entry] : entries) {
    const maeri::flow::CachedOptimum* found = again.find(key, 0);  // no layer here: every optimum is >= 0
    if (!found || found->optimum != entry.optimum || found->exhaustive != entry.exhaustive) __builtin_trap();
  }
  return 0;
}
