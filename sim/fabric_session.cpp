// The Verilated fabrics this build offers, and sessions on them (see fabric_session.hpp).
#include "sim/fabric_session.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "rtl/verilated_fabrics.hpp"

namespace maeri::sim {
namespace {

template <class Driver>
class Session final : public FabricSession {
 public:
  Session(const char* name, std::uint64_t watchdog_cycles, const std::string& trace)
      : name_(name), driver_(watchdog_cycles, trace) {
    memory_.clk(driver_.clk);
  }
  RtlLayerRun run(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors) override {
    return LayerRunner<Driver>(driver_).run(program, tensors);
  }
  RtlLayerRun run_with_memory(const codegen::LayerProgram& program, const codegen::LayerTensors& tensors,
                              const spec::Hardware& hardware) override {
    return LayerRunner<Driver>(driver_).run(program, tensors, memory_, plan_memory(program, hardware, tensors),
                                            {hardware.dram_bytes_per_cycle, std::uint64_t(hardware.dram_latency_cycles)});
  }
  std::string model_name() const override { return name_; }

 private:
  std::string name_;
  Driver driver_;
  MemorySystem memory_{sc_core::sc_gen_unique_name("memory")};
};

struct Variant {
  const char* name;
  std::uint32_t num_ms, dn_bw, rn_bw, data_width, acc_width;
  std::unique_ptr<FabricSession> (*open)(std::uint64_t watchdog_cycles, const std::string& trace);
};

// One row of kVariants from one X-macro row of rtl/verilated_fabrics.hpp.
#define MAERI_VARIANT(model, m, d, r, w, a)                                                          \
  Variant{#model, m, d, r, w, a,                                                                   \
          [](std::uint64_t watchdog, const std::string& trace) -> std::unique_ptr<FabricSession> { \
            using Driver = FabricDriver<model, m, d, r, w, a>;                                     \
            return std::make_unique<Session<Driver>>(#model, watchdog, trace);                     \
          }},

// The variants of rtl/CMakeLists.txt (MAERI_FABRIC_VARIANTS), through its generated header.
const Variant kVariants[] = {MAERI_VERILATED_FABRICS(MAERI_VARIANT)};
#undef MAERI_VARIANT

std::string describe(const Variant& v) {
  return fmt::format("{} ({} MS, dn_bw {}, rn_bw {}, data {}, acc {})", v.name, v.num_ms, v.dn_bw, v.rn_bw,
                     v.data_width, v.acc_width);
}

}  // namespace

std::unique_ptr<FabricSession> open_fabric(const codegen::ImageHardware& hw, std::uint64_t watchdog_cycles,
                                           const std::string& trace_path) {
  for (const Variant& v : kVariants)
    if (v.num_ms == hw.num_ms && v.dn_bw == hw.dn_bw && v.rn_bw == hw.rn_bw && v.data_width == hw.data_width &&
        v.acc_width == hw.acc_width)
      return v.open(watchdog_cycles, trace_path);
  std::string list;
  for (const Variant& v : kVariants) list += "\n  " + describe(v);
  throw std::invalid_argument(fmt::format("no Verilated fabric for {} ({} MS, dn_bw {}, rn_bw {}, data {}, acc {}); "
                                          "this build has:{}",
                                          hw.name, hw.num_ms, hw.dn_bw, hw.rn_bw, hw.data_width, hw.acc_width, list));
}

std::vector<std::string> available_fabrics() {
  std::vector<std::string> names;
  for (const Variant& v : kVariants) names.push_back(describe(v));
  return names;
}

}  // namespace maeri::sim
