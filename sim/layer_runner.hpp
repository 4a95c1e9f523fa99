// LayerRunner: plays one layer program (expanded from a configuration image) on a Verilated fabric through a
// FabricDriver — configuration writes whenever the phase shape changes, weight beats, then every step's input
// beats with the fire on the last one — and collects the tagged results into the output tensor, writing on
// the first reduction fold and accumulating (ACC_W wrap-around) on later ones, as the SDM would. With a
// MemorySystem, every weight phase and step first waits for its data to arrive from DRAM (and a step for room
// in the output buffer), and the layer ends when its last result has been written back to DRAM.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/dn_elements.hpp"
#include "codegen/functional_model.hpp"
#include "codegen/reduction_reference.hpp"
#include "sim/fabric_driver.hpp"
#include "sim/memory_system.hpp"
#include "timing/step_input_cache.hpp"

namespace maeri::sim {

struct RtlLayerRun {
  std::vector<std::int64_t> output;
  Counters counters{};
  // From the first configuration write to the last result (ideal memory), or to the last result's write into
  // DRAM (with the memory system).
  std::uint64_t cycles = 0;
  std::optional<timing::MemoryRun> memory;  // SDM and DRAM counts, when the run had a memory system
};

struct DramTiming {
  double bytes_per_cycle = 0;
  std::uint64_t latency_cycles = 0;
  std::optional<timing::DramDeviceCycles> device;  // the hardware spec's dram.timing, if any
};

// The co-simulated DRAM of a hardware spec: its bandwidth and latency, and its device timing (dram.timing).
inline DramTiming dram_timing_of(const contracts::Hardware& hardware) {
  DramTiming dram{hardware.dram_bytes_per_cycle, std::uint64_t(hardware.dram_latency_cycles), std::nullopt};
  if (hardware.dram_device) dram.device = timing::DramDeviceCycles::of(*hardware.dram_device, hardware.clock_mhz);
  return dram;
}

template <class Driver>
class LayerRunner {
 public:
  explicit LayerRunner(Driver& fabric) : fabric_(fabric) {}

  // Ideal memory: every element is in the SDM when the controller needs it.
  RtlLayerRun run(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors) {
    memory_ = nullptr;
    return play(program, tensors);
  }

  // With the SDM and DRAM models: `memory` must be clocked by this fabric's clock.
  RtlLayerRun run(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors, MemorySystem& memory,
                  timing::MemoryPlan plan, DramTiming dram) {
    memory_ = &memory;
    plan_ = std::move(plan);
    dram_ = dram;
    return play(program, tensors);
  }

 private:
  RtlLayerRun play(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors) {
    if (program.num_ms != Driver::kNumMs) throw std::invalid_argument("the program is for another fabric size");
    program_ = &program;
    run_ = RtlLayerRun{};
    step_inputs_ = timing::StepInputCache{};
    run_.output.assign(size_t(program.layer.output_elements()), 0);
    pending_.clear();
    vn_offsets_.assign(program.configurations.size(), {});
    fabric_.reset();
    // Results retire (and free SDM space) on the clock they arrive, whatever the controller is waiting for.
    fabric_.set_tick_observer([this] { collect(); });
    struct ObserverGuard {
      Driver& fabric;
      ~ObserverGuard() { fabric.set_tick_observer(nullptr); }
    } guard{fabric_};
    if (memory_) memory_->start(std::move(plan_), dram_.bytes_per_cycle, dram_.latency_cycles, dram_.device);
    const std::uint64_t start = fabric_.cycle();
    int active = -1;
    size_t phase_number = 0;
    std::size_t event = 0;
    for (const codegen::WeightPhase& phase : program.phases) {
      ++phase_number;
      const auto where = [&](const codegen::StepOrigin* step) {
        std::string text = " (weight phase " + std::to_string(phase_number) + " at r0=" + std::to_string(phase.r0) +
                           " s0=" + std::to_string(phase.s0) + " c0=" + std::to_string(phase.c0) +
                           " k0=" + std::to_string(phase.k0);
        if (step)
          text += ", step n0=" + std::to_string(step->n0) + " x0=" + std::to_string(step->x0) +
                  " y0=" + std::to_string(step->y0);
        return text + ")";
      };
      if (phase.configuration != active) {
        drain();  // the fabric must be idle before its configuration changes
        fabric_.configure(program.configurations[size_t(phase.configuration)].reduction.config);
        active = phase.configuration;
      }
      const std::size_t weight_event = event++;
      if (memory_) {
        await_memory([&] { return memory_->data_ready(weight_event); }, MemorySystem::Wait::Data,
                     [&] { return "the phase's weights from DRAM" + where(nullptr); });
        memory_->begin(weight_event);
      }
      send(codegen::phase_weights(program, phase, tensors.weights), /*weight=*/true, false, false);
      if (memory_) memory_->weights_sent(weight_event);
      const int vn_count = program.configurations[size_t(phase.configuration)].placement.shape.vn_count();
      for (const codegen::StepOrigin& step : phase.steps) {
        const std::size_t step_event = event++;
        if (memory_) {
          await_memory([&] { return memory_->data_ready(step_event); }, MemorySystem::Wait::Data,
                       [&] { return "the step's inputs from DRAM" + where(&step); });
          await_memory([&] { return memory_->output_room(step_event); }, MemorySystem::Wait::OutputRoom,
                       [&] { return "room in the SDM output buffer" + where(&step); });
          memory_->begin(step_event);
        }
        const codegen::StepElements& elements = step_inputs_.inputs(program, phase, step, tensors.input);
        try {
          send(elements.inputs, /*weight=*/false, /*fire=*/true, step.forward);
        } catch (const std::runtime_error& error) {  // name the step the fabric got stuck in
          throw std::runtime_error(std::string(error.what()) + where(&step));
        }
        pending_.push_back({&phase, elements.used_vns, vn_count, 0, step_event,
                            codegen::step_output_origin(program, phase, step), &vn_offsets(phase.configuration)});
        collect();
      }
    }
    drain();
    if (!pending_.empty()) throw std::runtime_error("the fabric returned fewer results than the program's steps");
    if (memory_) {
      await_memory([&] { return memory_->drained(); }, MemorySystem::Wait::Drain,
                   [] { return std::string("the last results to reach DRAM"); });
      run_.memory = memory_->run();
    }
    run_.cycles = fabric_.cycle() - start;
    run_.counters = fabric_.counters();
    if (fabric_.any_error()) throw std::runtime_error("the fabric raised an error flag during the layer");
    return run_;
  }

