// A fused group's members timed by the exact model in their roles (see exact_members.hpp).
#include "flow/exact_members.hpp"

#include <map>
#include <memory>
#include <tuple>

#include "flow/fused_groups.hpp"
#include "timing/exact_timing.hpp"
#include "timing/memory_replay.hpp"

namespace maeri::flow {

namespace {

// What a member's exact timing depends on: its layer's shape, its mapping, its role and the group's reservation in
// its first stripe and in the others — the same in every candidate group that holds the member so (ResNet-50's
// repeated blocks, a group and the groups that extend it).
struct MemberKey {
  std::vector<std::int64_t> shape;
  contracts::Mapping mapping;
  contracts::FusedRole role;
  std::int64_t first_reserved = 0, other_reserved = 0;
  auto tied() const {
    return std::tie(shape, mapping, role.input_in_sdm, role.output_in_sdm, role.stripes, role.weights_pinned,
                    role.output_over_shortcut, role.weights_in_sdm, role.token_stripes, role.query_rows,
                    first_reserved, other_reserved);
  }
  bool operator<(const MemberKey& other) const { return tied() < other.tied(); }
};

std::vector<std::int64_t> shape_of(const contracts::Layer& layer) {
  std::vector<std::int64_t> shape{static_cast<std::int64_t>(layer.type)};
  for (const contracts::LayerShapeField& field : contracts::kLayerShapeFields) shape.push_back(layer.*field.member);
  return shape;
}

}  // namespace

mapper::ExactMemberTiming exact_member_timing(const contracts::Network& network, const contracts::Hardware& hardware) {
  // Memory stalls already timed, shared by the hook's copies (the fused search times many candidate groups).
  auto stalls = std::make_shared<std::map<MemberKey, double>>();
  return [&network, &hardware, stalls](const mapper::FusedGroup& group, std::size_t i, contracts::CostReport& report) {
    const contracts::PlannedGroup planned = planned_group(network, hardware, group, "");
    const contracts::Layer& layer = network.layers[group.first + i];
    const std::vector<std::int64_t> reserved{planned.reserved_bytes(i, 0), planned.reserved_bytes(i, 1)};
    MemberKey key{shape_of(layer), group.mappings[i], planned.roles[i], reserved[0], reserved[1]};
    auto found = stalls->find(key);
    const bool replay = found == stalls->end();
    if (replay) {
      // The member's stripe pieces in its role (timing::exact_member_timing: the group's reservation in its first
      // stripe and in the others), their memory stalls summed as the cross-check sums them.
      const timing::ExactTiming exact =
          timing::exact_member_timing(layer, hardware, group.mappings[i], planned.roles[i], reserved);
      found = stalls->emplace(std::move(key), exact.memory_stall()).first;
    }
    timing::set_memory_stall(report, found->second, hardware);
    return replay;
  };
}

}  // namespace maeri::flow
