// Random small layers of the kinds real networks add to plain convolutions, for the functional-model and
// co-simulation regressions: grouped and depthwise convolutions, dilation, stride and padding that differ per
// axis, and GEMMs (batched or not). Small enough that a case co-simulates in milliseconds on 8-64 MS.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>

#include "contracts/layer.hpp"

namespace maeri::test {

inline contracts::Layer random_layer_of_new_kind(std::mt19937_64& rng) {
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
  layer.C = layer.groups * (depthwise ? 1 : pick(1, 3));
  layer.K = layer.groups * (depthwise ? pick(1, 2) : pick(1, 3));
  layer.R = pick(1, 3);
  layer.S = pick(1, 3);
  layer.dilation_x = pick(1, 3);
  layer.dilation_y = pick(1, 2);
  layer.stride_x = pick(1, 3);
  layer.stride_y = pick(1, 2);
  layer.padding_x = pick(0, 1);
  layer.padding_y = pick(0, 1);
  layer.X = std::max<std::int64_t>(1, layer.filter_span_x() - 2 * layer.padding_x) + pick(0, 5);
  layer.Y = std::max<std::int64_t>(1, layer.filter_span_y() - 2 * layer.padding_y) + pick(0, 5);
  return layer;
}

}  // namespace maeri::test
