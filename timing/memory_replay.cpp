// The event-by-event memory replay (see memory_replay.hpp and docs/model.md, "Memory timing").
#include "timing/memory_replay.hpp"

#include <cmath>
#include <algorithm>
#include <deque>
#include <limits>
#include <optional>

#include "contracts/config_bus.hpp"
#include "util/integer_math.hpp"

namespace maeri::timing {

FabricTiming FabricTiming::of(const contracts::Hardware& hardware) {
  FabricTiming timing;
  timing.dn_bw = hardware.dn_bw;
  timing.rn_bw = hardware.rn_bw;
  timing.configuration_cycles = std::uint64_t(std::ceil(double(contracts::configuration_words(hardware.num_ms, hardware.config_bw)) /
                                                        hardware.model.config_words_per_cycle));
  timing.result_latency = std::uint64_t(std::llround(contracts::pipeline_latency(hardware)));
  return timing;
}

namespace {

// The controller of sim/layer_runner.hpp, clock by clock, with the fabric reduced to its timing. Clocks where nothing
// but the DRAM's motion happens — no result retires, no transfer finishes or completes, the prefetcher waits — are
// jumped over in one step (MemoryModel::quiet_clocks, skip): the same state and counts as clocking through them.
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
        advance(timing_.configuration_cycles);
        active = phase.configuration;
        fire_spacing = std::max<std::int64_t>(1, util::ceil_div(configuration.placement.shape.vn_count(), timing_.rn_bw));
      }
      const std::size_t weight_event = event++;
      if (memory_) {
        await([&] { return memory_->data_ready(weight_event); }, MemoryModel::Wait::Data);
        memory_->begin(weight_event);
      }
      advance(std::uint64_t(beats(weight_event)));
      if (memory_) memory_->weights_sent(weight_event);
      for (std::size_t step = 0; step < phase.steps.size(); ++step) play_step(event++, fire_spacing);
    }
    drain();
    if (memory_) await([&] { return memory_->drained(); }, MemoryModel::Wait::Drain);
    return clock_;
  }

 private:
  std::int64_t beats(std::size_t event) const { return util::ceil_div(plan_.events[event].sdm_reads, timing_.dn_bw); }

  void play_step(std::size_t step_event, std::int64_t fire_spacing) {
    if (memory_) {
      await([&] { return memory_->data_ready(step_event); }, MemoryModel::Wait::Data);
      await([&] { return memory_->output_room(step_event); }, MemoryModel::Wait::OutputRoom);
      memory_->begin(step_event);
    }
    // The fire rides on the last beat, which also exists when the step sends nothing (all operands forwarded).
    advance(std::uint64_t(std::max<std::int64_t>(0, beats(step_event) - 1)));
    // The fire beat waits until the collector has had fire_spacing cycles for the previous step's results.
    if (fired_ && clock_ + 1 < last_fire_ + std::uint64_t(fire_spacing))
      advance(last_fire_ + std::uint64_t(fire_spacing) - 1 - clock_);
    tick();
    fired_ = true;
    last_fire_ = clock_;
    pending_.push_back({clock_ + timing_.result_latency + std::uint64_t(fire_spacing) - 2, step_event});
  }

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

  // How many of the next clocks change nothing the controller or the memory could see (up to `wanted`).
  std::uint64_t quiet(std::uint64_t wanted) {
    if (!pending_.empty()) {
      if (pending_.front().retire <= clock_ + 1) return 0;
      wanted = std::min(wanted, pending_.front().retire - clock_ - 1);
    }
    return memory_ ? std::min(wanted, memory_->quiet_clocks()) : wanted;
  }

  void skip(std::uint64_t clocks) {
    if (memory_) memory_->skip(clocks);
    clock_ += clocks;
  }

  // `clocks` clocks, jumping over the quiet ones (a clock or two are cheaper to take than to ask about).
  void advance(std::uint64_t clocks) {
    for (; clocks > 0 && clocks <= 2; --clocks) tick();
    while (clocks > 0) {
      const std::uint64_t jump = quiet(clocks);
      if (jump == 0) {
        tick();
        --clocks;
      } else {
        skip(jump);
        clocks -= jump;
      }
    }
  }

  // The fabric is idle once the last results have left the output lanes.
  void drain() {
    while (!pending_.empty()) advance(pending_.front().retire - clock_);
    if (clock_ < busy_until_) advance(busy_until_ - clock_);
  }

  template <class Condition>
  void await(Condition condition, MemoryModel::Wait reason) {
    while (!condition()) {
      const std::uint64_t jump = std::max<std::uint64_t>(1, quiet(std::numeric_limits<std::uint64_t>::max()));
      if (jump == 1) tick();
      else skip(jump);
      memory_->count_stalls(reason, jump);
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

}  // namespace

namespace {

// The Replayer's clock with an ideal memory, without its machinery: nothing waits, so each advance moves the clock by
// its length; a step fires max(its beats, 1) clocks after the previous event ends, or fire_spacing after the previous
// fire; a drain ends a clock after the last result retires (retires come in fire order: one configuration's steps share
// its spacing and the latency). Equal to Replayer::play() whenever the result latency is at least 2 cycles (a pipeline
// always is; else the Replayer is asked).
std::uint64_t ideal_clocks(const codegen::LayerProgram& program, const MemoryPlan& plan, const FabricTiming& timing) {
  std::uint64_t clock = 0, last_fire = 0, busy_until = 0;
  bool fired = false;
  int active = -1;
  std::size_t event = 0;
  std::uint64_t fire_spacing = 1;
  const auto beats = [&](std::size_t e) { return std::uint64_t(util::ceil_div(plan.events[e].sdm_reads, timing.dn_bw)); };
  for (const codegen::WeightPhase& phase : program.phases) {
    if (phase.configuration != active) {
      clock = std::max(clock, busy_until);  // drain
      clock += timing.configuration_cycles;
      active = phase.configuration;
      const codegen::PhaseConfiguration& configuration = program.configurations[std::size_t(phase.configuration)];
      fire_spacing = std::uint64_t(std::max<std::int64_t>(1, util::ceil_div(configuration.placement.shape.vn_count(), timing.rn_bw)));
    }
    clock += beats(event++);
    const std::uint64_t retire_after = timing.result_latency + fire_spacing - 1;  // a fire's retire clock + 1
    for (std::size_t step = 0; step < phase.steps.size(); ++step) {
      clock += std::max<std::uint64_t>(1, beats(event++));
      if (fired && clock < last_fire + fire_spacing) clock = last_fire + fire_spacing;
      fired = true;
      last_fire = clock;
      busy_until = clock + retire_after;
    }
  }
  return std::max(clock, busy_until);
}

}  // namespace

std::uint64_t replay_compute(const codegen::LayerProgram& program, const MemoryPlan& plan, const contracts::Hardware& hardware) {
  const FabricTiming timing = FabricTiming::of(hardware);
  if (timing.result_latency >= 2) return ideal_clocks(program, plan, timing);
  return Replayer(program, plan, timing, nullptr).play();
}

MemoryReplay replay_memory(const codegen::LayerProgram& program, const MemoryPlan& plan, const contracts::Hardware& hardware,
                           double dram_bytes_per_cycle, std::uint64_t dram_latency_cycles) {
  MemoryModel memory;
  const contracts::ModelParameters& p = hardware.model;
  // The hardware's DRAM device (dram.timing), when it has one, is the co-simulation's channel exactly: its rows,
  // turnaround and refresh replace the model's effective penalties (docs/model.md, "Memory timing").
  std::optional<DramDeviceCycles> device;
  if (hardware.dram_device) device = DramDeviceCycles::of(*hardware.dram_device, hardware.clock_mhz);
  memory.start_with(plan, dram_bytes_per_cycle, dram_latency_cycles, device,
               {p.dram_row_bytes, p.dram_row_miss, p.dram_turnaround});
  MemoryReplay replay;
  replay.cycles = Replayer(program, plan, FabricTiming::of(hardware), &memory).play();
  replay.memory = memory.run();
  return replay;
}

}  // namespace maeri::timing

