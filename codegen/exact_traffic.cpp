// Exact traffic by phase shapes and kinds of steps (see exact_traffic.hpp).
#include "codegen/exact_traffic.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "codegen/dn_elements.hpp"
#include "codegen/dn_traffic.hpp"
#include "codegen/fabric_compiler.hpp"
#include "codegen/layer_program.hpp"
#include "codegen/reduction_reference.hpp"

#include "contracts/sdm_budget.hpp"

namespace maeri::codegen {
namespace {

// What one step of a configuration sends through the RN: its traversals and results. A mapping's configurations
// are packed layouts (tile_placement.hpp), whose ART words depend only on the VNs' size and count (forwarding sets
// MN words alone), so these counts are compiled once per (size, count) and shared by every tile and thread.
struct ReductionTraffic {
  std::int64_t rn_traversals = 0, results = 0;
};

class ReductionMemo {
 public:
  ReductionTraffic of(const TilePlacement& placement) {
    const std::pair<int, int> key{placement.shape.vn_size(), placement.shape.vn_count()};
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (const auto found = counted_.find(key); found != counted_.end()) return found->second;
    }
    const ReductionPlan plan = compile_fabric(placement.layout, placement.take_forward);
    const std::vector<std::int64_t> zeros(size_t(placement.layout.num_ms), 0);
    const ReductionOutcome reduction = evaluate_reduction(plan.config, zeros, 32);
    const ReductionTraffic traffic{reduction.traversals, std::int64_t(reduction.vn_results.size())};
    const std::lock_guard<std::mutex> lock(mutex_);
    return counted_.emplace(key, traffic).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<int, int>, ReductionTraffic> counted_;
};

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

// The steps of a phase of one kind (used N/X'/Y' replicas): `times` per Y' tile of the kind, of which there are
// `y_count`. Of those Y' tiles, the ones that start a Y' block load full windows (`starting`); the others continue
// the row (`continuing`: they forward when the shape forwards). Without an SDM level only the tile at Y' origin 0
// starts one; with one, each of its Y' blocks does. A forwarding mapping has T_Y' = 1, hence one kind of Y' tile.
struct StepKind {
  std::int64_t times = 0, y_count = 0;
  bool at_origin = false;  // the kind's Y' tiles start at Y' = 0: the full ones, which start the Y' blocks
  DnTraffic starting, continuing;
};

// The traffic of the phases of one shape (full or ragged in each of R, S, C, K): how many phases have it, and what
// each sends — its weights (once per N·X'·Y' block of an SDM level) and its steps' inputs — and reduces.
struct ShapeTraffic {
  std::int64_t phases = 0;
  DnTraffic weights;
  std::vector<StepKind> step_kinds;
  std::int64_t rn_traversals = 0, results = 0;  // per step
};

// Traffic of all phases of one shape: `phases` of them, each like `phase` (whose configuration is the only one
// in `program`; only its placement is set). uses: buffers reused by every count.
ShapeTraffic shape_traffic(const LayerProgram& program, const WeightPhase& phase, std::int64_t phases, int dn_bw,
                           ReductionMemo& reductions, DnUseKeys& uses) {
  const contracts::Layer& layer = program.layer;
  const PhaseConfiguration& configuration = program.configurations.front();
  const PhaseShape& shape = configuration.placement.shape;
  const bool forwarding = phase_forwards(layer, program.mapping, shape);
  ShapeTraffic traffic;
  traffic.phases = phases;
  traffic.weights = phase_weight_traffic(program, phase, dn_bw, uses);
  const auto one_step = [&](int n0, int x0, int y0, bool forward) {
    return step_input_traffic(program, phase, {n0, x0, y0, forward}, dn_bw, uses);
  };
  const auto y_kinds = tiles_of(layer.output_y(), shape.t_y);
  for (const TileKind& n : tiles_of(layer.N, shape.t_n))
    for (const TileKind& x : tiles_of(layer.output_x(), shape.t_x))
      for (const TileKind& y : y_kinds) {
        StepKind kind;
        kind.times = n.count * x.count;
        kind.y_count = y.count;
        kind.at_origin = y.origin == 0;
        if (kind.at_origin) {
          kind.starting = one_step(n.origin, x.origin, 0, false);
          // Continuing tiles exist for some number of Y' blocks only if there are two or more; a forwarding
          // one stands for all at origin t_Y'.
          if (y.count > 1) kind.continuing = forwarding ? one_step(n.origin, x.origin, shape.t_y, true) : kind.starting;
        } else {
          kind.continuing = one_step(n.origin, x.origin, y.origin, forwarding);
        }
        traffic.step_kinds.push_back(kind);
      }
  const ReductionTraffic reduction = reductions.of(configuration.placement);
  traffic.rn_traversals = reduction.rn_traversals;
  traffic.results = reduction.results;
  return traffic;
}

// The traffic of every phase shape of the tile, in the order of layer_program.cpp's loop nest: each (full or ragged
// in R, S, C, K) occurs count_R·count_S·count_C·count_K times, and its traffic does not depend on where the phase's
// slice starts. One configuration and one phase at a time: never the layer's phases or steps. It does not depend on
// the SDM level (total_of applies it).
std::vector<ShapeTraffic> shapes_of(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                    const contracts::Mapping& tile, ReductionMemo& reductions) {
  using namespace contracts;
  std::vector<ShapeTraffic> shapes;
  DnUseKeys uses;
  LayerProgram program = empty_program(layer, tile, int(hardware.num_ms));
  program.configurations.resize(1);
  for (const TileKind& r : tiles_of(layer.R, tile[kDimR]))
    for (const TileKind& s : tiles_of(layer.S, tile[kDimS]))
      for (const TileKind& c : tiles_of(layer.group_channels(), tile[kDimC]))
        for (const TileKind& k : tiles_of(layer.group_filters(), tile[kDimK])) {
          // The placement alone: the DN counts read it, the RN counts come from `reductions`.
          const PhaseShape shape = phase_shape(tile, r.used, s.used, c.used, k.used);
          program.configurations.front().placement =
              place_tile(program.num_ms, shape, phase_forwards(layer, tile, shape));
          WeightPhase phase;
          phase.configuration = 0;
          phase.r0 = r.origin;
          phase.s0 = s.origin;
          phase.c0 = c.origin;
          phase.k0 = k.origin;
          // Every group tile repeats the phase (the first stands for all: traffic does not depend on the group).
          shapes.push_back(shape_traffic(program, phase,
                                         layer.groups / tile.groups_per_step() * r.count * s.count * c.count * k.count,
                                         int(hardware.dn_bw), reductions, uses));
        }
  return shapes;
}

// The SDM level's N·X'·Y' blocks (each loads a phase's weights once) and Y' blocks (each starts its rows with full
// windows): 1 and 1 without one.
std::pair<std::int64_t, std::int64_t> output_and_y_blocks(const contracts::Layer& layer, const contracts::Mapping& tile) {
  if (!tile.sdm.blocked) return {1, 1};
  const contracts::SdmBlockTraffic blocks = contracts::sdm_block_traffic(layer, tile);
  return {blocks.output_blocks, blocks.trips[contracts::kSdmY]};
}

// The SDM level's `output_blocks` N·X'·Y' blocks each load a phase's weights, its `y_blocks` Y' blocks each start
// their rows with full windows.
ExactTraffic total_of(const std::vector<ShapeTraffic>& shapes, std::int64_t output_blocks, std::int64_t y_blocks) {
  ExactTraffic total;
  for (const ShapeTraffic& shape : shapes) {
    DnTraffic streamed;  // the inputs of all of a phase's steps
    std::int64_t steps = 0;
    for (const StepKind& kind : shape.step_kinds) {
      const std::int64_t starting = kind.at_origin ? std::min(kind.y_count, y_blocks) : 0;
      const std::int64_t continuing = kind.y_count - starting;
      streamed.elements += kind.times * (starting * kind.starting.elements + continuing * kind.continuing.elements);
      streamed.traversals +=
          kind.times * (starting * kind.starting.traversals + continuing * kind.continuing.traversals);
      steps += kind.times * kind.y_count;
    }
    total.dn_elements += shape.phases * (output_blocks * shape.weights.elements + streamed.elements);
    total.dn_traversals += shape.phases * (output_blocks * shape.weights.traversals + streamed.traversals);
    total.rn_traversals += shape.phases * steps * shape.rn_traversals;
    total.results += shape.phases * steps * shape.results;
  }
  return total;
}

}  // namespace

ExactTraffic exact_traffic(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile) {
  if (const auto violation = contracts::mapping_violation(layer, hardware, tile)) throw std::invalid_argument(*violation);
  const auto [output_blocks, y_blocks] = output_and_y_blocks(layer, tile);
  ReductionMemo reductions;
  return total_of(shapes_of(layer, hardware, tile, reductions), output_blocks, y_blocks);
}

void refine_with_exact_traffic(contracts::CostReport& report, const contracts::Layer& layer, const contracts::Hardware& hardware) {
  const ExactTraffic traffic = exact_traffic(layer, hardware, report.mapping);
  contracts::set_traffic(report, traffic.dn_traversals, traffic.rn_traversals, hardware);
}

}  // namespace maeri::codegen

