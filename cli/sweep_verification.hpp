// `maeri sweep --verify`: the best mapping of every layer at a design point, co-simulated on that point's fabric
// (prebuilt, or built on demand into the fabric cache) — bit-exact outputs, the model's activity counts against the
// RTL counters, compute cycles model vs RTL. One point per child process (SystemC elaborates one fabric per
// process); the results travel as JSON (between processes and MPI ranks).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mapper/search/design_sweep.hpp"
#include "contracts/layer.hpp"
#include "contracts/network.hpp"
#include "testbench/co_simulation.hpp"

namespace maeri::cli {

struct LayerRtlCheck {
  std::string layer;
  bool pass = false;               // outputs bit-exact
  std::int64_t outputs = 0, mismatches = 0;
  bool counts_exact = false;       // every activity count of the model equals the RTL's
  std::optional<double> model_compute_cycles, rtl_compute_cycles;  // with ideal memory (absent under --memory dram)
  std::string summary;             // the scoreboard's line
};

struct PointRtlCheck {
  std::string error;  // the point could not be co-simulated (fabric build failed, process died, timed out)
  std::vector<LayerRtlCheck> layers;
  bool pass() const;  // no error, every layer bit-exact with exact counts
  std::string status() const;  // "PASS", "FAIL" or "ERROR"
};

// The named memory runs of `maeri verify --memory` / `maeri sweep --verify-memory`: ideal, dram or both.
testbench::MemoryRuns memory_runs_named(const std::string& name);

// Co-simulates the best mapping of every layer of `network` at `point` (in this process: call it in a child).
PointRtlCheck check_point_on_rtl(const mapper::DesignPoint& point, const contracts::Network& network,
                                 testbench::MemoryRuns runs, std::uint64_t seed);

nlohmann::json to_json(const PointRtlCheck& check);
PointRtlCheck point_rtl_check_from_json(const nlohmann::json& json);

}  // namespace maeri::cli
