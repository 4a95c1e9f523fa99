// The best mappings of one layer as `maeri map` finds them (see layer_mappings.hpp).
#include "flow/layer_mappings.hpp"

#include "codegen/exact_traffic.hpp"
#include "flow/exact_ranking.hpp"

namespace maeri::flow {

mapper::SearchOptions map_options(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                  mapper::Objective objective, int top) {
  return mapper::map_search_options(objective, top, codegen::exact_traffic_for(layer, hardware));
}

mapper::SearchResult best_mappings(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                   mapper::Objective objective, int top) {
  return search_exactly(layer, hardware, map_options(layer, hardware, objective, top));
}

}  // namespace maeri::flow
