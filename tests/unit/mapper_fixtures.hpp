// Small layers and hardware descriptions shared by the mapper tests (values chosen so results can be
// worked by hand).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"

namespace maeri::test {

inline contracts::Hardware small_hardware(std::int64_t num_ms, std::int64_t dn_bw, std::int64_t rn_bw) {
  contracts::Hardware hardware;
  hardware.name = "test";
  hardware.num_ms = num_ms;
  hardware.dn_bw = dn_bw;
  hardware.rn_bw = rn_bw;
  hardware.data_width = 16;
  hardware.acc_width = 32;
  hardware.sdm_bytes = 1024;
  hardware.dram_bytes_per_cycle = 4;
  hardware.dram_latency_cycles = 10;
  hardware.clock_mhz = 200;
  hardware.energy_pj = {0.8, 0.1, 0.15, 0.05, 0.3, 0.05, 5, 5, 160};
  return hardware;
}

// Random hardware around a layer for the timing property tests: 8-64 MS, bandwidths, an SDM of smallest_sdm_bytes
// times 1…16 (small ones make DRAM stalls), a DRAM rate that is whole, a binary fraction, or a decimal one scaled by
// an efficiency (as calibrated hardware has), a latency.
inline contracts::Hardware random_channel_hardware(std::mt19937_64& rng, std::int64_t smallest_sdm_bytes) {
  const std::int64_t num_ms = 8 << (rng() % 4);
  contracts::Hardware hardware = small_hardware(num_ms, std::min<std::int64_t>(num_ms, 1 << (rng() % 4)),
                                                std::min<std::int64_t>(num_ms, 1 << (rng() % 4)));
  hardware.sdm_bytes = smallest_sdm_bytes << (rng() % 5);
  const int rate_kind = int(rng() % 3);
  hardware.dram_bytes_per_cycle = rate_kind == 0   ? double(1 + rng() % 16)
                                  : rate_kind == 1 ? 0.25 * double(1 + rng() % 40)
                                                   : 0.1 * double(1 + rng() % 90);
  if (rng() % 3 == 0) hardware.model.dram_efficiency = 0.5 + 0.01 * double(rng() % 50);
  hardware.dram_latency_cycles = std::int64_t(rng() % 40);
  return hardware;
}

inline contracts::Layer conv_layer(std::int64_t K, std::int64_t C, std::int64_t R, std::int64_t S, std::int64_t X,
                                std::int64_t Y, std::int64_t stride = 1, std::int64_t padding = 0,
                                std::int64_t N = 1) {
  contracts::Layer layer;
  layer.name = "test";
  layer.N = N;
  layer.K = K;
  layer.C = C;
  layer.R = R;
  layer.S = S;
  layer.X = X;
  layer.Y = Y;
  layer.stride_x = layer.stride_y = stride;
  layer.padding_x = layer.padding_y = padding;
  return layer;
}

// A GEMM M×K by K×N with `batch` products (contracts::gemm_layer), named like conv_layer's layers.
inline contracts::Layer gemm_layer(std::int64_t M, std::int64_t K, std::int64_t N, std::int64_t batch = 1) {
  contracts::Layer layer = contracts::gemm_layer(batch, M, K, N);
  layer.name = "test";
  return layer;
}

inline contracts::Layer fc_layer(std::int64_t K, std::int64_t C) {
  contracts::Layer layer = conv_layer(K, C, 1, 1, 1, 1);
  layer.type = contracts::LayerType::FullyConnected;
  return layer;
}

}  // namespace maeri::test
