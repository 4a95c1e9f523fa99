// Fused groups as images and the manifest express them (see fused_images.hpp).
#include "flow/fused_images.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "mapper/model/fusion_model.hpp"
#include "mapper/search/network_fusion.hpp"
#include "util/input_error.hpp"

namespace maeri::flow {

std::optional<contracts::FusedMember> FusedImagePlan::member(const std::string& layer) const {
  const auto found = members.find(layer);
  if (found == members.end()) return std::nullopt;
  return found->second;
}

FusedImagePlan plan_fused_images(const contracts::Network& network, const contracts::Hardware& hardware,
                                 const contracts::MappingFile& file, const std::string& mapping_path) {
  FusedImagePlan plan;
  if (file.fused_groups.empty()) return plan;
  const mapper::FusionGraph graph = mapper::fusion_graph(network);
  const auto name_of = [&](std::size_t layer) { return network.layers[layer].name; };
  for (std::size_t index = 0; index < file.fused_groups.size(); ++index) {
    const contracts::FusedGroupEntry& entry = file.fused_groups[index];
    const mapper::LoadedGroup loaded = mapper::loaded_group(network, hardware, file, entry);
    if (loaded.violation)
      throw util::InputError({mapping_path, 0, 0}, fmt::format("fused_groups[{}]", index), *loaded.violation);
    const mapper::FusedGroup& group = loaded.group;
    const std::vector<contracts::FusedRole> roles = mapper::group_roles(graph, group);
    codegen::ManifestFusedGroup listed{entry.name, {}, group.stripes, {}, {}, group.token_stripes && group.stripes > 1};
    for (std::size_t i = 0; i < group.count; ++i) {
      const std::string layer = name_of(group.first + i);
      listed.members.push_back(layer);
      if (roles[i].weights_pinned) listed.pinned_weights.push_back(layer);
      if (roles[i].query_rows) listed.query_rows.push_back(layer);
      if (roles[i].output_over_shortcut) listed.output_over_shortcut.push_back(layer);
      plan.members[layer] = contracts::FusedMember{entry.name, std::int64_t(i), std::int64_t(group.count), roles[i]};
    }
    // The graph's edges inside the group, one entry per tensor a producer shares, its consumers in layer order.
    for (const mapper::FusionEdge& edge : graph.edges) {
      if (edge.producer < group.first || edge.consumer >= group.first + group.count) continue;
      auto shared = std::find_if(listed.shared_tensors.begin(), listed.shared_tensors.end(),
                                 [&](const codegen::ManifestSharedTensor& tensor) {
                                   return tensor.producer == name_of(edge.producer) && tensor.tensor == edge.tensor;
                                 });
      if (shared == listed.shared_tensors.end()) {
        // The producer's output also leaves the group exactly when the model does not keep it in the SDM alone.
        const bool also_to_dram = !roles[edge.producer - group.first].output_in_sdm;
        shared = listed.shared_tensors.insert(listed.shared_tensors.end(),
                                              {edge.tensor, name_of(edge.producer), {}, also_to_dram});
      }
      if (edge.through_window || !edge.operand_a) shared->consumers.push_back({name_of(edge.consumer), edge.through_window});
      if (edge.operand_a) shared->consumers.push_back({name_of(edge.consumer), false, true});
    }
    plan.groups.push_back(std::move(listed));
  }
  return plan;
}

}  // namespace maeri::flow
