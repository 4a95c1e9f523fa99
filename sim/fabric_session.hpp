// FabricSession: one Verilated MAERI fabric opened for a hardware description, behind a type-erased interface
// so that tools choose the model at run time: a prebuilt variant (rtl/CMakeLists.txt) or one built on first use
// (sim/fabric_cache.hpp). One session per process (SystemC elaborates once).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"
#include "sim/layer_runner.hpp"
#include "timing/memory_plan.hpp"

#include "sim/post_processing_unit.hpp"

namespace maeri::sim {

class FabricSession {
 public:
  virtual ~FabricSession() = default;
  // Ideal memory: the controller never waits for data.
  virtual RtlLayerRun run(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors) = 0;
  // With the SDM and DRAM models sized and timed by `hardware` (sdm_bytes, dram_bytes_per_cycle, dram_latency),
  // following the program's memory plan (plan_memory).
  RtlLayerRun run_with_memory(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors,
                              const contracts::Hardware& hardware) {
    return run_with_memory(program, tensors, hardware, timing::plan_memory(program, hardware, tensors));
  }
  // The same following `plan` (e.g. a fused member's piece in its role, plan_memory with a PlanRole).
  virtual RtlLayerRun run_with_memory(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors,
                                      const contracts::Hardware& hardware, timing::MemoryPlan plan) = 0;
  // One operator on the post-processing unit beside the fabric (sim/post_processing_system.hpp), clocked with the
  // fabric's clock in the same SystemC design: the output and what the unit counted.
  virtual PostProcessingResult post_process(PostProcessingJob job, const contracts::PostProcessingSpec& unit) = 0;
  virtual std::string model_name() const = 0;
};

// The prebuilt fabric matching every parameter of `hardware` (num_ms, dn_bw, rn_bw, widths, config_bw), or
// nullptr. trace_path: write a VCD of the whole fabric there ("" = none).
std::unique_ptr<FabricSession> open_prebuilt_fabric(const codegen::ImageHardware& hardware,
                                                    std::uint64_t watchdog_cycles = 100000,
                                                    const std::string& trace_path = "");

// Whether the build offers a prebuilt fabric matching every parameter of `hardware`.
bool has_prebuilt_fabric(const codegen::ImageHardware& hardware);

// "Vmaeri_m64 (64 MS, dn_bw 16, rn_bw 16, data 16, acc 32, config_bw 64)", … for every prebuilt model.
std::vector<std::string> prebuilt_fabrics();

// The prebuilt fabric, else the one in the fabric cache, built there on first use (sim/fabric_cache.hpp, which
// defines it). Throws FabricBuildError (fabric_cache.hpp) when it cannot be built or loaded.
std::unique_ptr<FabricSession> open_fabric(const codegen::ImageHardware& hardware,
                                           std::uint64_t watchdog_cycles = 100000, const std::string& trace_path = "");

}  // namespace maeri::sim
