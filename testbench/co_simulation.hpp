// One (layer, mapping) through the whole chain as a user ships it: plan, configuration image, encode and decode,
// expand, seeded random tensors, the Verilated fabric with ideal memory and/or with the SDM/DRAM models, the
// bit-exact scoreboard and the model-vs-RTL cross-check. Used by calibration and the RTL tests; `maeri verify`/`run`
// run the same chain shard by shard (shard_run.hpp), an unsharded layer being one shard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"
#include "sim/fabric_session.hpp"
#include "testbench/cross_check.hpp"
#include "testbench/scoreboard.hpp"

namespace maeri::testbench {

enum class MemoryRuns { Ideal, Dram, Both };
// The runs named by `maeri verify --memory` and `maeri sweep --verify-memory`: "ideal", "dram" or "both".
MemoryRuns memory_runs_named(const std::string& name);

struct CoSimulation {
  std::size_t image_bytes = 0;
  std::optional<sim::RtlLayerRun> ideal, with_memory;
  Scoreboard board;  // of the first run that failed, else of the last run
  std::vector<CrossCheckRow> rows;
};

CoSimulation co_simulate(sim::FabricSession& fabric, const contracts::Layer& layer, const contracts::Mapping& tile,
                         const contracts::Hardware& hardware, std::uint64_t seed, MemoryRuns runs = MemoryRuns::Both);

// The verdict and the cross-check of runs already in `result` (ideal and/or with memory): the scoreboard of the
// first run that fails against `reference`, else of the last run, and the model (exact traffic, memory replay) against
// the runs.
// Shared by co_simulate and the merge of a sharded layer (shard_run.cpp).
void score_and_cross_check(CoSimulation& result, const contracts::Layer& layer, const contracts::Mapping& tile,
                           const contracts::Hardware& hardware, const codegen::LayerTensors& tensors,
                           const std::vector<std::int64_t>& reference);

}  // namespace maeri::testbench
