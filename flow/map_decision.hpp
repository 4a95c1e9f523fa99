// The decision `maeri map` makes for a whole network with its default options — every layer's best mapping in its
// role and the fused groups — as the mapping file it would write. The one decision a searched plan runs (`maeri run`,
// `verify --chain`, `codegen` without a mapping file): the testbench executes it and never decides again, so what runs
// is what `map` reports (docs/cosim.md, "The network plan").
#pragma once

#include <string>

#include "contracts/hardware.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/network.hpp"
#include "flow/workload_mapping.hpp"
#include "mapper/search/objective.hpp"

namespace maeri::flow {

// What messages name as the source of mappings that map's decision gave (where a mapping file's path would be).
inline constexpr const char* kMapDecisionSource = "the decision of `maeri map`";

// `maeri map`'s defaults: the exhaustive search over the joint space, ranked with codegen's exact DN/RN traffic, and
// the network's layers fused (network_fusion.hpp) unless `fusion` is false (`--no-fusion`). `maeri map` starts from
// these and applies its command-line options.
WorkloadMappingOptions map_decision_options(mapper::Objective objective, bool fusion, const std::string& workload_path);

// The mapping file `maeri map --objective OBJECTIVE [--no-fusion]` writes for every layer of `network` on `hardware`.
// Throws util::InputError naming `workload_path` and the layer when a layer does not fit.
contracts::MappingFile map_decision(const contracts::Network& network, const contracts::Hardware& hardware,
                                    mapper::Objective objective, bool fusion, const std::string& workload_path);

}  // namespace maeri::flow
