// The SDM level of the two-level map space (docs/mapping.md, "SDM level"): for one fabric tile, the SDM tile
// sizes the search tries per dimension (the fabric tile times each divisor of the number of fabric tiles, capped
// at the layer, so every block holds whole fabric tiles and the space stays finite), the SDM loop orders that can
// give different costs, and the enumeration of the SDM levels that fit the SDM.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "mapper/sdm_budget.hpp"
#include "spec/hardware.hpp"
#include "spec/layer.hpp"
#include "spec/tile.hpp"

namespace maeri::mapper {

// Block sizes tried for one SDM dimension: min(extent, fabric·m) for every divisor m of ⌈extent / fabric⌉,
// ascending, without those whose last block would be smaller than a fabric tile (N, X', Y'; sdm_rules.hpp).
std::vector<std::int64_t> sdm_block_candidates(std::int64_t extent, std::int64_t fabric, bool output_dim);

// The orders whose costs can differ for blocks with these trip counts, one of each class (docs/mapping.md, "SDM
// level"): a loop of one block sits anywhere, and neighbouring N, X', Y' loops (no K or C loop between them)
// can be swapped, since they index the same tensors and repeat the same phase sequence. Ascending.
const std::vector<spec::SdmOrder>& distinct_sdm_orders(const std::array<std::int64_t, spec::kNumSdmDims>& trips);
// The representative in distinct_sdm_orders(trips) of the class of `order`: the same cost, one name.
spec::SdmOrder canonical_sdm_order(const std::array<std::int64_t, spec::kNumSdmDims>& trips,
                                   const spec::SdmOrder& order);

// The phase orders whose costs can differ for this mapping (docs/mapping.md, "Phase order"), folds-outer first:
// both when they give different programs (spec::phase_order_matters) and, with an SDM level, some fabric tile of
// R, S, C or K is ragged — otherwise every phase has the same shape, so both orders need one configuration, and a
// block holds all its data whatever the order. Folds-outer alone otherwise.
const std::vector<spec::PhaseOrder>& distinct_phase_orders(const spec::Layer& layer, const spec::Tile& tile);

// Size of the SDM level for one fabric tile: the product of the candidate counts (before the capacity rule).
std::uint64_t sdm_tile_count(const spec::Layer& layer, const spec::Tile& tile);

// Calls visit(tile with SDM tile, its distinct orders) for every candidate SDM tile that fits the SDM (capacity
// rule); returns the number of mappings (SDM tile, order) given. Blocks grow in every dimension, so the walk stops
// a dimension at its first block that does not fit.
template <typename Visit>
std::uint64_t for_each_sdm_tile(const spec::Layer& layer, const spec::Hardware& hardware, const spec::Tile& tile,
                                Visit&& visit);
// The same, one mapping at a time: visit(tile with SDM level).
template <typename Visit>
std::uint64_t for_each_sdm_level(const spec::Layer& layer, const spec::Hardware& hardware, const spec::Tile& tile,
                                 Visit&& visit) {
  return for_each_sdm_tile(layer, hardware, tile, [&](spec::Tile mapping, const std::vector<spec::SdmOrder>& orders) {
    for (const spec::SdmOrder& order : orders) {
      mapping.sdm.order = order;
      visit(mapping);
    }
  });
}

// The candidate lists and capacity walk behind for_each_sdm_level (no template: in sdm_space.cpp).
struct SdmCandidates {
  std::array<std::vector<std::int64_t>, spec::kNumSdmDims> blocks;
};
SdmCandidates sdm_candidates(const spec::Layer& layer, const spec::Tile& tile);
bool sdm_fits(const spec::Layer& layer, const spec::Hardware& hardware, const spec::Tile& tile);

// Gives `tile` an SDM level drawn from the candidates and the 120 orders, `pick(n)` choosing an index below n
// (random sampling of the joint space, whose phase order is drawn apart; the capacity rule is not checked).
template <typename Pick>
void pick_sdm_level(const spec::Layer& layer, spec::Tile& tile, Pick&& pick) {
  tile.sdm.blocked = true;
  const SdmCandidates candidates = sdm_candidates(layer, tile);
  for (int d = 0; d < spec::kNumSdmDims; ++d) {
    const auto& list = candidates.blocks[size_t(d)];
    tile.sdm.block[size_t(d)] = list[size_t(pick(list.size()))];
  }
  static const std::vector<spec::SdmOrder> orders = spec::all_sdm_orders();
  tile.sdm.order = orders[size_t(pick(orders.size()))];
}

template <typename Visit>
std::uint64_t for_each_sdm_tile(const spec::Layer& layer, const spec::Hardware& hardware, const spec::Tile& tile,
                                Visit&& visit) {
  using namespace spec;
  const SdmCandidates candidates = sdm_candidates(layer, tile);
  const auto extents = layer_extents(layer);
  Tile mapping = tile;
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
            const std::vector<SdmOrder>& orders = distinct_sdm_orders(sdm_trips(extents, b));
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
