// The exact model's cycles of a mapping: the layer's program replayed against the SDM / DRAM rules the co-simulation
// follows (timing/memory_replay.hpp), equal to the co-simulation to the cycle. One entry point for whoever ranks
// mappings by it (flow/'s `maeri map`) and for the benchmark; how it is computed stays behind it.
#pragma once

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"
#include "timing/memory_model.hpp"

namespace maeri::timing {

struct ExactTiming {
  double compute_cycles = 0;  // with an ideal memory (every element in the SDM when needed)
  double cycles = 0;          // with the hardware's SDM and DRAM (bandwidth scaled by model.dram_efficiency)
  MemoryRun memory;           // the SDM and DRAM counts and the stalls by reason, in the run with DRAM
  // What the memory costs beyond ideal memory: the CostReport's memory_stall (set_memory_stall), as
  // refine_with_memory_replay sets it.
  double memory_stall() const { return cycles - compute_cycles; }
};

// The exact timing of `layer` on `hardware` under `mapping` (a legal mapping; throws std::invalid_argument otherwise,
// or when one event's data cannot fit the SDM's stream buffer). With the model's nominal parameters (integer
// latencies) compute_cycles equals mapper::evaluate's compute cycles, so `cycles` is the refined report's total.
ExactTiming exact_layer_timing(const contracts::Layer& layer, const contracts::Hardware& hardware,
                               const contracts::Mapping& mapping);

}  // namespace maeri::timing
