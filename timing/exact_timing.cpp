// The exact model's cycles of a mapping (see exact_timing.hpp).
#include "timing/exact_timing.hpp"

#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"

namespace maeri::timing {

ExactTiming exact_layer_timing(const contracts::Layer& layer, const contracts::Hardware& hardware,
                               const contracts::Mapping& mapping) {
  const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
  // Empty tensors: the plan needs the elements' sources and counts, not their values.
  const MemoryPlan plan = plan_memory(program, hardware, codegen::LayerTensors{});
  const MemoryReplay replay = replay_memory(program, plan, hardware,
                                            hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency,
                                            std::uint64_t(hardware.dram_latency_cycles));
  ExactTiming timing;
  timing.compute_cycles = double(replay_compute(program, plan, hardware));
  timing.cycles = double(replay.cycles);
  timing.memory = replay.memory;
  return timing;
}

}  // namespace maeri::timing
