// One mapping timed by today's memory replay (see exact_timing_adapter.hpp): the program, its memory plan (sized by
// seeded tensors, whose values do not matter), the replay with ideal memory and with the hardware's DRAM.
#include "flow/exact_timing_adapter.hpp"

#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"

namespace maeri::flow {

ExactTiming exact_layer_timing(const contracts::Layer& layer, const contracts::Hardware& hardware,
                               const contracts::Mapping& mapping) {
  const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
  const timing::MemoryPlan plan =
      timing::plan_memory(program, hardware, codegen::random_tensors(layer, hardware.data_width, 1));
  const timing::MemoryReplay replay =
      timing::replay_memory(program, plan, hardware, hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency,
                            std::uint64_t(hardware.dram_latency_cycles));
  return {double(timing::replay_compute(program, plan, hardware)), double(replay.cycles), replay.memory};
}

}  // namespace maeri::flow
