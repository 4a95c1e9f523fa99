// A Network as a workload spec (kind: workload, docs/workload-spec.md) that load_workload reads back to the
// same layers: what `maeri import` writes. A network with operators beside the fabric is written as a graph (its
// network inputs and its operators, "Graphs"), one of fabric layers only as a flat list of layers.
#pragma once

#include <string>

#include "contracts/layer.hpp"
#include "contracts/network.hpp"
#include "contracts/network.hpp"

namespace maeri::importer {

// Throws util::InputError when the layers do not share one batch size in a form the spec can state (a conv or
// FC layer's batch must be the workload's; a GEMM's batch a multiple of it), or when the text would be larger
// than the loader reads (contracts::kMaxSpecFileBytes).
std::string workload_yaml(const contracts::Network& network, const std::string& header_comment);

}  // namespace maeri::importer
