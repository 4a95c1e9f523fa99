// The exact model's cycles of a mapping (see exact_timing.hpp).
#include "timing/exact_timing.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <stdexcept>

#include "codegen/fused_stripes.hpp"
#include "codegen/layer_program.hpp"
#include "codegen/planned_image.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"

namespace maeri::timing {

namespace {

// The plan each thread builds its mappings' plans in: its events' storage is reused from mapping to mapping (a
// large layer's plan is tens of MB; allocated afresh, the kernel zeroes every page of it again for each mapping).
// What the threads keep between mappings is bounded for the whole process, however many threads a machine has:
// past kRetainedPlanBytes a thread frees its plan's storage after each use.
constexpr std::size_t kRetainedPlanBytes = std::size_t(256) << 20;
std::atomic<std::size_t> retained_plan_bytes{0};

class ThreadPlan {
 public:
  ~ThreadPlan() { retained_plan_bytes -= kept_; }
  MemoryPlan& plan() { return plan_; }
  // After a use: keep the storage if the process-wide bound allows it, else free it.
  void settle() {
    const std::size_t bytes = plan_.events.capacity() * sizeof(MemoryEvent);
    if (bytes == kept_) return;
    retained_plan_bytes -= kept_;
    kept_ = 0;
    if (retained_plan_bytes.fetch_add(bytes) + bytes <= kRetainedPlanBytes) {
      kept_ = bytes;
    } else {
      retained_plan_bytes -= bytes;
      std::vector<MemoryEvent>().swap(plan_.events);
    }
  }

 private:
  MemoryPlan plan_;
  std::size_t kept_ = 0;
};

// One use of the thread's plan, settled however the use ends (a mapping whose event cannot fit the stream buffer
// throws).
class PlanUse {
 public:
  PlanUse() {
    thread_local ThreadPlan owner;
    owner_ = &owner;
  }
  ~PlanUse() { owner_->settle(); }
  PlanUse(const PlanUse&) = delete;
  PlanUse& operator=(const PlanUse&) = delete;
  MemoryPlan& plan() { return owner_->plan(); }

 private:
  ThreadPlan* owner_ = nullptr;
};

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
  PlanUse use;
  plan_memory_into(use.plan(), program, hardware);
  return program_timing(program, use.plan(), hardware);
}

std::int64_t exact_timing_bytes(const contracts::Layer& layer, const contracts::Mapping& mapping) {
  const codegen::ImageWork work = codegen::planned_work(layer, mapping);
  // Per weight phase: the program's phase and its step list's allocation; per event (each phase and each step): the
  // plan's event, the memory model's ticket and the DRAM channel's done cycle; per step: its origin in the program.
  constexpr long double kAllocation = 16;
  const long double per_event = sizeof(MemoryEvent) + 2 * sizeof(std::uint64_t);
  const long double bytes = (long double)(work.weight_phases) * (sizeof(codegen::WeightPhase) + kAllocation + per_event) +
                            (long double)(work.steps) * (sizeof(codegen::StepOrigin) + per_event);
  return bytes >= (long double)(std::numeric_limits<std::int64_t>::max()) ? std::numeric_limits<std::int64_t>::max()
                                                                        : std::int64_t(bytes);
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
    PlanUse use;
    plan_memory_into(use.plan(), part, hardware, plan_role(role, piece.index, reserved));
    const ExactTiming timing = program_timing(part, use.plan(), hardware);
    sum.memory = piece.index == 0 ? timing.memory : sum_memory(sum.memory, timing.memory);
    sum.compute_cycles += timing.compute_cycles;
    sum.cycles += timing.cycles;
  }
  return sum;
}

}  // namespace maeri::timing
