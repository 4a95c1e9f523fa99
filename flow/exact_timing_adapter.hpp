// The exact model's entry point as flow/ calls it: one mapping of one layer timed by timing/'s memory replay, equal
// to the co-simulation to the cycle. Stands in for timing/exact_timing.hpp (the same struct and signature) until that
// header exists; then this file only names it.
#pragma once

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"
#include "timing/memory_model.hpp"

namespace maeri::flow {

struct ExactTiming {
  double compute_cycles = 0;  // the replay with ideal memory
  double cycles = 0;          // the replay with the hardware's SDM and DRAM (bandwidth scaled by dram_efficiency)
  timing::MemoryRun memory;
};

ExactTiming exact_layer_timing(const contracts::Layer& layer, const contracts::Hardware& hardware,
                               const contracts::Mapping& mapping);

}  // namespace maeri::flow
