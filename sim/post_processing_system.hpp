// PostProcessingSystem: the post-processing unit beside the fabric on the fabric's clock (sim/post_processing_unit.hpp
// holds its datapath and timing). Interface, by function call like the memory system's: between clocks the
// controller calls start(job, unit) (inherited) while busy() is false; once attached to the fabric driver
// (FabricDriver::attach) the unit advances one cycle on each rising edge while it is busy, and busy() goes false on
// the edge that completes the job, when output() and counts() hold the result.
#pragma once

#include "sim/clocked_block.hpp"
#include "sim/post_processing_unit.hpp"

namespace maeri::sim {

class PostProcessingSystem : public PostProcessingUnit, public ClockedBlock {
 public:
  void rising_edge() override {
    if (busy()) clock();
  }
};

}  // namespace maeri::sim
