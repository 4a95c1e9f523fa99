// `maeri sweep --verify`: the decision `maeri map` makes at a design point, co-simulated on that point's fabric
// (prebuilt, or built on demand into the fabric cache) — bit-exact outputs, the model's activity counts against the
// RTL counters, compute cycles model vs RTL. Without fused groups every layer runs alone with the tensors `maeri
// verify` seeds for it; with fused groups the network runs chained as `maeri verify --chain --mapping` runs the
// decision (seeded weights and input, the groups fused). Called in a child process per point (SystemC elaborates one
// fabric per process): the flow::HardwareSweep's PointRtlChecker.
#pragma once

#include <cstdint>
#include <string>

#include "contracts/network.hpp"
#include "flow/hardware_sweep.hpp"
#include "testbench/co_simulation.hpp"

namespace maeri::testbench {

flow::PointRtlCheck check_point_on_rtl(const flow::DesignPoint& point, const contracts::Network& network,
                                       MemoryRuns runs, std::uint64_t seed, const std::string& workload_path);

}  // namespace maeri::testbench
