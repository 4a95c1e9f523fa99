// Integer helpers every folder uses for tile counts, tree depths and bus widths: one definition each.
#pragma once

#include <cstdint>

namespace maeri::spec {

// ⌈a / b⌉ for a ≥ 0, b > 0: tiles of size b that cover a, beats of width b that carry a elements. Written so that
// it cannot overflow, since image validation applies it to untrusted sizes.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0); }

constexpr bool is_power_of_two(std::int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

// ⌈log2 value⌉ for value ≥ 1: the levels of a binary tree over `value` leaves (exact for powers of two), the
// bits of an index below `value`.
constexpr int ceil_log2(std::int64_t value) {
  int bits = 0;
  while ((std::int64_t{1} << bits) < value) ++bits;
  return bits;
}

}  // namespace maeri::spec
