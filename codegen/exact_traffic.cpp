// Exact traffic by phase shapes and kinds of steps (see exact_traffic.hpp).
#include "codegen/exact_traffic.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "codegen/dn_elements.hpp"
#include "codegen/dn_traffic.hpp"
#include "codegen/layer_program.hpp"
#include "codegen/reduction_reference.hpp"

#include "contracts/sdm_budget.hpp"

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

// The tiles of one dimension as (used size, count, origin of the first such tile): full tiles, then the ragged one.
struct TileKind {
  int used;
  std::int64_t count;
  int origin;
};
std::vector<TileKind> tiles_of(std::int64_t extent, std::int64_t tile) {
  std::vector<TileKind> kinds;
  if (extent / tile > 0) kinds.push_back({int(tile), extent / tile, 0});
  if (extent % tile) kinds.push_back({int(extent % tile), 1, int(extent / tile * tile)});
  return kinds;
}

// Traffic of all phases of one shape: `phases` of them, each like `phase` (whose configuration is the only one
// in `program`).
// With an SDM level, the weights of each phase are loaded once per N·X'·Y' block (`output_blocks`) and every Y'
// block (`y_blocks` of them) starts its rows with full windows.
void add_shape(const LayerProgram& program, const WeightPhase& phase, std::int64_t phases, int dn_bw,
               std::int64_t output_blocks, std::int64_t y_blocks, ExactTraffic& total) {
  const contracts::Layer& layer = program.layer;
  const PhaseConfiguration& configuration = program.configurations.front();
  const PhaseShape& shape = configuration.placement.shape;
  const bool forwarding = phase_forwards(layer, program.mapping, shape);
  const int num_ms = program.num_ms;
  const StepTraffic weights = traffic_of(phase_weights(program, phase, {}), num_ms, dn_bw);

  // Steps by kind: used N/X'/Y' replicas, and whether the step forwards (Y' tiles after the first of a row).
  std::int64_t steps = 0;
  StepTraffic streamed;
  const auto y_kinds = tiles_of(layer.output_y(), shape.t_y);
  for (const TileKind& n : tiles_of(layer.N, shape.t_n))
    for (const TileKind& x : tiles_of(layer.output_x(), shape.t_x))
      for (const TileKind& y : y_kinds) {
        // Of the y.count tiles of this kind, those that start a Y' block (the one at origin 0 without an SDM
        // level) load full windows; a forwarding mapping has T_Y' = 1, hence one kind of Y' tile.
        const std::int64_t first = y.origin == 0 ? std::min(y.count, y_blocks) : 0;
        const std::pair<std::int64_t, bool> kinds[] = {{first, false}, {y.count - first, forwarding}};
        for (const auto& [count, forward] : kinds) {
          if (count == 0) continue;
          // A representative step of this kind: a forwarding full tile sits at origin t_Y'.
          const int y0 = forward && y.origin == 0 ? shape.t_y : y.origin;
          const StepElements elements = step_inputs(program, phase, {n.origin, x.origin, y0, forward}, {});
          const StepTraffic one = traffic_of(elements.inputs, num_ms, dn_bw);
          const std::int64_t times = n.count * x.count * count;
          streamed.elements += times * one.elements;
          streamed.traversals += times * one.traversals;
          steps += times;
        }
      }
  const std::vector<std::int64_t> zeros(size_t(num_ms), 0);
  const ReductionOutcome reduction = evaluate_reduction(configuration.reduction.config, zeros, 32);
  total.dn_elements += phases * (output_blocks * weights.elements + streamed.elements);
  total.dn_traversals += phases * (output_blocks * weights.traversals + streamed.traversals);
  total.rn_traversals += phases * steps * reduction.traversals;
  total.results += phases * steps * std::int64_t(reduction.vn_results.size());
}

}  // namespace

ExactTraffic exact_traffic(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile) {
  using namespace contracts;
  if (const auto violation = mapping_violation(layer, hardware, tile)) throw std::invalid_argument(*violation);
  ExactTraffic total;
  // One configuration and one phase at a time: never the layer's phases or steps.
  LayerProgram program = empty_program(layer, tile, int(hardware.num_ms));
  std::int64_t output_blocks = 1, y_blocks = 1;
  if (tile.sdm.blocked) {
    const contracts::SdmBlockTraffic blocks = contracts::sdm_block_traffic(layer, tile);
    output_blocks = blocks.output_blocks;
    y_blocks = blocks.trips[kSdmY];
  }
  // The phase shapes in the order of layer_program.cpp's loop nest; each (full or ragged in R, S, C, K) occurs
  // count_R·count_S·count_C·count_K times, and its traffic does not depend on where the phase's slice starts.
  for (const TileKind& r : tiles_of(layer.R, tile[kDimR]))
    for (const TileKind& s : tiles_of(layer.S, tile[kDimS]))
      for (const TileKind& c : tiles_of(layer.group_channels(), tile[kDimC]))
        for (const TileKind& k : tiles_of(layer.group_filters(), tile[kDimK])) {
          program.configurations.assign(
              1, configure_phase(layer, tile, program.num_ms, phase_shape(tile, r.used, s.used, c.used, k.used)));
          WeightPhase phase;
          phase.configuration = 0;
          phase.r0 = r.origin;
          phase.s0 = s.origin;
          phase.c0 = c.origin;
          phase.k0 = k.origin;
          // Every group tile repeats the phase (the first stands for all: traffic does not depend on the group).
          add_shape(program, phase, layer.groups / tile.groups_per_step() * r.count * s.count * c.count * k.count, int(hardware.dn_bw),
                    output_blocks, y_blocks, total);
        }
  return total;
}

void refine_with_exact_traffic(contracts::CostReport& report, const contracts::Layer& layer, const contracts::Hardware& hardware) {
  const ExactTraffic traffic = exact_traffic(layer, hardware, report.mapping);
  contracts::set_traffic(report, traffic.dn_traversals, traffic.rn_traversals, hardware);
}

}  // namespace maeri::codegen

namespace maeri::codegen {

contracts::ExactTrafficRefinement exact_traffic_for(const contracts::Layer& layer, const contracts::Hardware& hardware) {
  return [&layer, &hardware](contracts::CostReport& report) { refine_with_exact_traffic(report, layer, hardware); };
}

}  // namespace maeri::codegen
