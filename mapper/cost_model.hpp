// The analytical cost model: cycles, utilisation, activity counts and energy of a tile, exactly
// (ragged edge tiles are costed as they are, not averaged). Equations and sources: docs/model.md.
#pragma once

#include "spec/cost_report.hpp"
#include "spec/hardware.hpp"
#include "spec/layer.hpp"
#include "spec/tile.hpp"

namespace maeri::mapper {

// The tile must be legal (tile_violation() == nullopt); the model does not re-check.
spec::CostReport evaluate(const spec::Layer& layer, const spec::Hardware& hardware, const spec::Tile& tile);

// Energy of a set of activity counts under an energy table (shared with the RTL counter path).
spec::EnergyBreakdown energy_of(const spec::ActivityCounts& counts, const spec::EnergyTable& table);

}  // namespace maeri::mapper