namespace maeri::timing {

void refine_with_memory_replay(contracts::CostReport& report, const codegen::LayerProgram& program,
                               const codegen::LayerTensors& tensors, const contracts::Hardware& hardware) {
  refine_with_memory_replay(report, program, plan_memory(program, hardware, tensors), hardware);
}

void refine_with_memory_replay(contracts::CostReport& report, const codegen::LayerProgram& program,
                               const MemoryPlan& plan, const contracts::Hardware& hardware) {
  set_memory_stall(report, replay_memory_stall(program, plan, hardware), hardware);
}

double replay_memory_stall(const codegen::LayerProgram& program, const MemoryPlan& plan,
                           const contracts::Hardware& hardware) {
  const MemoryReplay replay = replay_memory(program, plan, hardware,
                                            hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency,
                                            std::uint64_t(hardware.dram_latency_cycles));
  // What the memory costs beyond the same program with ideal memory (not the stalls the controller counted: a
  // stall also lets the collector's fire spacing run out, so the next fire waits less).
  return double(replay.cycles) - double(replay_compute(program, plan, hardware));
}

void set_memory_stall(contracts::CostReport& report, double stall, const contracts::Hardware& hardware) {
  const double compute = report.cycles.compute();
  report.cycles.memory_stall = stall;
  report.cycles.total = compute + stall;
  report.compute_efficiency = double(report.counts.useful_multiplications) / (double(hardware.num_ms) * report.cycles.total);
}

}  // namespace maeri::timing
