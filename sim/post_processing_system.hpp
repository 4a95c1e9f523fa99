// PostProcessingSystem: the SystemC shell of the post-processing unit beside the fabric (sim/post_processing_unit.hpp
// holds its datapath and timing). Interface, by function call like the memory system's: between clocks the
// controller calls start(job, unit) (inherited) while `busy` is false; the unit advances one cycle on each rising
// edge of `clk`; `busy_out` (for waveforms and for processes that wait on it) holds busy() after each edge it worked
// on, so it goes false on the edge that completes the job, when `done` is notified and output() and counts() hold
// the result (busy() itself is true from start() on).
#pragma once

#include <systemc>

#include "sim/post_processing_unit.hpp"

namespace maeri::sim {

class PostProcessingSystem : public sc_core::sc_module, public PostProcessingUnit {
 public:
  sc_core::sc_in<bool> clk;
  sc_core::sc_out<bool> busy_out;
  sc_core::sc_event done;

  SC_HAS_PROCESS(PostProcessingSystem);
  explicit PostProcessingSystem(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), clk("clk"), busy_out("busy_out") {
    SC_METHOD(on_rising_edge);
    sensitive << clk.pos();
    dont_initialize();
  }

 private:
  void on_rising_edge() {
    if (!busy()) return;
    clock();
    busy_out.write(busy());
    if (!busy()) done.notify(sc_core::SC_ZERO_TIME);
  }
};

}  // namespace maeri::sim
