// The model's memory replay as it was before it jumped over quiet clocks (timing/memory_replay.cpp until issue 45):
// the controller of sim/layer_runner.hpp played clock by clock, every DRAM and SDM clock taken, against the SDM and
// DRAM rules as they were then (reference_memory_model.hpp, a frozen copy of timing::MemoryModel and DramChannel).
// The tests hold the fast replay (and timing::exact_layer_timing) equal to it, cycle
// for cycle and counter for counter. Test-only: nothing in the toolkit calls it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>

#include "codegen/layer_program.hpp"
#include "contracts/hardware.hpp"
#include "timing/memory_model.hpp"
#include "reference_memory_model.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"
#include "util/integer_math.hpp"

namespace maeri::test::reference {

using timing::FabricTiming;
using timing::MemoryPlan;

// The controller of sim/layer_runner.hpp, clock by clock, with the fabric reduced to its timing.
class Replayer {
 public:
  // The plan gives each event's element count (weights, or a step's inputs); `memory` may be null (ideal memory).
  Replayer(const codegen::LayerProgram& program, const MemoryPlan& plan, const FabricTiming& timing, MemoryModel* memory)
      : program_(program), plan_(plan), timing_(timing), memory_(memory) {}

  std::uint64_t play() {
    int active = -1;
    std::size_t event = 0;
    std::int64_t fire_spacing = 1;
    for (const codegen::WeightPhase& phase : program_.phases) {
      const codegen::PhaseConfiguration& configuration = program_.configurations[std::size_t(phase.configuration)];
      if (phase.configuration != active) {
        drain();
        for (std::uint64_t c = 0; c < timing_.configuration_cycles; ++c) tick();
        active = phase.configuration;
        fire_spacing = std::max<std::int64_t>(1, util::ceil_div(configuration.placement.shape.vn_count(), timing_.rn_bw));
      }
      const std::size_t weight_event = event++;
      if (memory_) {
        await([&] { return memory_->data_ready(weight_event); }, MemoryModel::Wait::Data);
        memory_->begin(weight_event);
      }
      for (std::int64_t beat = 0; beat < beats(weight_event); ++beat) tick();
      if (memory_) memory_->weights_sent(weight_event);
      for (std::size_t step = 0; step < phase.steps.size(); ++step) {
        const std::size_t step_event = event++;
        if (memory_) {
          await([&] { return memory_->data_ready(step_event); }, MemoryModel::Wait::Data);
          await([&] { return memory_->output_room(step_event); }, MemoryModel::Wait::OutputRoom);
          memory_->begin(step_event);
        }
        // The fire rides on the last beat, which also exists when the step sends nothing (all operands forwarded).
        for (std::int64_t beat = 1; beat < beats(step_event); ++beat) tick();
        // The fire beat waits until the collector has had fire_spacing cycles for the previous step's results.
        if (fired_)
          while (clock_ + 1 < last_fire_ + std::uint64_t(fire_spacing)) tick();
        tick();
        fired_ = true;
        last_fire_ = clock_;
        pending_.push_back({clock_ + timing_.result_latency + std::uint64_t(fire_spacing) - 2, step_event});
      }
    }
    drain();
    if (memory_) await([&] { return memory_->drained(); }, MemoryModel::Wait::Drain);
    return clock_;
  }

 private:
  std::int64_t beats(std::size_t event) const { return util::ceil_div(plan_.events[event].sdm_reads, timing_.dn_bw); }

  void tick() {
    if (memory_) {
      memory_->dram.clock();
      memory_->clock_sdm();
    }
    ++clock_;
    while (!pending_.empty() && pending_.front().retire <= clock_) {
      if (memory_) memory_->step_retired(pending_.front().event);
      busy_until_ = pending_.front().retire + 1;
      pending_.pop_front();
    }
  }

  // The fabric is idle once the last results have left the output lanes.
  void drain() {
    while (!pending_.empty() || clock_ < busy_until_) tick();
  }

  template <class Condition>
  void await(Condition condition, MemoryModel::Wait reason) {
    while (!condition()) {
      tick();
      memory_->count_stall(reason);
    }
  }

  struct Pending {
    std::uint64_t retire;  // the clock that captures the step's last result
    std::size_t event;
  };
  const codegen::LayerProgram& program_;
  const MemoryPlan& plan_;
  FabricTiming timing_;
  MemoryModel* memory_;
  std::uint64_t clock_ = 0, last_fire_ = 0, busy_until_ = 0;
  bool fired_ = false;
  std::deque<Pending> pending_;
};

inline std::uint64_t replay_compute(const codegen::LayerProgram& program, const MemoryPlan& plan,
                                    const contracts::Hardware& hardware) {
  return Replayer(program, plan, FabricTiming::of(hardware), nullptr).play();
}

// The hardware's DRAM device (dram.timing) when it has one, else the model's effective penalties (hardware.model).
inline timing::MemoryReplay replay_memory(const codegen::LayerProgram& program, const MemoryPlan& plan,
                                          const contracts::Hardware& hardware, double dram_bytes_per_cycle,
                                          std::uint64_t dram_latency_cycles) {
  std::optional<timing::DramDeviceCycles> device;
  if (hardware.dram_device) device = timing::DramDeviceCycles::of(*hardware.dram_device, hardware.clock_mhz);
  MemoryModel memory;
  const contracts::ModelParameters& p = hardware.model;
  memory.start(plan, dram_bytes_per_cycle, dram_latency_cycles, device,
               {p.dram_row_bytes, p.dram_row_miss, p.dram_turnaround});
  timing::MemoryReplay replay;
  replay.cycles = Replayer(program, plan, FabricTiming::of(hardware), &memory).play();
  replay.memory = memory.run();
  return replay;
}

}  // namespace maeri::test::reference
