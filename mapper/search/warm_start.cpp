// Warm start: layer similarity, the choice of the source layer, and carrying its mappings over (warm_start.hpp).
#include "mapper/search/warm_start.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "util/integer_math.hpp"

namespace maeri::mapper {

std::optional<WarmStart> parse_warm_start(const std::string& text) {
  if (text == "none" || text.empty()) return WarmStart::None;
  if (text == "previous") return WarmStart::Previous;
  if (text == "similar") return WarmStart::Similar;
  return std::nullopt;
}

std::vector<contracts::CostReport> best_of_fabric_tiles(std::vector<contracts::CostReport> costed, Objective objective,
                                                   std::size_t count) {
  std::sort(costed.begin(), costed.end(),
            [&](const contracts::CostReport& a, const contracts::CostReport& b) { return better(a, b, objective); });
  std::set<contracts::FabricTile> fabric_tiles;
  std::vector<contracts::CostReport> best;
  for (contracts::CostReport& report : costed) {
    if (best.size() == count) break;
    if (fabric_tiles.insert(report.mapping.tile).second) best.push_back(std::move(report));
  }
  return best;
}

std::vector<contracts::Mapping> learnt_mappings(std::vector<contracts::CostReport> costed, Objective objective) {
  std::vector<contracts::Mapping> learnt;
  for (const contracts::CostReport& report : best_of_fabric_tiles(std::move(costed), objective, kLearntFabricTiles))
    learnt.push_back(report.mapping);
  return learnt;
}

double layer_distance(const contracts::Layer& a, const contracts::Layer& b) {
  const auto ea = contracts::layer_extents(a), eb = contracts::layer_extents(b);
  double sum = 0;
  for (std::size_t d = 0; d < ea.size(); ++d) sum += std::pow(std::log2(double(ea[d])) - std::log2(double(eb[d])), 2);
  sum += std::pow(std::log2(double(a.stride_x)) - std::log2(double(b.stride_x)), 2);
  sum += std::pow(std::log2(double(a.stride_y)) - std::log2(double(b.stride_y)), 2);
  sum += std::pow(std::log2(double(a.groups)) - std::log2(double(b.groups)), 2);
  return std::sqrt(sum);
}

const SearchedLayer* warm_start_source(const std::vector<SearchedLayer>& history, const contracts::Layer& layer,
                                       WarmStart how) {
  if (history.empty() || how == WarmStart::None) return nullptr;
  if (how == WarmStart::Previous) return &history.back();
  const SearchedLayer* nearest = nullptr;
  double best = 0;
  for (const SearchedLayer& entry : history) {
    const double distance = layer_distance(entry.layer, layer);
    if (!nearest || distance <= best) {
      nearest = &entry;
      best = distance;
    }
  }
  return nearest;
}

std::vector<contracts::Mapping> carry_mappings(const SearchedLayer& source, const contracts::Layer& layer) {
  const auto from = contracts::layer_extents(source.layer), to = contracts::layer_extents(layer);
  std::vector<contracts::Mapping> carried;
  for (const contracts::Mapping& tile : source.best) {
    contracts::Mapping kept = tile, folded = tile;
    // T_G carries over where it is legal (it divides the layer's groups), else the layer runs group by group.
    if (layer.groups % tile.groups_per_step() != 0) kept.tile.groups = folded.tile.groups = 1;
    for (int d = 0; d < contracts::kNumTileDims; ++d) {
      kept[d] = std::min(tile[d], to[size_t(d)]);
      const std::int64_t folds = util::ceil_div(from[size_t(d)], tile[d]);
      folded[d] = util::ceil_div(to[size_t(d)], folds);
    }
    for (int d = 0; d < contracts::kNumSdmDims; ++d) {
      const int dim = contracts::sdm_tile_dim(d);
      kept.sdm.block[size_t(d)] = std::min(tile.sdm.block[size_t(d)], to[size_t(dim)]);
      const std::int64_t blocks = util::ceil_div(from[size_t(dim)], tile.sdm.block[size_t(d)]);
      folded.sdm.block[size_t(d)] = util::ceil_div(to[size_t(dim)], blocks);
    }
    carried.push_back(kept);
    if (folded != kept) carried.push_back(folded);
  }
  return carried;
}

}  // namespace maeri::mapper
