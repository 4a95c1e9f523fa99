// Names and loop nests of the phase orders (see phase_order.hpp).
#include "contracts/phase_order.hpp"

namespace maeri::contracts {

const char* phase_order_text(PhaseOrder order) {
  return order == PhaseOrder::FiltersOuter ? "filters-outer" : "folds-outer";
}

std::optional<PhaseOrder> parse_phase_order(const std::string& text) {
  for (PhaseOrder order : kPhaseOrders)
    if (text == phase_order_text(order)) return order;
  return std::nullopt;
}

std::array<int, 4> fabric_loop_nest(PhaseOrder order) {
  // R = 0, S = 1, C = 2, K = 3 (contracts::TileDim).
  if (order == PhaseOrder::FiltersOuter) return {3, 0, 1, 2};
  return {0, 1, 2, 3};
}

}  // namespace maeri::contracts
