// Exact traffic by kinds of steps (see exact_traffic.hpp).
#include "codegen/exact_traffic.hpp"

#include <vector>

#include "codegen/dn_elements.hpp"
#include "codegen/dn_traffic.hpp"
#include "codegen/reduction_reference.hpp"
#include "mapper/cost_model.hpp"

namespace maeri::codegen {
namespace {

struct StepTraffic {
  std::int64_t elements = 0, traversals = 0;
};

StepTraffic traffic_of(const std::vector<DnElement>& elements, int num_ms, int dn_bw) {
  StepTraffic traffic;
  for (const DnElement& element : elements) {
    traffic.elements += 1;
    traffic.traversals += dn_traversals(num_ms, dn_bw, element.destinations);
  }
  return traffic;
}

// The tiles of one dimension as (used size, count, origin of one such tile): full tiles, then the ragged one.
struct TileKind {
  int used;
  std::int64_t count;
  int origin;
};
std::vector<TileKind> tiles_of(std::int64_t extent, int tile) {
  std::vector<TileKind> kinds;
  if (extent / tile > 0) kinds.push_back({tile, extent / tile, 0});
  if (extent % tile) kinds.push_back({int(extent % tile), 1, int(extent / tile * tile)});
  return kinds;
}

}  // namespace

ExactTraffic exact_traffic(const LayerProgram& program, const spec::Hardware& hardware) {
  ExactTraffic total;
  const spec::Layer& layer = program.layer;
  // Traffic does not depend on the values: zero tensors stand in for the data.
  const std::vector<std::int64_t> zero_input(size_t(layer.input_elements()), 0);
  const std::vector<std::int64_t> zero_weights(size_t(layer.weight_elements()), 0);
  std::vector<std::int64_t> phases_of(program.configurations.size(), 0);
  std::vector<const WeightPhase*> example_of(program.configurations.size(), nullptr);
  for (const WeightPhase& phase : program.phases) {
    phases_of[size_t(phase.configuration)] += 1;
    if (!example_of[size_t(phase.configuration)]) example_of[size_t(phase.configuration)] = &phase;
  }
  const int num_ms = program.num_ms, dn_bw = int(hardware.dn_bw);

  for (size_t c = 0; c < program.configurations.size(); ++c) {
    if (phases_of[c] == 0) continue;
    const WeightPhase& phase = *example_of[c];
    const PhaseShape& shape = program.configurations[c].placement.shape;
    const bool forwarding = program.forwarding && shape.t_s > 1;
    const StepTraffic weights = traffic_of(phase_weights(program, phase, zero_weights), num_ms, dn_bw);

    // Steps by kind: used N/X'/Y' replicas, and whether the step forwards (Y' tiles after the first of a row).
    std::int64_t steps = 0;
    StepTraffic streamed;
    const auto y_kinds = tiles_of(layer.output_y(), shape.t_y);
    for (const TileKind& n : tiles_of(layer.N, shape.t_n))
      for (const TileKind& x : tiles_of(layer.output_x(), shape.t_x))
        for (const TileKind& y : y_kinds) {
          // Of the y.count tiles of this kind, the one at Y' origin 0 (if any) loads full windows.
          const std::int64_t first = y.origin == 0 ? 1 : 0;
          const std::pair<std::int64_t, bool> kinds[] = {{first, false}, {y.count - first, forwarding}};
          for (const auto& [count, forward] : kinds) {
            if (count == 0) continue;
            // A representative step of this kind: a forwarding full tile sits at origin t_Y'.
            const int y0 = forward && y.origin == 0 ? shape.t_y : y.origin;
            const StepElements elements = step_inputs(program, phase, {n.origin, x.origin, y0, forward}, zero_input);
            const StepTraffic one = traffic_of(elements.inputs, num_ms, dn_bw);
            const std::int64_t times = n.count * x.count * count;
            streamed.elements += times * one.elements;
            streamed.traversals += times * one.traversals;
            steps += times;
          }
        }
    const std::vector<std::int64_t> zeros(size_t(num_ms), 0);
    const ReductionOutcome reduction = evaluate_reduction(program.configurations[c].reduction.config, zeros, 32);
    total.dn_elements += phases_of[c] * (weights.elements + streamed.elements);
    total.dn_traversals += phases_of[c] * (weights.traversals + streamed.traversals);
    total.rn_traversals += phases_of[c] * steps * reduction.traversals;
    total.fabric_results += phases_of[c] * steps * std::int64_t(reduction.vn_results.size());
  }
  return total;
}

void refine_with_exact_traffic(spec::CostReport& report, const spec::Layer& layer,
                               const spec::Hardware& hardware) {
  const LayerProgram program = plan_layer(layer, hardware, report.tile, PlanDetail::PhasesOnly);
  const ExactTraffic traffic = exact_traffic(program, hardware);
  report.counts.dn_hops = traffic.dn_traversals;
  report.counts.rn_hops = traffic.rn_traversals;
  report.energy_pj = mapper::energy_of(report.counts, hardware.energy_pj);
}

}  // namespace maeri::codegen
