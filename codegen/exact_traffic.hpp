// Exact DN and RN traffic of a mapping, without building its program or touching data: for each phase shape
// (full or ragged in each of R, S, C, K; at most 16) the placement and ART words are built once, the destination
// sets of one step of each kind (used N/X'/Y' replicas × forwarding) are counted with the RTL's rules, and each
// is multiplied by how often it occurs. Memory is O(num_ms), whatever the layer size. It gives the same DN/RN
// traversal counts as the functional model and the RTL counters; the search uses it through
// refine_with_exact_traffic for the tiles its lower bounds cannot rule out (docs/model.md, "Exact traffic").
#pragma once

#include <cstdint>


#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::codegen {

struct ExactTraffic {
  std::int64_t dn_elements = 0;     // elements sent into the DN root (inputs and weights)
  std::int64_t dn_traversals = 0;   // as COUNT_DN_TRAVERSALS (docs/rtl.md)
  std::int64_t rn_traversals = 0;   // as COUNT_RN_TRAVERSALS
  std::int64_t results = 0;         // as COUNT_RESULTS
};

// The tile must be legal (throws std::invalid_argument otherwise).
ExactTraffic exact_traffic(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile);

// Replaces the analytical model's DN/RN traversal estimates (dn_traversals, rn_traversals) in `report` by the exact
// counts of the mapping and recomputes the energy.
void refine_with_exact_traffic(contracts::CostReport& report, const contracts::Layer& layer, const contracts::Hardware& hardware);

// refine_with_exact_traffic for this layer, as the search's SearchOptions::exact (so the search ranks by exact
// traffic). The layer and hardware must outlive the search.
contracts::ExactTrafficRefinement exact_traffic_for(const contracts::Layer& layer, const contracts::Hardware& hardware);

}  // namespace maeri::codegen
