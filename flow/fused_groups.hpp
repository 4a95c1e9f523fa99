// A mapping file's fused groups as a plan runs them (docs/cosim.md, "Fused groups"): each group of two or more layers
// checked against the network's graph and the hardware (mapper::loaded_group), its members' mappings checked against
// the workload's shapes, each member's role (mapper::group_roles) and the SDM reservations its stripes see (the
// shared tensors live while it runs, the pinned weights).
#pragma once

#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/network.hpp"
#include "contracts/network_plan.hpp"
#include "mapper/search/fused_search.hpp"

namespace maeri::flow {

// A legal group of the network (fused_search's FusedGroup) as a plan runs it: its members' roles, the shared tensors
// live while each runs and the pinned weights (what each stripe's SDM reservation is made of).
contracts::PlannedGroup planned_group(const contracts::Network& network, const contracts::Hardware& hardware,
                                      const mapper::FusedGroup& group, const std::string& name);

// The groups of two or more layers of `file` (read from `path`) on `network` and `hardware`. Throws
// util::InputError naming fused_groups[i], the group and the rule it breaks, or the layer whose mapping does not fit.
std::vector<contracts::PlannedGroup> planned_groups(const contracts::Network& network,
                                                    const contracts::Hardware& hardware,
                                                    const contracts::MappingFile& file, const std::string& path);

}  // namespace maeri::flow
