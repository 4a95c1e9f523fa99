// Warm start (docs/search.md, "Warm start"; after "Demystifying Map Space Exploration", Huang et al.): a layer's
// search begins with the best mappings of a layer searched before — the previous one, or the most similar one by
// shape — carried over to the new layer's extents.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mapper/search/objective.hpp"
#include "contracts/cost_report.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::mapper {

enum class WarmStart { None, Previous, Similar };
std::optional<WarmStart> parse_warm_start(const std::string& text);  // "none", "previous", "similar"

struct SearchedLayer {
  contracts::Layer layer;
  std::vector<contracts::Mapping> best;  // best first (learnt_mappings)
};

// What a searched layer leaves for the warm starts of later layers: of the mappings its search costed, the best
// mapping of each of the kLearntFabricTiles best fabric tiles, best first. A search's few best mappings are mostly
// SDM variants of one fabric tile, one basin; a layer of another shape often has its optimum in the basin of
// another of the source's good fabric tiles (docs/search.md, "Warm start": VGG16 conv3_2 at 512 MS).
inline constexpr std::size_t kLearntFabricTiles = 5;
std::vector<contracts::Mapping> learnt_mappings(std::vector<contracts::CostReport> costed, Objective objective);
// The best mapping of each of the `count` best fabric tiles among `costed`, best first. Applied to each run's
// mappings and then to the union, it gives what it gives on all of them at once: a fabric tile among the `count`
// best overall is among them in the run that found its best mapping. So a caller keeps this, not every mapping.
std::vector<contracts::CostReport> best_of_fabric_tiles(std::vector<contracts::CostReport> costed, Objective objective,
                                                   std::size_t count);

// Distance of two layer shapes: Euclidean over log2 of the seven tiled extents, the two strides and the groups.
double layer_distance(const contracts::Layer& a, const contracts::Layer& b);

// The layer to start from (nullptr when `history` is empty or `how` is None): the last one (Previous) or the one
// nearest by layer_distance, ties to the most recent (Similar).
const SearchedLayer* warm_start_source(const std::vector<SearchedLayer>& history, const contracts::Layer& layer,
                                       WarmStart how);

// The source's mappings carried to `layer`, twice each: with their sizes kept (clamped to the new extents) and with
// their fold counts kept (size ⌈extent/folds⌉). Not yet legal: the search legalises them (MapSpace::legalise).
std::vector<contracts::Mapping> carry_mappings(const SearchedLayer& source, const contracts::Layer& layer);

}  // namespace maeri::mapper
