// Fused groups in a chained run (docs/cosim.md, "Fused groups"): the groups of a mapping file checked against the
// network's graph and the hardware (mapper::loaded_group), each member's program cut into its stripe pieces
// (codegen/fused_stripes.hpp), every piece co-simulated from the member's image with the memory plan of its role —
// a shared input already in the SDM, a shared output kept there, pinned weights fetched in the first stripe only,
// the group's reservation out of the stream buffer (sim/memory_plan.hpp) — the pieces spread over the runner's
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
#include "contracts/fused_role.hpp"
#include "contracts/hardware.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/network.hpp"
#include "mapper/model/fusion_model.hpp"
#include "sim/fabric_session.hpp"
#include "testbench/co_simulation.hpp"
#include "testbench/cross_check.hpp"
#include "util/task_runner.hpp"

namespace maeri::testbench {

// A fused group of the mapping file as the chained run plays it.
struct FusedGroupPlan {
  std::string name;
  mapper::FusedGroup group;                 // its layers (network.layers indices), stripes, mappings and pins
  std::vector<contracts::FusedRole> roles;  // per member (mapper::group_roles)
  std::vector<std::int64_t> live_bytes;     // per member: the shared tensors live while it runs
  std::vector<std::int64_t> pinned_bytes;   // per member: its weights when pinned, else 0
  // The group's reservation while stripe `stripe` of member `member` runs: the shared tensors live then and the
  // pinned weights — but for the member's own while its first stripe fetches them through the stream buffer.
  std::int64_t reserved_bytes(std::size_t member, std::int64_t stripe) const;
  bool has_layer(std::size_t layer) const { return layer >= group.first && layer < group.first + group.count; }
};

// The groups of two or more layers of `file` (read from `path`) on `network` and `hardware`. Throws
// util::InputError naming fused_groups[i], the group and the rule it breaks, or the layer whose mapping does not fit.
std::vector<FusedGroupPlan> fused_group_plans(const contracts::Network& network, const contracts::Hardware& hardware,
                                              const contracts::MappingFile& file, const std::string& path);

// One member's pieces, merged on rank 0.
struct FusedMemberRun {
  std::string tile_text;
  CoSimulation result;  // the runs with the whole output, counters and cycles summed over the pieces; rows
  int pieces = 0;
  double seconds = 0;               // sum of the pieces' wall times
  std::vector<std::string> errors;  // a piece failed before a verdict (e.g. its SDM too small, a stalled fabric)
};

// Co-simulates member `member` of `plan` on `tensors` (the whole layer's input and weights), every rank with the same
// arguments; on rank 0 returns the merged run with its cross-check rows (a "configurations" row after the fabric
// counts: what the model counts against what the controller wrote). `fabric` is this process's session (opened with
// open_fabric when needed and the runner runs tasks here); child processes open their own.
FusedMemberRun run_fused_member(const FusedGroupPlan& plan, std::size_t member, const contracts::Network& network,
                                const codegen::LayerTensors& tensors, const contracts::Hardware& hardware,
                                MemoryRuns runs, util::TaskRunner& runner, std::unique_ptr<sim::FabricSession>& fabric,
                                const std::function<std::unique_ptr<sim::FabricSession>()>& open_fabric);

// The group's rows: each metric summed over its members' rows (which must list the same metrics).
std::vector<CrossCheckRow> sum_rows(const std::vector<std::vector<CrossCheckRow>>& members);

inline const char* kConfigurations = "configurations";

}  // namespace maeri::testbench
