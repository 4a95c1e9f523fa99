// Layer selection by name, with an error that lists the valid names.
#include "importer/layer_selection.hpp"

#include <fmt/format.h>

#include "util/input_error.hpp"

namespace maeri::importer {

std::vector<contracts::Layer> select_layers(const contracts::Network& network, const std::string& workload_path,
                                         const std::string& name) {
  if (name.empty()) return network.layers;
  std::vector<std::string> names;
  for (const auto& layer : network.layers) {
    if (layer.name == name) return {layer};
    names.push_back(layer.name);
  }
  throw util::InputError({workload_path, 0, 0}, "--layer",
                          fmt::format("workload '{}' has no layer '{}' (it has: {})", network.name, name,
                                      fmt::join(names, ", ")));
}

}  // namespace maeri::importer
