// MemoryPlan: what a layer program asks of the SDM and DRAM, event by event in program order (each weight phase,
// then each of its steps): the bytes that must arrive from DRAM before the event may start, how long the SDM
// keeps them, the results each step writes back, and the SDM reads and writes it makes. Built from the same DN
// elements the controller sends, under the residency rule the analytical model uses (contracts/sdm_budget.hpp);
// for a piece of a fused member's program (codegen/fused_stripes.hpp), in the member's role (PlanRole).
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/fused_role.hpp"
#include "contracts/hardware.hpp"
#include "contracts/sdm_budget.hpp"

namespace maeri::timing {

enum class SdmHold : std::uint8_t {
  UntilUsed,        // weights: freed once they are in the multiplier switches; step data: once the step retires
  UntilSliceEnds,   // resident inputs: kept for every fold and filter tile of their channel slice (two-level
                    // mappings: of their input block's stay); partial sums read with them are freed when used
};

// (The small fields first: a real layer's plan holds a million events, so their size is the plan's cost.)
struct MemoryEvent {
  bool weights = false;         // a weight phase's weight beats (false: a step)
  SdmHold hold = SdmHold::UntilUsed;
  int slice = 0;                // channel slice (index of the phase's c0 among the layer's C tiles)
  std::int64_t read_bytes = 0;  // DRAM -> SDM before the event may start
  std::int64_t held_bytes = 0;  // the part of read_bytes kept until the slice ends (UntilSliceEnds: the inputs)
  std::int64_t fill_elements = 0;  // inputs or weights that read brings into the SDM
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

// What a fused member's piece leaves out of its DRAM traffic (docs/model.md and docs/cosim.md, "Fused groups"); the
// default is a layer on its own. SDM reads and writes stay what the program makes.
struct PlanRole {
  bool inputs_in_sdm = false;   // a shared input, left in the SDM by its producer: no input fills from DRAM
  bool weights_in_sdm = false;  // pinned weights after the group's first stripe: no weight fills
  bool output_in_sdm = false;   // a shared output, kept in the SDM for the group: no final writes to DRAM
  // The group's reservation while the member runs (its shared tensors live then and its pinned weights): the stream
  // buffer is what the output buffer and the reservation leave of the SDM.
  std::int64_t reserved_bytes = 0;
};

// The plan role of stripe `stripe` (0 … role.stripes − 1) of a member in `role`, with the group's reservation then.
PlanRole plan_role(const contracts::FusedRole& role, std::int64_t stripe, std::int64_t reserved_bytes);

// The plan needs the program's steps (codegen::PlanDetail::Steps) and each step's and phase's element counts and
// sources, never their values, and it is counted per phase, not per element (docs/model.md, "Memory timing"): each
// kind of step and of phase is counted once (step_counts.hpp), the fills per channel history (input_fills.hpp), the
// output tiles' visits per phase, and a phase whose kind and rule an earlier phase had copies that phase's events.
MemoryPlan plan_memory(const codegen::LayerProgram& program, const contracts::Hardware& hardware,
                       const PlanRole& role = {});
// The same into `plan`, whose events' storage is reused (what is in it is replaced): a caller timing many mappings on
// one thread keeps one plan, so a large layer's events are not allocated and faulted in again for every mapping.
void plan_memory_into(MemoryPlan& plan, const codegen::LayerProgram& program, const contracts::Hardware& hardware,
                      const PlanRole& role = {});
// The same; `tensors` are not read (the callers that hold a run's tensors).
MemoryPlan plan_memory(const codegen::LayerProgram& program, const contracts::Hardware& hardware,
                       const codegen::LayerTensors& tensors, const PlanRole& role = {});

}  // namespace maeri::timing
