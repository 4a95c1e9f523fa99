// Choosing which layers of a workload a command works on (`--layer NAME`), shared by the subcommands.
#pragma once

#include <string>
#include <vector>

#include "spec/layer.hpp"

namespace maeri::cli {

// All layers when `name` is empty; otherwise the named one. An unknown name is a SpecError listing
// the layers the workload does have.
std::vector<spec::Layer> select_layers(const spec::Network& network, const std::string& workload_path,
                                         const std::string& name);

}  // namespace maeri::cli
