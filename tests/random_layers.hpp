// Random small layers of the kinds real networks add to plain convolutions, for the functional-model and
// co-simulation regressions: grouped and depthwise convolutions, dilation, stride and padding that differ per
// axis, and GEMMs (batched or not). Small enough that a case co-simulates in milliseconds on 8-64 MS.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::test {

// The largest sizes random_layer_of_new_kind draws; the defaults keep each case small enough to co-simulate quickly.
struct RandomLayerSizes {
  std::int64_t channels_per_group = 3, filters_per_group = 3;  // non-depthwise C and K per group: 1 … these
  std::int64_t filter = 3;       // R and S: 1 … this
  std::int64_t extra_side = 5;   // X and Y: the filter's span less the padding, plus 0 … this
};

inline contracts::Layer random_layer_of_new_kind(std::mt19937_64& rng, const RandomLayerSizes& sizes = {}) {
  const auto pick = [&rng](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(rng() % std::uint64_t(hi - lo + 1)); };
  contracts::Layer layer;
  layer.name = "random";
  layer.N = pick(1, 2);
  if (rng() % 5 == 0) {  // GEMM M×K by K×N
    const std::int64_t m = pick(1, 9), k = pick(1, 20);
    contracts::Layer gemm = contracts::gemm_layer(layer.N, m, k, pick(1, 12));
    gemm.name = layer.name;
    return gemm;
  }
  layer.groups = pick(1, 4);
  const bool depthwise = rng() % 3 == 0;
  layer.C = layer.groups * (depthwise ? 1 : pick(1, sizes.channels_per_group));
  layer.K = layer.groups * (depthwise ? pick(1, 2) : pick(1, sizes.filters_per_group));
  layer.R = pick(1, sizes.filter);
  layer.S = pick(1, sizes.filter);
  layer.dilation_x = pick(1, 3);
  layer.dilation_y = pick(1, 2);
  layer.stride_x = pick(1, 3);
  layer.stride_y = pick(1, 2);
  layer.padding_x = pick(0, 1);
  layer.padding_y = pick(0, 1);
  layer.X = std::max<std::int64_t>(1, layer.filter_span_x() - 2 * layer.padding_x) + pick(0, sizes.extra_side);
  layer.Y = std::max<std::int64_t>(1, layer.filter_span_y() - 2 * layer.padding_y) + pick(0, sizes.extra_side);
  return layer;
}

// A random grouped layer (groups >= 2) and a random divisor of its groups, at least `min_side_by_side` and at most
// num_ms, to put side by side (T_G); the tile's other sizes then share the num_ms / T_G switches each group gets.
struct GroupedCase {
  contracts::Layer layer;
  std::int64_t side_by_side = 1;
  std::int64_t switches_per_group = 1;
};
inline GroupedCase random_grouped_case(std::int64_t num_ms, std::int64_t min_side_by_side, std::mt19937_64& rng) {
  GroupedCase grouped;
  do grouped.layer = random_layer_of_new_kind(rng);
  while (grouped.layer.groups < 2);
  std::vector<std::int64_t> divisors;
  for (std::int64_t d = min_side_by_side; d <= grouped.layer.groups; ++d)
    if (grouped.layer.groups % d == 0 && d <= num_ms) divisors.push_back(d);
  grouped.side_by_side = divisors[rng() % divisors.size()];
  grouped.switches_per_group = num_ms / grouped.side_by_side;
  return grouped;
}

// A legal single-level tile of `layer` on `hardware`: every dimension drawn uniformly from 1 … min(extent, 8), drawn
// again until contracts::mapping_violation accepts it.
inline contracts::Mapping random_small_tile(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                           std::mt19937_64& rng) {
  const auto extents = contracts::layer_extents(layer);
  contracts::Mapping tile;
  do {
    for (int d = 0; d < contracts::kNumTileDims; ++d)
      tile[d] = 1 + std::int64_t(rng() % std::uint64_t(std::min<std::int64_t>(extents[std::size_t(d)], 8)));
  } while (contracts::mapping_violation(layer, hardware, tile));
  return tile;
}

}  // namespace maeri::test
