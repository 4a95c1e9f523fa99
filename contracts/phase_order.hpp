// The phase order of a mapping (docs/mapping.md, "Phase order"): the order of the fabric's loops between weight
// phases inside one SDM block (the whole layer without an SDM level). `folds-outer` runs the reduction folds
// (R, S, C slices) outside the filter tiles (K), so every filter tile of a fold follows the next and the partial
// sums of all outputs are live at once; `filters-outer` finishes a filter tile's outputs over all folds before the
// next tile starts, so only one filter tile's partial sums are live but every channel slice's inputs come back
// once per filter tile. The batch and output tiles (steps) stay innermost in both: outside the weight phases they
// would reload weights every step (docs/mapping.md says why that order is dominated).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace maeri::contracts {

enum class PhaseOrder : std::uint8_t { FoldsOuter = 0, FiltersOuter = 1 };
inline constexpr PhaseOrder kDefaultPhaseOrder = PhaseOrder::FoldsOuter;
inline constexpr std::array<PhaseOrder, 2> kPhaseOrders = {PhaseOrder::FoldsOuter, PhaseOrder::FiltersOuter};

// "folds-outer", "filters-outer" (mapping-file values, `--phase-order`) and back; nullopt for any other text.
const char* phase_order_text(PhaseOrder order);
std::optional<PhaseOrder> parse_phase_order(const std::string& text);

// The fabric loops R, S, C, K (indices 0..3, as TileDim) outer to inner in this order: R S C K or K R S C.
std::array<int, 4> fabric_loop_nest(PhaseOrder order);

}  // namespace maeri::contracts
