// DriverSession<Driver>: the FabricSession (sim/fabric_session.hpp) on one FabricDriver, with the memory system and
// the post-processing unit on its clock. A template because the driver is one: sim/fabric_session.cpp instantiates it for every prebuilt
// variant, and each fabric built on demand instantiates it in its own shared object (sim/fabric_plugin.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "sim/fabric_session.hpp"
#include "sim/layer_runner.hpp"
#include "timing/memory_plan.hpp"
#include "sim/memory_system.hpp"
#include "sim/post_processing_system.hpp"

namespace maeri::sim {

template <class Driver>
class DriverSession final : public FabricSession {
 public:
  DriverSession(std::string name, std::uint64_t watchdog_cycles, const std::string& trace)
      : name_(std::move(name)), driver_(watchdog_cycles, trace) {
    driver_.attach(memory_);
    driver_.attach(unit_);
  }
  RtlLayerRun run(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors) override {
    return LayerRunner<Driver>(driver_).run(program, tensors);
  }
  using FabricSession::run_with_memory;
  RtlLayerRun run_with_memory(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors,
                              const contracts::Hardware& hardware, timing::MemoryPlan plan) override {
    return LayerRunner<Driver>(driver_).run(program, tensors, memory_, std::move(plan), dram_timing_of(hardware));
  }
  PostProcessingResult post_process(PostProcessingJob job, const contracts::PostProcessingSpec& unit) override {
    unit_.start(std::move(job), unit);
    while (unit_.busy()) driver_.tick();
    return {unit_.output(), unit_.counts()};
  }
  std::string model_name() const override { return name_; }

 private:
  std::string name_;
  Driver driver_;
  MemorySystem memory_;
  PostProcessingSystem unit_;
};

}  // namespace maeri::sim
