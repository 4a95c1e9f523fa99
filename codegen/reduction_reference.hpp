// Switch-level software model of the augmented reduction tree: given the adder switch words and one product per
// multiplier switch, computes every adder's tokens exactly as rtl/arithmetic_networks.sv does (same ACC_W wrap-around)
// and the activity the RTL counters report. It is the RN part of the functional model and the oracle of the
// RTL tests.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/fabric_config.hpp"

namespace maeri::codegen {

struct ReductionOutcome {
  std::vector<int64_t> slot_values;  // 2·(num_ms−1) emit slots, sign-extended from acc_width bits
  std::vector<int64_t> vn_results;   // per VN id, read through the collector table
  int64_t additions = 0;             // two-input additions that combine real operands
  int64_t traversals = 0;            // values entering an adder switch (from a child or a forwarding link)
};

// Wraps a value to `width` bits, two's complement, and sign-extends it back to 64 bits. (Inline: the
// co-simulation calls it for every result it collects.)
inline int64_t wrap_to_width(int64_t value, int width) {
  if (width >= 64) return value;
  const uint64_t mask = (uint64_t(1) << width) - 1;
  const uint64_t bits = uint64_t(value) & mask;
  const uint64_t sign = uint64_t(1) << (width - 1);
  return int64_t((bits ^ sign) - sign);
}

// products: one per multiplier switch (inactive switches' entries are ignored: they feed 0).
ReductionOutcome evaluate_reduction(const FabricConfig& config, const std::vector<int64_t>& products, int acc_width);

}  // namespace maeri::codegen
