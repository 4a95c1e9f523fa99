// Building a layer's memory plan (see memory_plan.hpp and docs/cosim.md, "Memory system").
#include "sim/memory_plan.hpp"

#include <algorithm>

#include "codegen/dn_elements.hpp"
#include "spec/integer_math.hpp"

namespace maeri::sim {

MemoryPlan plan_memory(const codegen::LayerProgram& program, const spec::Hardware& hardware,
                       const codegen::LayerTensors& tensors) {
  const spec::Layer& layer = program.layer;
  const spec::Tile& tile = program.tile;
  MemoryPlan plan;
  plan.budget = mapper::sdm_budget(layer, hardware, tile);
  const std::int64_t data_b = mapper::data_bytes(hardware), acc_b = mapper::accumulator_bytes(hardware);
  const bool resident = plan.budget.resident;
  const std::int64_t padded_x = layer.X + 2 * layer.padding_x, padded_y = layer.Y + 2 * layer.padding_y;
  const int slices_per_group = int(spec::ceil_div(layer.group_channels(), tile[spec::kDimC]));
  std::vector<bool> fetched(resident ? std::size_t(layer.N * layer.C * padded_x * padded_y) : 0, false);

  for (const codegen::WeightPhase& phase : program.phases) {
    const codegen::PhaseConfiguration& configuration = program.configurations[std::size_t(phase.configuration)];
    const int slice = phase.group * slices_per_group + phase.c0 / int(tile[spec::kDimC]);
    const bool last_fold = phase.c0 + tile[spec::kDimC] >= layer.group_channels() && phase.r0 + tile[spec::kDimR] >= layer.R &&
                           phase.s0 + tile[spec::kDimS] >= layer.S;
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
      const codegen::StepElements elements = codegen::step_inputs(program, phase, origin, tensors.input);
      const std::int64_t used = std::count(elements.used_vns.begin(), elements.used_vns.end(), true);
      MemoryEvent step;
      step.slice = slice;
      step.sdm_reads = std::int64_t(elements.inputs.size());
      if (resident) {
        for (const codegen::DnElement& element : elements.inputs)
          if (!fetched[std::size_t(element.source)]) {
            fetched[std::size_t(element.source)] = true;
            ++step.fill_elements;
          }
        step.hold = SdmHold::UntilSliceEnds;
      } else {
        step.fill_elements = step.sdm_reads;
      }
      step.staging_bytes = configured_vns * acc_b;
      step.psum_reads = phase.accumulate ? used : 0;
      step.output_writes = used;
      step.read_bytes = step.fill_elements * data_b + (psums_from_dram ? used * acc_b : 0);
      step.write_bytes = writes_back ? used * acc_b : 0;
      plan.events.push_back(step);
    }
  }
  return plan;
}

}  // namespace maeri::sim
