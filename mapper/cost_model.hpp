// The analytical cost model: cycles, utilisation, activity counts and energy of a tile, exactly
// (ragged edge tiles are costed as they are, not averaged). Equations and sources: docs/model.md.
#pragma once

#include "mapper/cost_report.hpp"
#include "mapper/hardware.hpp"
#include "mapper/layer.hpp"
#include "mapper/tile.hpp"

namespace maeri::mapper {

// The tile must be legal (tile_violation() == nullopt); the model does not re-check.
CostReport evaluate(const Layer& layer, const Hardware& hardware, const Tile& tile);

// Energy of a set of activity counts under an energy table (shared with the RTL counter path).
EnergyBreakdown energy_of(const ActivityCounts& counts, const EnergyTable& table);

}  // namespace maeri::mapper
