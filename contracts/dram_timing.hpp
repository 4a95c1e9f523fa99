// A DRAM device's timing (docs/hardware-spec.md, "DRAM timing") in cycles of the accelerator clock: the one
// conversion from nanoseconds, each time rounded up, that the co-simulation's channel (sim/dram_channel) and the
// hardware loader's checks both use — so a spec the loader accepts is one the co-simulation can run (issue 43,
// item 6: refresh_ns 7,799.999 under an interval of 7,800 validated, then was refused at run time once both rounded
// to the same cycle) — and the longest a transfer may legally take, which bounds the co-simulation's watchdog.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "contracts/hardware.hpp"

namespace maeri::contracts {

// ceil(ns · clock_mhz / 1000), with 1e-9 of slack so a whole number of cycles written in ns stays whole.
std::uint64_t cycles_of_ns(double ns, double clock_mhz);

struct DramTimingCycles {
  std::uint64_t row_miss = 0, refresh_interval = 0, refresh = 0, turnaround = 0;
};
DramTimingCycles dram_timing_cycles(const DramDevice& device, double clock_mhz);

// Why the device cannot run at clock_mhz (its refresh, once rounded to cycles, not shorter than its interval), or
// nothing.
std::optional<std::string> dram_timing_violation(const DramDevice& device, double clock_mhz);

// The cycles the slowest transfer the co-simulation may wait for can legally take on this hardware: a whole SDM's
// bytes at dram_bytes_per_cycle after the latency, with a row miss for every row it crosses, a turnaround, and the
// refreshes that fall within it.
long double slowest_transfer_cycles(const Hardware& hardware);

// The co-simulation's watchdog (cycles without progress before it gives up): kMinWatchdogCycles, or twice the
// slowest legal transfer when that is longer, so a slow but valid device never trips it.
inline constexpr std::uint64_t kMinWatchdogCycles = 100000;
std::uint64_t watchdog_cycles(const Hardware& hardware);

}  // namespace maeri::contracts
