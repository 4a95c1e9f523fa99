// The model's memory timing, replayed event by event: a layer program's weight phases and steps played against the
// same SDM and DRAM rules the co-simulation uses (timing/memory_model.hpp), with the fabric replaced by the model's
// timing of it (docs/model.md, "Cycles": beats of dn_bw elements, fires spaced by the collector's
// ⌈#VN / rn_bw⌉, results a pipeline latency after their fire, a drain before every reconfiguration). Nothing in
// it is fitted to the co-simulation: with the model's nominal parameters its cycles with ideal memory are the
// "Cycles" formula's, and its cycles with DRAM are what a fabric that keeps that timing takes with this memory
// system (docs/model.md, "Memory timing"). Plain C++, linear in the layer's cycles; the co-simulation checks it.
#pragma once

#include <cstdint>

#include "codegen/layer_program.hpp"
#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "timing/memory_model.hpp"
#include "timing/memory_plan.hpp"

namespace maeri::timing {

// The fabric's timing as the model sees it (from the hardware and its model parameters, rounded to whole cycles).
struct FabricTiming {
  std::int64_t dn_bw = 1, rn_bw = 1;
  std::uint64_t configuration_cycles = 1;  // writing one configuration through the config port
  std::uint64_t result_latency = 1;        // from a fire's beat to its first result on the output lanes
  static FabricTiming of(const contracts::Hardware& hardware);
};

struct MemoryReplay {
  std::uint64_t cycles = 0;  // from the first configuration write to the last write into DRAM (as the co-simulation)
  MemoryRun memory;          // the SDM and DRAM counts and the stalls by reason
};

// Cycles with an ideal memory (every element in the SDM when needed); `plan` gives the events' element counts.
std::uint64_t replay_compute(const codegen::LayerProgram& program, const MemoryPlan& plan, const contracts::Hardware& hardware);

// Cycles with the SDM and a DRAM of `dram_bytes_per_cycle` and `dram_latency_cycles` following `plan`: the
// hardware's DRAM device (dram.timing: banks, rows, turnaround, refresh) as the co-simulation has it, or without one
// the model's effective row and turnaround penalties (hardware.model.dram_row_bytes, dram_row_miss, dram_turnaround).
MemoryReplay replay_memory(const codegen::LayerProgram& program, const MemoryPlan& plan, const contracts::Hardware& hardware,
                           double dram_bytes_per_cycle, std::uint64_t dram_latency_cycles);

}  // namespace maeri::timing

namespace maeri::timing {

// Replaces the report's cycles with DRAM (mapper::evaluate's fluid estimate) by the replay of `program` under the
// hardware's DRAM (bandwidth scaled by the model's dram_efficiency): total = compute + the replay's memory stall.
// `tensors` only size the plan (their values do not matter).
void refine_with_memory_replay(contracts::CostReport& report, const codegen::LayerProgram& program,
                               const codegen::LayerTensors& tensors, const contracts::Hardware& hardware);
// The same with the program's memory plan already built (it does not depend on the model parameters).
void refine_with_memory_replay(contracts::CostReport& report, const codegen::LayerProgram& program,
                               const MemoryPlan& plan, const contracts::Hardware& hardware);

// What the memory costs `program` under `plan` in the replay: its cycles with the hardware's DRAM (bandwidth scaled
// by dram_efficiency) beyond the same program with ideal memory.
double replay_memory_stall(const codegen::LayerProgram& program, const MemoryPlan& plan,
                           const contracts::Hardware& hardware);
// The report's cycles with DRAM set to its compute cycles + `stall` (and the compute efficiency that follows): e.g. a
// fused member's, whose stall is the sum over its stripe pieces (each replayed with its plan in the member's role).
void set_memory_stall(contracts::CostReport& report, double stall, const contracts::Hardware& hardware);

}  // namespace maeri::timing
