// Fabric drivers of the prebuilt Verilated variants, chosen at compile time by size: FabricDriverFor<64> drives
// the 64-MS model with that variant's bandwidths and widths. The variants are listed once, in rtl/CMakeLists.txt
// (MAERI_FABRIC_VARIANTS), and reach C++ through the header it generates, rtl/verilated_fabrics.hpp. Tools that
// pick a model at run time use open_fabric (sim/fabric_session.hpp) instead.
#pragma once

#include "rtl/verilated_fabrics.hpp"
#include "sim/fabric_driver.hpp"

namespace maeri::sim {

// Defined only for the sizes that have a variant; the size is the key, so two variants of one size would be a
// compile error here (the lookup would be ambiguous).
template <int NumMs>
struct VerilatedFabric;

#define MAERI_VARIANT_BY_SIZE(model, num_ms, dn_bw, rn_bw, data_w, acc_w, config_bw)    \
  template <>                                                                          \
  struct VerilatedFabric<num_ms> {                                                     \
    using Driver = FabricDriver<model, num_ms, dn_bw, rn_bw, data_w, acc_w, config_bw>; \
  };
MAERI_VERILATED_FABRICS(MAERI_VARIANT_BY_SIZE)
#undef MAERI_VARIANT_BY_SIZE

template <int NumMs>
using FabricDriverFor = typename VerilatedFabric<NumMs>::Driver;

}  // namespace maeri::sim
