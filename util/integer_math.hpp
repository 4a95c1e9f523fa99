// Integer helpers every folder uses for tile counts, tree depths and bus widths: one definition each.
#pragma once

#include <cstdint>

namespace maeri::util {

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

// ⌈x / d⌉ for one divisor used for every step kind of every tile: the bandwidths are powers of two
// (docs/hardware-spec.md), so a shift replaces the division that would otherwise dominate the search's time.
class CeilDivider {
 public:
  explicit CeilDivider(std::int64_t divisor) : divisor_(divisor) {
    if (divisor > 0 && (divisor & (divisor - 1)) == 0)
      while ((std::int64_t(1) << shift_) < divisor) ++shift_;
    else
      shift_ = -1;
  }
  std::int64_t operator()(std::int64_t x) const {
    return shift_ >= 0 ? (x + divisor_ - 1) >> shift_ : ceil_div(x, divisor_);
  }

 private:
  std::int64_t divisor_;
  int shift_ = 0;
};

}  // namespace maeri::util