  struct PendingStep {
    const codegen::WeightPhase* phase;
    std::vector<bool> used_vns;
    int vn_count;
    int received;
    std::size_t event;  // in the memory plan
    // VN v's result goes to output[output_origin + (*vn_offsets)[v]] (codegen::output_index in two parts).
    std::int64_t output_origin;
    const std::vector<std::int64_t>* vn_offsets;
  };

  // The output offsets of configuration c's VNs (codegen::vn_output_offsets), computed on its first use.
  const std::vector<std::int64_t>& vn_offsets(int configuration) {
    std::vector<std::int64_t>& offsets = vn_offsets_[size_t(configuration)];
    if (offsets.empty()) offsets = codegen::vn_output_offsets(*program_, configuration);
    return offsets;
  }

  // Idles until the memory system allows the next action (results keep retiring through the tick observer,
  // freeing SDM space); every idle cycle is a memory stall. `what` names the wait, only for the watchdog.
  template <class Condition, class Describe>
  void await_memory(Condition condition, MemorySystem::Wait reason, Describe what) {
    const std::uint64_t begin = fabric_.cycle();
    while (!condition()) {
      if (fabric_.cycle() - begin > fabric_.watchdog_cycles())
        throw std::runtime_error("watchdog: no progress for " + std::to_string(fabric_.watchdog_cycles()) +
                                 " cycles waiting for " + what());
      fabric_.tick();
      memory_->count_stall(reason);
    }
  }

  // Elements in beats of DN_BW; the fire (if any) rides on the last beat, which also exists when a step sends
  // nothing (all operands forwarded).
  void send(const std::vector<codegen::DnElement>& elements, bool weight, bool fire, bool forward) {
    for (size_t next = 0; next < elements.size(); next += size_t(Driver::kDnBw)) {
      const size_t end = std::min(elements.size(), next + size_t(Driver::kDnBw));
      fabric_.beat(elements.data() + next, elements.data() + end, weight, fire && end == elements.size(), forward);
      collect();
    }
    if (elements.empty() && fire) fabric_.beat(elements.data(), elements.data(), weight, true, forward);
  }

  void drain() {
    fabric_.drain();
    collect();
  }

  // Moves the results the driver has seen into the output, in step order (VN order inside a step).
  void collect() {
    for (const Result& result : fabric_.results) {
      if (pending_.empty()) throw std::runtime_error("the fabric produced a result no step asked for");
      PendingStep& step = pending_.front();
      if (result.vn != step.received)
        throw std::runtime_error("result for VN " + std::to_string(result.vn) + " arrived where VN " +
                                 std::to_string(step.received) + " was due");
      if (step.used_vns[size_t(result.vn)]) {
        std::int64_t& out = run_.output[size_t(step.output_origin + (*step.vn_offsets)[size_t(result.vn)])];
        out = step.phase->accumulate ? codegen::wrap_to_width(out + result.value, Driver::kAccW) : result.value;
      }
      if (++step.received == step.vn_count) {
        if (memory_) memory_->step_retired(step.event);
        pending_.pop_front();
      }
    }
    fabric_.results.clear();
    fabric_.result_cycles.clear();
  }

  Driver& fabric_;
  MemorySystem* memory_ = nullptr;
  timing::MemoryPlan plan_;
  DramTiming dram_;
  const codegen::LayerProgram* program_ = nullptr;
  RtlLayerRun run_;
  std::deque<PendingStep> pending_;
  std::vector<std::vector<std::int64_t>> vn_offsets_;  // per configuration, filled on first use
  timing::StepInputCache step_inputs_;
};

}  // namespace maeri::sim
