// Exact traffic by kinds of steps (see exact_traffic.hpp).
#include "codegen/exact_traffic.hpp"

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "codegen/dn_traffic.hpp"
#include "codegen/reduction_reference.hpp"
#include "mapper/cost_model.hpp"

namespace maeri::codegen {
namespace {

struct StepTraffic {
  std::int64_t elements = 0, traversals = 0;
};

// DN traffic of one step of the phase at origin 0 whose used replicas are n_used × x_used × y_used. Elements
// are keyed by their coordinate relative to the step origin, which is how multicast groups form.
StepTraffic step_traffic(const LayerProgram& program, const TilePlacement& placement, const mapper::Hardware& hardware,
                         int n_used, int x_used, int y_used, bool forward) {
  const int size = placement.shape.vn_size(), stride = int(program.layer.stride);
  std::map<std::tuple<int, int, int, int>, std::vector<int>> elements;
  for (size_t v = 0; v < placement.vn_offsets.size(); ++v) {
    const VnOffset& vn = placement.vn_offsets[v];
    if (vn.n >= n_used || vn.x >= x_used || vn.y >= y_used) continue;
    for (int e = 0; e < size; ++e) {
      const int ms = int(v) * size + e;
      if (forward && placement.take_forward[size_t(ms)]) continue;
      const ElementOffset& el = placement.elements[size_t(e)];
      elements[{vn.n, el.c, vn.x * stride + el.r, vn.y * stride + el.s}].push_back(ms);
    }
  }
  StepTraffic traffic;
  for (const auto& entry : elements) {
    traffic.elements += 1;
    traffic.traversals += dn_traversals(program.num_ms, int(hardware.dn_bw), entry.second);
  }
  return traffic;
}

// The tiles of one dimension as (used size, count) pairs: full tiles, then the ragged one.
std::vector<std::pair<int, std::int64_t>> tiles_of(std::int64_t extent, int tile) {
  std::vector<std::pair<int, std::int64_t>> parts;
  if (extent / tile > 0) parts.push_back({tile, extent / tile});
  if (extent % tile) parts.push_back({int(extent % tile), 1});
  return parts;
}

}  // namespace

ExactTraffic exact_traffic(const LayerProgram& program, const mapper::Hardware& hardware) {
  ExactTraffic total;
  std::vector<std::int64_t> phases_of(program.configurations.size(), 0);
  for (const WeightPhase& phase : program.phases) phases_of[size_t(phase.configuration)] += 1;
  const mapper::Layer& layer = program.layer;

  for (size_t c = 0; c < program.configurations.size(); ++c) {
    if (phases_of[c] == 0) continue;
    const PhaseConfiguration& configuration = program.configurations[c];
    const TilePlacement& placement = configuration.placement;
    const PhaseShape& shape = placement.shape;
    const bool forwarding = program.forwarding && shape.t_s > 1;

    // Weights: one multicast element per (k, c, r, s) of the slice, to its position in every replica.
    StepTraffic weights;
    std::map<std::tuple<int, int, int, int>, std::vector<int>> weight_elements;
    for (size_t v = 0; v < placement.vn_offsets.size(); ++v)
      for (int e = 0; e < shape.vn_size(); ++e) {
        const ElementOffset& el = placement.elements[size_t(e)];
        weight_elements[{placement.vn_offsets[v].k, el.c, el.r, el.s}].push_back(int(v) * shape.vn_size() + e);
      }
    for (const auto& entry : weight_elements) {
      weights.elements += 1;
      weights.traversals += dn_traversals(program.num_ms, int(hardware.dn_bw), entry.second);
    }

    // Steps: kinds by used replicas and forwarding; Y' tiles after the first of a row forward.
    std::int64_t steps = 0;
    StepTraffic streamed;
    for (const auto& [n_used, n_count] : tiles_of(layer.N, shape.t_n))
      for (const auto& [x_used, x_count] : tiles_of(layer.output_x(), shape.t_x)) {
        std::int64_t y_index = 0;
        for (const auto& [y_used, y_count] : tiles_of(layer.output_y(), shape.t_y)) {
          // Of these y_count tiles, the one at Y' index 0 (if it is among them) is a full-window step.
          const std::int64_t first = y_index == 0 ? 1 : 0;
          const std::pair<std::int64_t, bool> kinds[] = {{first, false}, {y_count - first, forwarding}};
          for (const auto& [count, forward] : kinds) {
            if (count == 0) continue;
            const StepTraffic one = step_traffic(program, placement, hardware, n_used, x_used, y_used, forward);
            const std::int64_t times = n_count * x_count * count;
            streamed.elements += times * one.elements;
            streamed.traversals += times * one.traversals;
            steps += times;
          }
          y_index += y_count;
        }
      }
    const std::vector<std::int64_t> zeros(size_t(program.num_ms), 0);
    const ReductionOutcome reduction = evaluate_reduction(configuration.reduction.config, zeros, 32);
    total.dn_elements += phases_of[c] * (weights.elements + streamed.elements);
    total.dn_traversals += phases_of[c] * (weights.traversals + streamed.traversals);
    total.rn_traversals += phases_of[c] * steps * reduction.traversals;
    total.fabric_results += phases_of[c] * steps * std::int64_t(reduction.vn_results.size());
  }
  return total;
}

void refine_with_exact_traffic(mapper::CostReport& report, const mapper::Layer& layer,
                               const mapper::Hardware& hardware) {
  const LayerProgram program = plan_layer(layer, hardware, report.tile, PlanDetail::PhasesOnly);
  const ExactTraffic traffic = exact_traffic(program, hardware);
  report.counts.dn_hops = traffic.dn_traversals;
  report.counts.rn_hops = traffic.rn_traversals;
  report.energy_pj = mapper::energy_of(report.counts, hardware.energy_pj);
}

}  // namespace maeri::codegen
