// FabricSession: one Verilated MAERI fabric opened for a hardware description, behind a type-erased interface
// so that tools choose the model at run time. Only the sizes Verilated by rtl/CMakeLists.txt exist; asking for
// another one names those that do. One session per process (SystemC elaborates once).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"
#include "sim/layer_runner.hpp"

namespace maeri::sim {

class FabricSession {
 public:
  virtual ~FabricSession() = default;
  // Ideal memory: the controller never waits for data.
  virtual RtlLayerRun run(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors) = 0;
  // With the SDM and DRAM models sized and timed by `hardware` (sdm_bytes, dram_bytes_per_cycle, dram_latency).
  virtual RtlLayerRun run_with_memory(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors,
                                      const spec::Hardware& hardware) = 0;
  virtual std::string model_name() const = 0;
};

// Throws std::invalid_argument when no Verilated model matches num_ms, dn_bw, rn_bw, data and acc widths.
// trace_path: write a VCD of the whole fabric there ("" = none).
std::unique_ptr<FabricSession> open_fabric(const codegen::ImageHardware& hardware,
                                           std::uint64_t watchdog_cycles = 100000, const std::string& trace_path = "");

// "Vmaeri_m64 (64 MS, dn_bw 16, rn_bw 16, data 16, acc 32)", … for every model built.
std::vector<std::string> available_fabrics();

}  // namespace maeri::sim
