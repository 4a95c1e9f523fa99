// Random legal mappings of a layer for property tests: every fabric tile dimension drawn uniformly up to its
// extent until the tile fits the multiplier switches, then a random SDM level (mapper::pick_sdm_level) and phase
// order.
#pragma once

#include <cstdint>
#include <random>

#include "contracts/layer.hpp"
#include "contracts/phase_order.hpp"
#include "contracts/tile.hpp"
#include "mapper/mapspace/sdm_space.hpp"

namespace maeri::test {

inline contracts::Mapping random_mapping(const contracts::Layer& layer, std::int64_t num_ms, std::mt19937& random) {
  using namespace contracts;
  const auto extents = layer_extents(layer);
  const auto pick = [&](std::int64_t high) { return std::uniform_int_distribution<std::int64_t>(1, high)(random); };
  Mapping tile;
  do {
    for (int d = 0; d < kNumTileDims; ++d) tile[d] = pick(extents[size_t(d)]);
  } while (tile.mapped_ms() > num_ms);
  mapper::pick_sdm_level(layer, tile, [&](std::size_t n) { return std::size_t(pick(std::int64_t(n)) - 1); });
  tile.phase_order = kPhaseOrders[size_t(pick(2) - 1)];
  return tile;
}

}  // namespace maeri::test
