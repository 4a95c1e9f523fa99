// The exact model's cycles of a mapping (see exact_timing.hpp).
#include "timing/exact_timing.hpp"

#include <algorithm>
#include <stdexcept>

#include "codegen/fused_stripes.hpp"
#include "codegen/layer_program.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"

namespace maeri::timing {

namespace {

// The plan each thread builds its mappings' plans in: its events' storage is reused from mapping to mapping (a
// large layer's plan is tens of MB; allocated afresh, the kernel zeroes every page of it again for each mapping).
MemoryPlan& thread_plan() {
  thread_local MemoryPlan plan;
  return plan;
}

// The timing of one program (a whole layer's or a stripe piece's) under its plan.
ExactTiming program_timing(const codegen::LayerProgram& program, const MemoryPlan& plan,
                           const contracts::Hardware& hardware) {
  const MemoryReplay replay = replay_memory(program, plan, hardware,
                                            hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency,
                                            std::uint64_t(hardware.dram_latency_cycles));
  ExactTiming timing;
  timing.compute_cycles = double(replay_compute(program, plan, hardware));
  timing.cycles = double(replay.cycles);
  timing.memory = replay.memory;
  return timing;
}

}  // namespace

ExactTiming exact_layer_timing(const contracts::Layer& layer, const contracts::Hardware& hardware,
                               const contracts::Mapping& mapping) {
  const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
  MemoryPlan& plan = thread_plan();
  plan_memory_into(plan, program, hardware);
  return program_timing(program, plan, hardware);
}

ExactTiming exact_member_timing(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                const contracts::Mapping& mapping, const contracts::FusedRole& role,
                                const std::vector<std::int64_t>& reserved_bytes) {
  if (reserved_bytes.empty()) throw std::invalid_argument("exact_member_timing: no reservation given");
  const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
  ExactTiming sum;
  for (const codegen::StripePiece& piece :
       codegen::stripe_pieces(layer, mapping, role.stripes, role.token_stripes, role.query_rows)) {
    const codegen::LayerProgram part = codegen::stripe_program(program, piece);
    const std::int64_t reserved = reserved_bytes[std::min(std::size_t(piece.index), reserved_bytes.size() - 1)];
    MemoryPlan& plan = thread_plan();
    plan_memory_into(plan, part, hardware, plan_role(role, piece.index, reserved));
    const ExactTiming timing = program_timing(part, plan, hardware);
    sum.memory = piece.index == 0 ? timing.memory : sum_memory(sum.memory, timing.memory);
    sum.compute_cycles += timing.compute_cycles;
    sum.cycles += timing.cycles;
  }
  return sum;
}

}  // namespace maeri::timing
