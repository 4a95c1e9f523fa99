// A mapping file's fused groups as a plan runs them (see fused_groups.hpp).
#include "flow/fused_groups.hpp"

#include <fmt/format.h>

#include "mapper/model/fusion_model.hpp"
#include "mapper/search/network_fusion.hpp"
#include "util/input_error.hpp"

namespace maeri::flow {

contracts::PlannedGroup planned_group(const contracts::Network& network, const contracts::Hardware& hardware,
                                      const mapper::FusedGroup& group, const std::string& name) {
  const mapper::FusionGraph graph = mapper::fusion_graph(network);
  contracts::PlannedGroup planned{name, group.first, group.count, group.stripes, group.mappings,
                                  mapper::group_roles(graph, group), {}, {}};
  planned.live_bytes = mapper::group_reservations(network, graph, hardware, group.first, group.count, group.stripes,
                                                  mapper::rows_per_stripe(graph, group), group.token_stripes)
                           .live_at;
  for (std::size_t i = 0; i < group.count; ++i)
    planned.pinned_bytes.push_back(planned.roles[i].weights_pinned
                                       ? mapper::pinned_weight_bytes(network.layers[group.first + i], hardware)
                                       : 0);
  return planned;
}

std::vector<contracts::PlannedGroup> planned_groups(const contracts::Network& network,
                                                    const contracts::Hardware& hardware,
                                                    const contracts::MappingFile& file, const std::string& path) {
  std::vector<contracts::PlannedGroup> groups;
  for (std::size_t index = 0; index < file.fused_groups.size(); ++index) {
    const contracts::FusedGroupEntry& entry = file.fused_groups[index];
    const mapper::LoadedGroup loaded = mapper::loaded_group(network, hardware, file, entry);
    if (loaded.violation) throw util::InputError({path, 0, 0}, fmt::format("fused_groups[{}]", index), *loaded.violation);
    const mapper::FusedGroup& group = loaded.group;
    // The members' shapes as the file recorded them must be the workload's (as for a layer alone).
    for (std::size_t i = 0; i < group.count; ++i)
      contracts::tile_for_layer(file, path, network.layers[group.first + i], hardware);
    groups.push_back(planned_group(network, hardware, group, entry.name));
  }
  return groups;
}

}  // namespace maeri::flow
