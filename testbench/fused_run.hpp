// Fused groups in a chained run (docs/cosim.md, "Fused groups"): a plan's fused groups (contracts::PlannedGroup, made
// by flow/fused_groups.hpp from a mapping file), each member's image cut into its stripe pieces
// (codegen/fused_stripes.hpp), every piece co-simulated from the member's image with the memory plan of its role —
// a shared input already in the SDM, a shared output kept there, pinned weights fetched in the first stripe only,
// the group's reservation out of the stream buffer (timing/memory_plan.hpp) — the pieces spread over the runner's
// processes and MPI ranks, their outputs merged (disjoint rows) and their counters summed; and the cross-check of
// every member against the model in its role (mapper::evaluate with the role, exact DN/RN traffic, cycles with DRAM
// from the replay of the same pieces), and of the group as the sum of its members.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/functional_model.hpp"
#include "contracts/hardware.hpp"
#include "contracts/network_plan.hpp"
#include "sim/fabric_session.hpp"
#include "testbench/co_simulation.hpp"
#include "testbench/cross_check.hpp"
#include "util/task_runner.hpp"

namespace maeri::testbench {

// One member's pieces, merged on rank 0.
struct FusedMemberRun {
  std::string tile_text;
  CoSimulation result;  // the runs with the whole output, counters and cycles summed over the pieces; rows
  int pieces = 0;
  double seconds = 0;               // sum of the pieces' wall times
  std::vector<std::string> errors;  // a piece failed before a verdict (e.g. its SDM too small, a stalled fabric)
};

// Co-simulates `run` (the plan's run of member `member` of `group`, its image with the member's record) on `tensors`
// (the whole layer's input and weights), every rank with the same arguments; on rank 0 returns the merged run with its
// cross-check rows (a "configurations" row after the fabric counts: what the model counts against what the controller
// wrote). `fabric` is this process's session (opened with open_fabric when needed and the runner runs tasks here);
// child processes open their own.
FusedMemberRun run_fused_member(const contracts::PlannedGroup& group, std::size_t member,
                                const contracts::PlannedRun& run, const codegen::LayerTensors& tensors,
                                const contracts::Hardware& hardware, MemoryRuns runs, util::TaskRunner& runner,
                                std::unique_ptr<sim::FabricSession>& fabric,
                                const std::function<std::unique_ptr<sim::FabricSession>()>& open_fabric);

// The group's rows: each metric summed over its members' rows (which must list the same metrics).
std::vector<CrossCheckRow> sum_rows(const std::vector<std::vector<CrossCheckRow>>& members);

inline const char* kConfigurations = "configurations";

}  // namespace maeri::testbench
