// The entry points of a fabric built on demand (sim/fabric_cache.cpp writes a one-line source that includes the
// Verilated model's header and this file and expands MAERI_FABRIC_PLUGIN, then compiles it with the model into a
// shared object). The shared object holds only the model and the driver/session templates instantiated on it:
// SystemC, the Verilated runtime and the toolkit's libraries are the loading program's (one copy per process),
// which exports its symbols for this (ENABLE_EXPORTS in CMake).
#pragma once

#include <cstdint>

#include "sim/driver_session.hpp"
#include "sim/fabric_driver.hpp"

// maeri_fabric_key(): the cache key the object was built for (the loader refuses a mismatch);
// maeri_fabric_open(watchdog, trace): a new session on the model, owned by the caller.
#define MAERI_FABRIC_PLUGIN(model, num_ms, dn_bw, rn_bw, data_w, acc_w, config_bw, key)                            \
  extern "C" const char* maeri_fabric_key() { return key; }                                                       \
  extern "C" maeri::sim::FabricSession* maeri_fabric_open(std::uint64_t watchdog_cycles, const char* trace) {     \
    using Driver = maeri::sim::FabricDriver<model, num_ms, dn_bw, rn_bw, data_w, acc_w, config_bw>;               \
    return new maeri::sim::DriverSession<Driver>(key, watchdog_cycles, trace);                                     \
  }
