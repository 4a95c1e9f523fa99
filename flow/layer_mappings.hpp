// The best mappings of one layer as `maeri map` finds them: the exhaustive search over the joint space (fabric tile,
// SDM level, loop orders) with codegen's exact DN/RN traffic, ranked by exact cycles with DRAM (exact_ranking.hpp,
// docs/search.md). The one place
// that writes this search out: the plans (`verify`, `run`), `codegen` and the Python module call it; `maeri map`
// (workload_mapping) ranks with the same options and adds its threads, pruning rules and budget.
#pragma once

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "mapper/search/search.hpp"

namespace maeri::flow {

// The search options `maeri map` ranks a layer's mappings with (a heuristic search takes the same).
mapper::SearchOptions map_options(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                  mapper::Objective objective, int top);

// The best `top` mappings of `layer`, best first (empty when none fits: see mapper::unmappable_reason).
mapper::SearchResult best_mappings(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                   mapper::Objective objective, int top);

}  // namespace maeri::flow
