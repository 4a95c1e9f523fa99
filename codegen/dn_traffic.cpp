// DN traversal counting (definition in dn_traffic.hpp).
#include "codegen/dn_traffic.hpp"

#include <algorithm>
#include <array>

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

int dn_key_bits(int num_ms) { return util::ceil_log2(num_ms); }

std::uint64_t dn_max_key_source(int num_ms) { return ~std::uint64_t{0} >> dn_key_bits(num_ms); }

namespace {

// The index of the highest set bit of x > 0.
int highest_bit(std::uint64_t x) { return 63 - __builtin_clzll(x); }

// Sorts `keys` ascending: a least-significant-digit radix sort of key − min in 11-bit digits when at most four
// digits span the keys' range (a step's uses lie close together in the padded input), std::sort otherwise.
void sort_keys(std::vector<std::uint64_t>& keys, std::vector<std::uint64_t>& scratch) {
  constexpr int kDigitBits = 11, kMaxDigits = 4;
  if (keys.size() < 256) return std::sort(keys.begin(), keys.end());  // few keys: the digit counts would dominate
  const auto [low, high] = std::minmax_element(keys.begin(), keys.end());
  const std::uint64_t min = *low, range = *high - *low;
  const int digits = range == 0 ? 0 : (highest_bit(range) + kDigitBits) / kDigitBits;
  if (digits > kMaxDigits) return std::sort(keys.begin(), keys.end());
  scratch.resize(keys.size());
  for (int digit = 0; digit < digits; ++digit) {
    const int shift = digit * kDigitBits;
    std::array<std::uint32_t, (1u << kDigitBits) + 1> starts{};
    for (const std::uint64_t key : keys) ++starts[((key - min) >> shift & ((1u << kDigitBits) - 1)) + 1];
    for (size_t bucket = 1; bucket < starts.size(); ++bucket) starts[bucket] += starts[bucket - 1];
    for (const std::uint64_t key : keys) scratch[starts[(key - min) >> shift & ((1u << kDigitBits) - 1)]++] = key;
    keys.swap(scratch);
  }
}

}  // namespace

DnTraffic dn_traffic_of_uses(int num_ms, int dn_bw, DnUseKeys& uses) {
  const int levels = util::ceil_log2(num_ms);
  const int convert_at = dn_conversion_level(num_ms, dn_bw);
  const int switch_levels = convert_at < levels ? convert_at + 1 : levels;
  const int bits = dn_key_bits(num_ms);
  const std::uint64_t switch_mask = (std::uint64_t{1} << bits) - 1;
  sort_keys(uses.keys, uses.scratch);
  const std::vector<std::uint64_t>& keys = uses.keys;
  DnTraffic traffic;
  // Every destination has its own lane below the switch levels; at the switch levels the first destination of an
  // element enters one switch per level, each next one those where it leaves its predecessor's subtree.
  traffic.traversals = std::int64_t(levels - switch_levels) * std::int64_t(keys.size());
  std::uint64_t previous = 0;
  bool first = true;
  for (const std::uint64_t key : keys) {
    if (first || (key >> bits) != (previous >> bits)) {
      traffic.elements += 1;
      traffic.traversals += switch_levels;
    } else {
      const std::uint64_t differ = (key ^ previous) & switch_mask;  // 0 only for a repeated use: no new switch
      if (differ) traffic.traversals += std::max(0, switch_levels - std::max(0, levels - highest_bit(differ)));
    }
    previous = key;
    first = false;
  }
  return traffic;
}

}  // namespace maeri::codegen
