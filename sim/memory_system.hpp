// MemorySystem: the SystemC shell of the co-simulation's SDM and DRAM (sim/memory_model.hpp holds the rules): the
// DRAM moves on the fabric clock's rising edge, the prefetcher and write retirement run on the falling edge, and
// the controller (LayerRunner) calls the model's methods between clocks.
#pragma once

#include <systemc>

#include "sim/memory_model.hpp"

namespace maeri::sim {

class MemorySystem : public sc_core::sc_module, public MemoryModel {
 public:
  sc_core::sc_in<bool> clk;

  SC_HAS_PROCESS(MemorySystem);
  explicit MemorySystem(const sc_core::sc_module_name& name) : sc_core::sc_module(name), clk("clk") {
    SC_METHOD(on_rising_edge);
    sensitive << clk.pos();
    dont_initialize();
    SC_METHOD(on_falling_edge);
    sensitive << clk.neg();
    dont_initialize();
  }

 private:
  void on_rising_edge() { dram.clock(); }
  void on_falling_edge() { clock_sdm(); }
};

}  // namespace maeri::sim
