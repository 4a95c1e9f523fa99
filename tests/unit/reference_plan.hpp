// The memory plan as it was built before it was counted (timing/memory_plan.cpp until issue 45): every step's DN
// elements grouped (StepInputCache) and their sources marked one by one, output tiles kept in ordered sets. The
// tests hold the counted plan equal to it, event by event and field by field. Test-only: nothing in the toolkit
// calls it.
#pragma once

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "codegen/dn_elements.hpp"
#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "timing/memory_plan.hpp"
#include "timing/step_input_cache.hpp"
#include "util/integer_math.hpp"

namespace maeri::test::reference {

using timing::MemoryEvent;
using timing::MemoryPlan;
using timing::PlanRole;
using timing::SdmHold;
using timing::StepInputCache;

namespace detail {

// Inputs of a step not yet in the SDM (marked as fetched now): what the step's read brings in.
inline std::int64_t new_fills(const std::vector<codegen::DnElement>& inputs, std::vector<bool>& fetched) {
  std::int64_t fills = 0;
  for (const codegen::DnElement& element : inputs)
    if (!fetched[std::size_t(element.source)]) {
      fetched[std::size_t(element.source)] = true;
      ++fills;
    }
  return fills;
}

// Two-level mappings (docs/model.md, "SDM level"; the same rule as contracts::sdm_block_traffic, event by event): each
// tensor's SDM copy lives while its block does. Inputs and weights are fetched on first use within their block's
// stay; each output tile is read back from DRAM on its first visit of a stay that is not its first reduction fold,
// and written back on its last visit of each stay.
// In a fused role the fills the group already holds are left out, and a shared output's final write (its tile's last
// visit) stays in the SDM.
inline void plan_blocked(const codegen::LayerProgram& program, const contracts::Hardware& hardware,
                  const codegen::LayerTensors& tensors, const PlanRole& role, MemoryPlan& plan) {
  const contracts::Layer& layer = program.layer;
  const std::int64_t data_b = contracts::data_bytes(hardware), acc_b = contracts::accumulator_bytes(hardware);
  const std::int64_t padded_x = layer.X + 2 * layer.padding_x, padded_y = layer.Y + 2 * layer.padding_y;
  std::vector<bool> fetched(std::size_t(layer.N * layer.C * padded_x * padded_y), false);
  // Every key starts with the group: a grouped layer runs its SDM blocks group after group.
  std::set<std::array<int, 5>> weights_here;  // weight slices (group, r0, s0, c0, k0) in the SDM
  std::set<std::array<int, 5>> outputs_here;  // output tiles (group, k0, n0, x0, y0) visited in the block's stay
  std::array<int, 5> input_block{-1, -1, -1, -1, -1}, output_block{-1, -1, -1, -1, -1};
  std::array<int, 3> weight_block{-1, -1, -1};
  int input_stay = -1, output_stay = -1;
  struct StepKey {
    std::size_t event;
    int stay;
    std::array<int, 5> tile;
    std::int64_t bytes;
  };
  std::vector<StepKey> steps;
  StepInputCache step_inputs;  // the plan needs each element's source, not its value
  using contracts::kSdmC, contracts::kSdmK, contracts::kSdmN, contracts::kSdmX, contracts::kSdmY;
  for (const codegen::WeightPhase& phase : program.phases) {
    const auto& b = phase.block;
    const std::array<int, 5> in{phase.group, b[kSdmC], b[kSdmN], b[kSdmX], b[kSdmY]},
        out{phase.group, b[kSdmK], b[kSdmN], b[kSdmX], b[kSdmY]};
    const std::array<int, 3> w{phase.group, b[kSdmK], b[kSdmC]};
    if (in != input_block) {
      std::fill(fetched.begin(), fetched.end(), false);
      input_block = in;
      ++input_stay;
    }
    if (w != weight_block) {
      weights_here.clear();
      weight_block = w;
    }
    if (out != output_block) {
      outputs_here.clear();
      output_block = out;
      ++output_stay;
    }
    MemoryEvent weights;
    weights.weights = true;
    weights.slice = input_stay;  // a new input block's first phase frees the previous block's inputs
    weights.sdm_reads = std::int64_t(codegen::phase_weights(program, phase, tensors.weights).size());
    if (weights_here.insert({phase.group, phase.r0, phase.s0, phase.c0, phase.k0}).second && !role.weights_in_sdm)
      weights.fill_elements = weights.sdm_reads;
    weights.read_bytes = weights.fill_elements * data_b;
    plan.events.push_back(weights);

    const codegen::PhaseConfiguration& configuration = program.configurations[std::size_t(phase.configuration)];
    const std::int64_t configured_vns = configuration.placement.shape.vn_count();
    for (const codegen::StepOrigin& origin : phase.steps) {
      const codegen::StepElements& elements = step_inputs.inputs(program, phase, origin, {});
      const std::int64_t used = std::count(elements.used_vns.begin(), elements.used_vns.end(), true);
      MemoryEvent step;
      step.slice = input_stay;
      step.hold = SdmHold::UntilSliceEnds;
      step.sdm_reads = std::int64_t(elements.inputs.size());
      step.fill_elements = role.inputs_in_sdm ? 0 : detail::new_fills(elements.inputs, fetched);
      const std::array<int, 5> tile{phase.group, phase.k0, origin.n0, origin.x0, origin.y0};
      const bool first_visit = outputs_here.insert(tile).second;
      step.staging_bytes = configured_vns * acc_b;
      step.psum_reads = phase.accumulate ? used : 0;
      step.output_writes = used;
      step.held_bytes = step.fill_elements * data_b;
      step.read_bytes = step.held_bytes + (first_visit && phase.accumulate ? used * acc_b : 0);
      steps.push_back({plan.events.size(), output_stay, tile, used * acc_b});
      plan.events.push_back(step);
    }
  }
  // The last visit of an output tile in each stay writes it back; its very last visit is its final write.
  std::set<std::pair<int, std::array<int, 5>>> written;
  std::set<std::array<int, 5>> final_written;
  for (auto step = steps.rbegin(); step != steps.rend(); ++step) {
    const bool final_write = final_written.insert(step->tile).second;
    if (written.insert({step->stay, step->tile}).second && !(final_write && role.output_in_sdm))
      plan.events[step->event].write_bytes = step->bytes;
  }
}

}  // namespace detail

inline MemoryPlan plan_memory(const codegen::LayerProgram& program, const contracts::Hardware& hardware,
                       const codegen::LayerTensors& tensors, const PlanRole& role) {
  const contracts::Layer& layer = program.layer;
  const contracts::Mapping& tile = program.mapping;
  MemoryPlan plan;
  plan.budget = contracts::sdm_budget(layer, hardware, tile);
  plan.budget.stream_buffer_bytes = std::max<std::int64_t>(0, plan.budget.stream_buffer_bytes - role.reserved_bytes);
  if (plan.budget.blocked) {
    detail::plan_blocked(program, hardware, tensors, role, plan);
    return plan;
  }
  if (role.inputs_in_sdm || role.weights_in_sdm || role.output_in_sdm)
    throw std::invalid_argument("plan_memory: layer " + layer.name +
                                " has no SDM level, so it cannot keep a tensor in the SDM for a fused group");
  const std::int64_t data_b = contracts::data_bytes(hardware), acc_b = contracts::accumulator_bytes(hardware);
  const bool resident = plan.budget.resident;
  const std::int64_t padded_x = layer.X + 2 * layer.padding_x, padded_y = layer.Y + 2 * layer.padding_y;
  const int slices_per_group = int(util::ceil_div(layer.group_channels(), tile[contracts::kDimC]));
  const bool filters_outer = contracts::effective_phase_order(layer, tile) == contracts::PhaseOrder::FiltersOuter;
  std::vector<bool> fetched(resident ? std::size_t(layer.N * layer.C * padded_x * padded_y) : 0, false);
  StepInputCache step_inputs;  // the plan needs each element's source, not its value

  for (const codegen::WeightPhase& phase : program.phases) {
    const codegen::PhaseConfiguration& configuration = program.configurations[std::size_t(phase.configuration)];
    // Filters outer, every channel slice of the group comes back once per filter tile: resident inputs stay for
    // the whole group (the residency rule sizes them so, contracts/sdm_budget.cpp).
    const int slice = filters_outer ? phase.group : phase.group * slices_per_group + phase.c0 / int(tile[contracts::kDimC]);
    const bool last_fold = phase.c0 + tile[contracts::kDimC] >= layer.group_channels() && phase.r0 + tile[contracts::kDimR] >= layer.R &&
                           phase.s0 + tile[contracts::kDimS] >= layer.S;
    // Results go back to DRAM after every step, unless the partial sums live in the SDM until the last fold.
    const bool writes_back = !plan.budget.psums_in_sdm || last_fold;
    const bool psums_from_dram = phase.accumulate && !plan.budget.psums_in_sdm;

    MemoryEvent weights;
    weights.weights = true;
    weights.slice = slice;
    weights.sdm_reads = std::int64_t(codegen::phase_weights(program, phase, tensors.weights).size());
    weights.fill_elements = weights.sdm_reads;  // each phase holds distinct weights: fetched exactly once
    weights.read_bytes = weights.fill_elements * data_b;
    plan.events.push_back(weights);

    const std::int64_t configured_vns = configuration.placement.shape.vn_count();
    for (const codegen::StepOrigin& origin : phase.steps) {
      const codegen::StepElements& elements = step_inputs.inputs(program, phase, origin, {});
      const std::int64_t used = std::count(elements.used_vns.begin(), elements.used_vns.end(), true);
      MemoryEvent step;
      step.slice = slice;
      step.sdm_reads = std::int64_t(elements.inputs.size());
      if (resident) {
        step.fill_elements = role.inputs_in_sdm ? 0 : detail::new_fills(elements.inputs, fetched);
        step.hold = SdmHold::UntilSliceEnds;
      } else {
        step.fill_elements = step.sdm_reads;
      }
      step.staging_bytes = configured_vns * acc_b;
      step.psum_reads = phase.accumulate ? used : 0;
      step.output_writes = used;
      step.read_bytes = step.fill_elements * data_b + (psums_from_dram ? used * acc_b : 0);
      step.held_bytes = resident ? step.read_bytes : 0;  // resident: no partial sums come from DRAM
      step.write_bytes = writes_back ? used * acc_b : 0;
      plan.events.push_back(step);
    }
  }
  return plan;
}

}  // namespace maeri::test::reference
