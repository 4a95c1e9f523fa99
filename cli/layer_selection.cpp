// Layer selection by name, with an error that lists the valid names.
#include "cli/layer_selection.hpp"

#include <fmt/format.h>

#include "spec/spec_error.hpp"

namespace maeri::cli {

std::vector<spec::Layer> select_layers(const spec::Network& network, const std::string& workload_path,
                                         const std::string& name) {
  if (name.empty()) return network.layers;
  std::vector<std::string> names;
  for (const auto& layer : network.layers) {
    if (layer.name == name) return {layer};
    names.push_back(layer.name);
  }
  throw spec::SpecError({workload_path, 0, 0}, "--layer",
                          fmt::format("workload '{}' has no layer '{}' (it has: {})", network.name, name,
                                      fmt::join(names, ", ")));
}

}  // namespace maeri::cli
