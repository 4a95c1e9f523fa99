// MemoryPlan: what a layer program asks of the SDM and DRAM, event by event in program order (each weight phase,
// then each of its steps): the bytes that must arrive from DRAM before the event may start, how long the SDM
// keeps them, the results each step writes back, and the SDM reads and writes it makes. Built from the same DN
// elements the controller sends, under the residency rule the analytical model uses (contracts/sdm_budget.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/hardware.hpp"
#include "contracts/sdm_budget.hpp"

namespace maeri::sim {

enum class SdmHold {
  UntilUsed,        // weights: freed once they are in the multiplier switches; step data: once the step retires
  UntilSliceEnds,   // resident inputs: kept for every fold and filter tile of their channel slice (two-level
                    // mappings: of their input block's stay); partial sums read with them are freed when used
};

struct MemoryEvent {
  bool weights = false;         // a weight phase's weight beats (false: a step)
  int slice = 0;                // channel slice (index of the phase's c0 among the layer's C tiles)
  std::int64_t read_bytes = 0;  // DRAM -> SDM before the event may start
  std::int64_t held_bytes = 0;  // the part of read_bytes kept until the slice ends (UntilSliceEnds: the inputs)
  std::int64_t fill_elements = 0;  // inputs or weights that read brings into the SDM
  SdmHold hold = SdmHold::UntilUsed;
  std::int64_t sdm_reads = 0;      // elements the DN takes from the SDM (inputs or weights)
  // Steps only.
  std::int64_t staging_bytes = 0;  // every configured VN's result lands in the output buffer
  std::int64_t psum_reads = 0;     // partial sums read back for accumulation (used VNs of later folds)
  std::int64_t output_writes = 0;  // results written into the SDM (used VNs)
  std::int64_t write_bytes = 0;    // results written back to DRAM when the step retires
};

struct MemoryPlan {
  contracts::SdmBudget budget;
  std::vector<MemoryEvent> events;
};

MemoryPlan plan_memory(const codegen::LayerProgram& program, const contracts::Hardware& hardware,
                       const codegen::LayerTensors& tensors);

}  // namespace maeri::sim
