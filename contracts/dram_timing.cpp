// A DRAM device's timing in cycles (see dram_timing.hpp).
#include "contracts/dram_timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace maeri::contracts {

std::uint64_t cycles_of_ns(double ns, double clock_mhz) {
  return std::uint64_t(std::ceil(ns * clock_mhz / 1000 - 1e-9));
}

DramTimingCycles dram_timing_cycles(const DramDevice& device, double clock_mhz) {
  DramTimingCycles cycles;
  cycles.row_miss = cycles_of_ns(device.row_miss_ns, clock_mhz);
  cycles.refresh_interval = cycles_of_ns(device.refresh_interval_ns, clock_mhz);
  cycles.refresh = cycles_of_ns(device.refresh_ns, clock_mhz);
  cycles.turnaround = cycles_of_ns(device.turnaround_ns, clock_mhz);
  return cycles;
}

std::optional<std::string> dram_timing_violation(const DramDevice& device, double clock_mhz) {
  const DramTimingCycles cycles = dram_timing_cycles(device, clock_mhz);
  if (cycles.refresh_interval > 0 && cycles.refresh >= cycles.refresh_interval)
    return fmt::format("expected a refresh shorter than its interval in cycles of the {} MHz clock (each rounded up): "
                       "refresh_ns {} is {} cycles, refresh_interval_ns {} is {}: the channel would never move data",
                       clock_mhz, device.refresh_ns, cycles.refresh, device.refresh_interval_ns,
                       cycles.refresh_interval);
  return std::nullopt;
}

long double slowest_transfer_cycles(const Hardware& hardware) {
  const long double bytes = static_cast<long double>(hardware.sdm_bytes);
  long double cycles = bytes / static_cast<long double>(hardware.dram_bytes_per_cycle) +
                       static_cast<long double>(hardware.dram_latency_cycles);
  if (!hardware.dram_device) return cycles;
  const DramTimingCycles timing = dram_timing_cycles(*hardware.dram_device, hardware.clock_mhz);
  const long double rows = std::ceil(bytes / static_cast<long double>(hardware.dram_device->row_bytes)) + 1;
  cycles += rows * static_cast<long double>(timing.row_miss) + static_cast<long double>(timing.turnaround);
  if (timing.refresh_interval > 0) {
    // Each interval loses `refresh` cycles: the transfer's cycles stretch by interval / (interval − refresh).
    const long double interval = static_cast<long double>(timing.refresh_interval);
    cycles = cycles * interval / (interval - static_cast<long double>(timing.refresh)) +
             static_cast<long double>(timing.refresh);
  }
  return cycles;
}

std::uint64_t watchdog_cycles(const Hardware& hardware) {
  const long double doubled = 2 * slowest_transfer_cycles(hardware);
  if (!(doubled < 1e18L)) return std::uint64_t{1} << 60;
  return std::max(kMinWatchdogCycles, std::uint64_t(std::ceil(doubled)));
}

}  // namespace maeri::contracts
