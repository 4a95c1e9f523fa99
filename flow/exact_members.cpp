// A fused group's members timed by the exact model in their roles (see exact_members.hpp).
#include "flow/exact_members.hpp"

#include "flow/fused_groups.hpp"
#include "timing/exact_timing.hpp"
#include "timing/memory_replay.hpp"

namespace maeri::flow {

mapper::ExactMemberTiming exact_member_timing(const contracts::Network& network, const contracts::Hardware& hardware) {
  return [&network, &hardware](const mapper::FusedGroup& group, std::vector<contracts::CostReport>& members) {
    const contracts::PlannedGroup planned = planned_group(network, hardware, group, "");
    for (std::size_t i = 0; i < group.count; ++i) {
      // The member's stripe pieces in its role (timing::exact_member_timing: the group's reservation in its first
      // stripe and in the others), their memory stalls summed as the cross-check sums them.
      const timing::ExactTiming exact = timing::exact_member_timing(
          network.layers[group.first + i], hardware, group.mappings[i], planned.roles[i],
          {planned.reserved_bytes(i, 0), planned.reserved_bytes(i, 1)});
      timing::set_memory_stall(members[i], exact.memory_stall(), hardware);
    }
  };
}

}  // namespace maeri::flow
