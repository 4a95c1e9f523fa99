// The Verilated fabrics this build offers, and sessions on them (see fabric_session.hpp).
#include "sim/fabric_session.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "rtl/verilated_fabrics.hpp"
#include "sim/driver_session.hpp"
#include "sim/fabric_driver.hpp"

namespace maeri::sim {
namespace {

struct Variant {
  const char* name;
  std::uint32_t num_ms, dn_bw, rn_bw, data_width, acc_width, config_bw;
  std::unique_ptr<FabricSession> (*open)(std::uint64_t watchdog_cycles, const std::string& trace);
};

// One row of kVariants from one X-macro row of rtl/verilated_fabrics.hpp.
#define MAERI_VARIANT(model, m, d, r, w, a, c)                                                        \
  Variant{#model, m, d, r, w, a, c,                                                                   \
          [](std::uint64_t watchdog, const std::string& trace) -> std::unique_ptr<FabricSession> {    \
            return std::make_unique<DriverSession<FabricDriver<model, m, d, r, w, a, c>>>(#model, watchdog, \
                                                                                           trace);    \
          }},

// The variants of rtl/CMakeLists.txt (MAERI_FABRIC_VARIANTS), through its generated header.
const Variant kVariants[] = {MAERI_VERILATED_FABRICS(MAERI_VARIANT)};
#undef MAERI_VARIANT

std::string describe(const Variant& v) {
  return fmt::format("{} ({} MS, dn_bw {}, rn_bw {}, data {}, acc {}, config_bw {})", v.name, v.num_ms, v.dn_bw,
                     v.rn_bw, v.data_width, v.acc_width, v.config_bw);
}

const Variant* prebuilt_variant(const codegen::ImageHardware& hw) {
  for (const Variant& v : kVariants)
    if (v.num_ms == hw.num_ms && v.dn_bw == hw.dn_bw && v.rn_bw == hw.rn_bw && v.data_width == hw.data_width &&
        v.acc_width == hw.acc_width && v.config_bw == hw.config_bw)
      return &v;
  return nullptr;
}

}  // namespace

std::unique_ptr<FabricSession> open_prebuilt_fabric(const codegen::ImageHardware& hw, std::uint64_t watchdog_cycles,
                                                    const std::string& trace_path) {
  const Variant* variant = prebuilt_variant(hw);
  return variant ? variant->open(watchdog_cycles, trace_path) : nullptr;
}

bool has_prebuilt_fabric(const codegen::ImageHardware& hw) { return prebuilt_variant(hw) != nullptr; }

std::vector<std::string> prebuilt_fabrics() {
  std::vector<std::string> names;
  for (const Variant& v : kVariants) names.push_back(describe(v));
  return names;
}

}  // namespace maeri::sim
