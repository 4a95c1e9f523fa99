// A fused group's members timed by the exact model in their roles (see exact_members.hpp).
#include "flow/exact_members.hpp"

#include "codegen/functional_model.hpp"
#include "codegen/fused_stripes.hpp"
#include "codegen/layer_program.hpp"
#include "flow/fused_groups.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"

namespace maeri::flow {

mapper::ExactMemberTiming exact_member_timing(const contracts::Network& network, const contracts::Hardware& hardware) {
  return [&network, &hardware](const mapper::FusedGroup& group, std::vector<contracts::CostReport>& members) {
    const contracts::PlannedGroup planned = planned_group(network, hardware, group, "");
    for (std::size_t i = 0; i < group.count; ++i) {
      const contracts::Layer& layer = network.layers[group.first + i];
      const contracts::FusedRole& role = planned.roles[i];
      const contracts::Mapping& mapping = group.mappings[i];
      const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
      const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, 1);
      double stall = 0;
      for (const codegen::StripePiece& piece :
           codegen::stripe_pieces(layer, mapping, role.stripes, role.token_stripes, role.query_rows)) {
        const codegen::LayerProgram part = codegen::stripe_program(program, piece);
        const timing::MemoryPlan plan = timing::plan_memory(
            part, hardware, tensors, timing::plan_role(role, piece.index, planned.reserved_bytes(i, piece.index)));
        stall += timing::replay_memory_stall(part, plan, hardware);
      }
      timing::set_memory_stall(members[i], stall, hardware);
    }
  };
}

}  // namespace maeri::flow
