// `maeri sweep --verify`: the best mapping of every layer at a design point, co-simulated on that point's fabric
// (prebuilt, or built on demand into the fabric cache) — bit-exact outputs, the model's activity counts against the
// RTL counters, compute cycles model vs RTL. Called in a child process per point (SystemC elaborates one fabric per
// process): the flow::HardwareSweep's PointRtlChecker.
#pragma once

#include <cstdint>

#include "contracts/network.hpp"
#include "flow/hardware_sweep.hpp"
#include "testbench/co_simulation.hpp"

namespace maeri::testbench {

flow::PointRtlCheck check_point_on_rtl(const flow::DesignPoint& point, const contracts::Network& network,
                                         MemoryRuns runs, std::uint64_t seed);

}  // namespace maeri::testbench
