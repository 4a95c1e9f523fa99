// MemorySystem: the co-simulation's SDM and DRAM on the fabric's clock (timing/memory_model.hpp holds the rules): the
// DRAM moves on the rising edge, the prefetcher and write retirement run on the falling edge (the fabric driver
// clocks it once attached: FabricDriver::attach), and the controller (LayerRunner) calls the model's methods
// between clocks.
#pragma once

#include "sim/clocked_block.hpp"
#include "timing/memory_model.hpp"

namespace maeri::sim {

class MemorySystem : public timing::MemoryModel, public ClockedBlock {
 public:
  void rising_edge() override { dram.clock(); }
  void falling_edge() override { clock_sdm(); }
};

}  // namespace maeri::sim
