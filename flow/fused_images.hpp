// The fused groups of a mapping file as images and the network manifest express them (docs/config-image.md,
// version 7; docs/network-manifest.md): each group checked against the workload's graph, each member's record with
// the role the model costs it in (mapper::group_roles over mapper::fusion_graph) and the manifest's view of the
// group (members, stripes, pinned weights, the tensors its members share). What `maeri codegen --mapping F
// --workload W` writes; a chained run can build the same images in memory (codegen::build_image with the record).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/network_manifest.hpp"
#include "contracts/fused_role.hpp"
#include "contracts/hardware.hpp"
#include "contracts/mapping_file.hpp"
#include "contracts/network.hpp"

namespace maeri::flow {

struct FusedImagePlan {
  std::map<std::string, contracts::FusedMember> members;  // by layer name: the record of each member's image
  std::vector<codegen::ManifestFusedGroup> groups;         // in the file's order
  // The record of a layer's image: nullopt for a layer in no group.
  std::optional<contracts::FusedMember> member(const std::string& layer) const;
};

// Throws util::InputError naming `mapping_path`, `fused_groups[i]`, the group, the rule and the tensor when a group
// breaks a rule of fused groups (mapper::group_violation).
FusedImagePlan plan_fused_images(const contracts::Network& network, const contracts::Hardware& hardware,
                                 const contracts::MappingFile& file, const std::string& mapping_path);

}  // namespace maeri::flow
