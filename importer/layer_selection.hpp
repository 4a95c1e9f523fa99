// Choosing which layers of a workload a command works on (`--layer NAME`), shared by the subcommands.
#pragma once

#include <string>
#include <vector>

#include "contracts/layer.hpp"
#include "contracts/network.hpp"

namespace maeri::importer {

// All layers when `name` is empty; otherwise the named one. An unknown name is a util::InputError listing
// the layers the workload does have.
std::vector<contracts::Layer> select_layers(const contracts::Network& network, const std::string& workload_path,
                                         const std::string& name);

}  // namespace maeri::importer
