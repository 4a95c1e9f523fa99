// ClockedBlock: a model beside the fabric that runs on the fabric's clock — the SDM/DRAM memory system and the
// post-processing unit. The fabric driver (sim/fabric_driver.hpp) owns the clock: on every cycle it evaluates the
// Verilated fabric on the rising edge and then calls each attached block's rising_edge(), and likewise for the
// falling edge. The blocks never exchange signals with the fabric within a cycle (the controller talks to both
// between clocks), so the order within an edge does not matter.
#pragma once

namespace maeri::sim {

class ClockedBlock {
 public:
  virtual ~ClockedBlock() = default;
  virtual void rising_edge() {}
  virtual void falling_edge() {}
};

}  // namespace maeri::sim
