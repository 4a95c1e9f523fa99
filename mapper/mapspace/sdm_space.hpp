// The SDM level of the two-level map space (docs/mapping.md, "SDM level"): for one fabric tile, the SDM tile
// sizes the search tries per dimension (the fabric tile times each divisor of the number of fabric tiles, capped
// at the layer, so every block holds whole fabric tiles and the space stays finite), and the enumeration of the SDM levels that fit the SDM.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "contracts/sdm_budget.hpp"
#include "mapper/mapspace/equivalent_orders.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::mapper {

// Block sizes tried for one SDM dimension: min(extent, fabric·m) for every divisor m of ⌈extent / fabric⌉,
// ascending, without those whose last block would be smaller than a fabric tile (N, X', Y'; sdm_rules.hpp).
std::vector<std::int64_t> sdm_block_candidates(std::int64_t extent, std::int64_t fabric, bool output_dim);

// Size of the SDM level for one fabric tile: the product of the candidate counts (before the capacity rule).
std::uint64_t sdm_tile_count(const contracts::Layer& layer, const contracts::Mapping& tile);

// Calls visit(tile with SDM tile, its distinct orders) for every candidate SDM tile that fits the SDM (capacity
// rule); returns the number of mappings (SDM tile, order) given. Blocks grow in every dimension, so the walk stops
// a dimension at its first block that does not fit.
template <typename Visit>
std::uint64_t for_each_sdm_tile(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                                Visit&& visit);
// The same, one mapping at a time: visit(tile with SDM level).
template <typename Visit>
std::uint64_t for_each_sdm_level(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                                 Visit&& visit) {
  return for_each_sdm_tile(layer, hardware, tile, [&](contracts::Mapping mapping, const std::vector<contracts::SdmOrder>& orders) {
    for (const contracts::SdmOrder& order : orders) {
      mapping.sdm.order = order;
      visit(mapping);
    }
  });
}

// The candidate lists and capacity walk behind for_each_sdm_level (no template: in sdm_space.cpp).
struct SdmCandidates {
  std::array<std::vector<std::int64_t>, contracts::kNumSdmDims> blocks;
};
SdmCandidates sdm_candidates(const contracts::Layer& layer, const contracts::Mapping& tile);
bool sdm_fits(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile);

// Gives `tile` an SDM level drawn from the candidates and the 120 orders, `pick(n)` choosing an index below n
// (random sampling of the joint space, whose phase order is drawn apart; the capacity rule is not checked).
template <typename Pick>
void pick_sdm_level(const contracts::Layer& layer, contracts::Mapping& tile, Pick&& pick) {
  tile.sdm.blocked = true;
  const SdmCandidates candidates = sdm_candidates(layer, tile);
  for (int d = 0; d < contracts::kNumSdmDims; ++d) {
    const auto& list = candidates.blocks[size_t(d)];
    tile.sdm.block[size_t(d)] = list[size_t(pick(list.size()))];
  }
  static const std::vector<contracts::SdmOrder> orders = contracts::all_sdm_orders();
  tile.sdm.order = orders[size_t(pick(orders.size()))];
}

template <typename Visit>
std::uint64_t for_each_sdm_tile(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                                Visit&& visit) {
  using namespace contracts;
  const SdmCandidates candidates = sdm_candidates(layer, tile);
  const auto extents = layer_extents(layer);
  Mapping mapping = tile;
  mapping.sdm.blocked = true;
  std::uint64_t visited = 0;
  auto& b = mapping.sdm.block;
  for (std::int64_t k : candidates.blocks[kSdmK]) {
    b = {k, 1, 1, 1, 1};
    b[kSdmC] = candidates.blocks[kSdmC].front();
    b[kSdmN] = candidates.blocks[kSdmN].front();
    b[kSdmX] = candidates.blocks[kSdmX].front();
    b[kSdmY] = candidates.blocks[kSdmY].front();
    if (!sdm_fits(layer, hardware, mapping)) break;
    for (std::int64_t c : candidates.blocks[kSdmC]) {
      b[kSdmC] = c;
      b[kSdmN] = candidates.blocks[kSdmN].front();
      b[kSdmX] = candidates.blocks[kSdmX].front();
      b[kSdmY] = candidates.blocks[kSdmY].front();
      if (!sdm_fits(layer, hardware, mapping)) break;
      for (std::int64_t n : candidates.blocks[kSdmN]) {
        b[kSdmN] = n;
        b[kSdmX] = candidates.blocks[kSdmX].front();
        b[kSdmY] = candidates.blocks[kSdmY].front();
        if (!sdm_fits(layer, hardware, mapping)) break;
        for (std::int64_t x : candidates.blocks[kSdmX]) {
          b[kSdmX] = x;
          b[kSdmY] = candidates.blocks[kSdmY].front();
          if (!sdm_fits(layer, hardware, mapping)) break;
          for (std::int64_t y : candidates.blocks[kSdmY]) {
            b[kSdmY] = y;
            if (!sdm_fits(layer, hardware, mapping)) break;
            const std::vector<SdmOrder>& orders = distinct_sdm_orders(contracts::sdm_trips(extents, b));
            visited += orders.size();
            visit(mapping, orders);
          }
        }
      }
    }
  }
  return visited;
}

}  // namespace maeri::mapper