namespace maeri::codegen {

namespace {

// The shapes' traffic of the tiles refined so far, shared by the search's threads: a search refines the same fabric
// tile under many SDM tiles and orders, and what its shapes send per step and phase does not depend on the SDM level
// (shapes_of; total_of applies it), so each fabric tile's placements and steps are counted once.
class ShapeCache {
 public:
  std::shared_ptr<const std::vector<ShapeTraffic>> shapes(const contracts::Layer& layer,
                                                          const contracts::Hardware& hardware,
                                                          const contracts::Mapping& tile) {
    contracts::Mapping key = tile;
    key.sdm = {};
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (const auto found = shapes_.find(key); found != shapes_.end()) return found->second;
    }
    auto counted =
        std::make_shared<const std::vector<ShapeTraffic>>(shapes_of(layer, hardware, tile, reductions_));
    const std::lock_guard<std::mutex> lock(mutex_);
    return shapes_.emplace(std::move(key), std::move(counted)).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<contracts::Mapping, std::shared_ptr<const std::vector<ShapeTraffic>>> shapes_;  // by tile without SDM level
  ReductionMemo reductions_;
};

}  // namespace

contracts::ExactTrafficRefinement exact_traffic_for(const contracts::Layer& layer, const contracts::Hardware& hardware) {
  auto cache = std::make_shared<ShapeCache>();
  return [&layer, &hardware, cache](contracts::CostReport& report) {
    const contracts::Mapping& tile = report.mapping;
    if (const auto violation = contracts::mapping_violation(layer, hardware, tile)) throw std::invalid_argument(*violation);
    const auto [output_blocks, y_blocks] = output_and_y_blocks(layer, tile);
    const ExactTraffic traffic = total_of(*cache->shapes(layer, hardware, tile), output_blocks, y_blocks);
    contracts::set_traffic(report, traffic.dn_traversals, traffic.rn_traversals, hardware);
  };
}

}  // namespace maeri::codegen
