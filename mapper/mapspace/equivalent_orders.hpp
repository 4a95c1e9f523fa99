// Which mappings of a layer cost the same under the model (docs/mapping.md, "SDM level" and "Phase order"): the SDM
// loop orders of one class (a loop of one block sits anywhere; neighbouring N, X', Y' loops swap) and the phase
// orders that give the same program. The map space enumerates one mapping per class and the searches name a mapping
// by its class's representative, so equivalent mappings cost one evaluation.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "contracts/layer.hpp"
#include "contracts/phase_order.hpp"
#include "contracts/sdm_level.hpp"
#include "contracts/tile.hpp"

namespace maeri::mapper {

// The orders whose costs can differ for blocks with these trip counts, one of each class (docs/mapping.md, "SDM
// level"): a loop of one block sits anywhere, and neighbouring N, X', Y' loops (no K or C loop between them)
// can be swapped, since they index the same tensors and repeat the same phase sequence. Ascending.
const std::vector<contracts::SdmOrder>& distinct_sdm_orders(const std::array<std::int64_t, contracts::kNumSdmDims>& trips);
// The representative in distinct_sdm_orders(trips) of the class of `order`: the same cost, one name.
contracts::SdmOrder canonical_sdm_order(const std::array<std::int64_t, contracts::kNumSdmDims>& trips,
                                   const contracts::SdmOrder& order);

// The phase orders whose costs can differ for this mapping (docs/mapping.md, "Phase order"), folds-outer first:
// both when they give different programs (contracts::phase_order_matters) and, with an SDM level, some fabric tile of
// R, S, C or K is ragged — otherwise every phase has the same shape, so both orders need one configuration, and a
// block holds all its data whatever the order. Folds-outer alone otherwise.
const std::vector<contracts::PhaseOrder>& distinct_phase_orders(const contracts::Layer& layer, const contracts::Mapping& tile);

}  // namespace maeri::mapper
