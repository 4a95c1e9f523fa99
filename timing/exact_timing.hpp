// The exact model's cycles of a mapping: the layer's program replayed against the SDM / DRAM rules the co-simulation
// follows (timing/memory_replay.hpp; the hardware's DRAM device when it has one), equal to the co-simulation to the
// cycle. One entry point for whoever ranks mappings by it (flow/'s `maeri map`) and for the benchmark; how it is
// computed stays behind it (docs/model.md, "Memory timing"). Pure functions: no state is shared between calls, so
// threads may cost mappings at once.
#pragma once

#include <cstdint>
#include <vector>

#include "contracts/fused_role.hpp"
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

// What exact_layer_timing holds at its peak for `mapping`, in bytes, from the program's weight phases and steps
// (codegen::planned_work: exact, before anything is built): the program, the memory plan's events and the replay's
// per-event and per-transfer tables. An estimate from above, for a caller that bounds the memory of the mappings
// it times at once (flow's exact ranking); saturates at INT64_MAX.
std::int64_t exact_timing_bytes(const contracts::Layer& layer, const contracts::Mapping& mapping);

// The exact timing of a fused group's member in its role (docs/model.md and docs/cosim.md, "Fused groups"): its
// program cut into the group's role.stripes pieces (codegen::stripe_pieces, stripe_program), each piece replayed with
// its plan in the role (plan_role: shared input or output in the SDM, pinned or shared weights) under the group's SDM
// reservation while that stripe runs, `reserved_bytes[min(stripe, size − 1)]` (contracts::PlannedGroup::
// reserved_bytes: one value serves every stripe, two the first stripe and the others). Cycles, compute cycles and counts are the pieces' sums, as testbench/fused_run.cpp
// cross-checks a member against the RTL (its memory stall: the sum of the pieces'). Throws std::invalid_argument
// when the mapping cannot run in that many stripes or a piece's event cannot fit the stream buffer.
ExactTiming exact_member_timing(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                const contracts::Mapping& mapping, const contracts::FusedRole& role,
                                const std::vector<std::int64_t>& reserved_bytes);

}  // namespace maeri::timing
