// Test fixture for the RTL tests and the benchmark: a hardware description matching a fabric driver's Verilated
// model, for tests that build programs for that driver directly instead of loading a hardware YAML.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::tests {

// The driver's sizes and widths, with a 1 MiB SDM, 64 B/cycle DRAM of 100 cycles latency, a 200 MHz clock and a
// zero energy table.
template <class Driver>
contracts::Hardware fabric_hardware(const std::string& name) {
  contracts::Hardware hardware;
  hardware.name = name;
  hardware.num_ms = Driver::kNumMs;
  hardware.dn_bw = Driver::kDnBw;
  hardware.rn_bw = Driver::kRnBw;
  hardware.data_width = Driver::kDataW;
  hardware.acc_width = Driver::kAccW;
  hardware.config_bw = Driver::kConfigBw;
  hardware.sdm_bytes = 1 << 20;
  hardware.dram_bytes_per_cycle = 64;
  hardware.dram_latency_cycles = 100;
  hardware.clock_mhz = 200;
  return hardware;
}

// A random legal tile: each T_d uniform in 1..min(extent, largest), resampled until Eq. 1 holds.
inline contracts::Mapping random_small_tile(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                            std::mt19937_64& rng, std::int64_t largest = 8) {
  const auto extents = contracts::layer_extents(layer);
  contracts::Mapping tile;
  do {
    for (int d = 0; d < contracts::kNumTileDims; ++d)
      tile[d] = 1 + std::int64_t(rng() % uint64_t(std::min<std::int64_t>(extents[size_t(d)], largest)));
  } while (contracts::mapping_violation(layer, hardware, tile));
  return tile;
}

}  // namespace maeri::tests
