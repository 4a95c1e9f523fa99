// DN traversal counting (definition in dn_traffic.hpp).
#include "codegen/dn_traffic.hpp"

#include <algorithm>

#include "contracts/hardware.hpp"
#include "util/integer_math.hpp"

namespace maeri::codegen {

int dn_conversion_level(int num_ms, int dn_bw) { return contracts::dn_conversion_level(num_ms, dn_bw); }

std::int64_t dn_traversals(int num_ms, int dn_bw, const std::vector<int>& destinations) {
  const int levels = util::ceil_log2(num_ms);
  const int convert_at = dn_conversion_level(num_ms, dn_bw);
  const int switch_levels = convert_at < levels ? convert_at + 1 : levels;
  // Ascending destinations (as dn_elements.hpp builds them) put the leaves of one switch next to each other, so
  // distinct switches are counted by one scan per level.
  std::vector<int> sorted;
  const std::vector<int>* leaves = &destinations;
  if (!std::is_sorted(destinations.begin(), destinations.end())) {
    sorted = destinations;
    std::sort(sorted.begin(), sorted.end());
    leaves = &sorted;
  }
  std::int64_t total = 0;
  for (int level = 0; level < switch_levels; ++level) {
    int previous = -1;
    for (int leaf : *leaves) {
      const int node = leaf >> (levels - level);
      if (node != previous) ++total;
      previous = node;
    }
  }
  return total + std::int64_t(levels - switch_levels) * std::int64_t(destinations.size());
}

}  // namespace maeri::codegen
