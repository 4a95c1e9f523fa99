// Switch-level evaluation of the ART (semantics documented in docs/config-bits.md).
#include "codegen/reduction_reference.hpp"

#include <stdexcept>

#include "util/integer_math.hpp"

namespace maeri::codegen {

ReductionOutcome evaluate_reduction(const FabricConfig& config, const std::vector<int64_t>& products, int acc_width) {
  const int m = config.num_ms;
  if (int(products.size()) != m) throw std::invalid_argument("evaluate_reduction: one product per switch expected");
  const int levels = util::ceil_log2(m);

  ReductionOutcome outcome;
  outcome.slot_values.assign(size_t(2 * (m - 1)), 0);

  // Values and validity arriving from the level below (initially the multiplier switches).
  std::vector<int64_t> value(static_cast<size_t>(m));
  std::vector<bool> valid(static_cast<size_t>(m));
  for (int i = 0; i < m; ++i) {
    valid[size_t(i)] = config.mult_switches[size_t(i)].active;
    value[size_t(i)] = valid[size_t(i)] ? wrap_to_width(products[size_t(i)], acc_width) : 0;
  }

  for (int level = levels - 1; level >= 0; --level) {
    const int width = 1 << level;
    const int base = width - 1;
    auto word = [&](int j) -> const AdderSwitchConfig& { return config.adder_switches[size_t(base + j)]; };
    auto link_out = [&](int j) -> int64_t {
      const int64_t left = value[size_t(2 * j)], right = value[size_t(2 * j + 1)];
      if (word(j).combine) return wrap_to_width(left + right, acc_width);
      return (j % 2 == 1) ? right : left;  // the facing token
    };
    std::vector<int64_t> up_value(size_t(width), 0);
    std::vector<bool> up_valid(size_t(width), false);
    for (int j = 0; j < width; ++j) {
      const AdderSwitchConfig& w = word(j);
      const bool odd = j % 2 == 1;
      const int partner = link_partner(j, width);
      const bool receive = w.link_receive && partner >= 0 && word(partner).link_send;
      const int64_t link_in = receive ? link_out(partner) : 0;
      const int64_t left = value[size_t(2 * j)], right = value[size_t(2 * j + 1)];
      const int operands = int(valid[size_t(2 * j)]) + int(valid[size_t(2 * j + 1)]) + int(receive);
      int64_t left_token, right_token;
      if (w.combine) {
        left_token = right_token = wrap_to_width(left + right + link_in, acc_width);
        outcome.additions += operands > 1 ? operands - 1 : 0;
      } else {
        left_token = wrap_to_width(left + (odd ? 0 : link_in), acc_width);
        right_token = wrap_to_width(right + (odd ? link_in : 0), acc_width);
        outcome.additions += receive ? 1 : 0;
      }
      outcome.traversals += operands;
      const int adder = base + j;
      if (w.emit_left) outcome.slot_values[size_t(2 * adder)] = left_token;
      if (w.emit_right) outcome.slot_values[size_t(2 * adder + 1)] = right_token;
      if (w.up) {
        up_valid[size_t(j)] = true;
        up_value[size_t(j)] = odd ? left_token : right_token;  // parity token (= the combined token)
      }
    }
    value = std::move(up_value);
    valid = std::move(up_valid);
  }
  outcome.vn_results.reserve(config.collector_slots.size());
  for (int slot : config.collector_slots) outcome.vn_results.push_back(outcome.slot_values.at(size_t(slot)));
  return outcome;
}

}  // namespace maeri::codegen
