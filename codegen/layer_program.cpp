// Planning of a layer's configurations, weight phases and steps (loop nest in layer_program.hpp).
#include "codegen/layer_program.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "util/array_hash.hpp"
#include "util/integer_math.hpp"

namespace maeri::codegen {

int first_channel(const contracts::Layer& layer, const WeightPhase& phase, int group_offset) {
  return (phase.group + group_offset) * int(layer.group_channels()) + phase.c0;
}

int first_filter(const contracts::Layer& layer, const WeightPhase& phase, int group_offset) {
  return (phase.group + group_offset) * int(layer.group_filters()) + phase.k0;
}

LayerProgram empty_program(const contracts::Layer& layer, const contracts::Mapping& tile, int num_ms) {
  LayerProgram program;
  program.layer = layer;
  program.mapping = tile;
  program.num_ms = num_ms;
  program.forwarding = contracts::uses_mn_forwarding(layer, tile);
  return program;
}

PhaseShape phase_shape(const contracts::Mapping& tile, int t_r, int t_s, int t_c, int t_k) {
  PhaseShape shape;
  shape.t_r = t_r;
  shape.t_s = t_s;
  shape.t_c = t_c;
  shape.t_k = t_k;
  shape.t_n = int(tile[contracts::kDimN]);
  shape.t_x = int(tile[contracts::kDimX]);
  shape.t_y = int(tile[contracts::kDimY]);
  shape.t_g = int(tile.groups_per_step());
  return shape;
}

PhaseConfiguration configure_phase(const contracts::Layer& layer, const contracts::Mapping& tile, int num_ms,
                                   const PhaseShape& shape) {
  PhaseConfiguration configuration;
  configuration.placement = place_tile(num_ms, shape, phase_forwards(layer, tile, shape));
  configuration.reduction = compile_fabric(configuration.placement.layout, configuration.placement.take_forward);
  return configuration;
}

LayerProgram plan_layer(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                        PlanDetail detail) {
  if (const auto violation = contracts::mapping_violation(layer, hardware, tile)) throw std::invalid_argument(*violation);
  using namespace contracts;
  LayerProgram program = empty_program(layer, tile, int(hardware.num_ms));

  const int R = int(layer.R), S = int(layer.S), C = int(layer.group_channels()), K = int(layer.group_filters());
  const int N = int(layer.N), XO = int(layer.output_x()), YO = int(layer.output_y());
  const int TR = int(tile[kDimR]), TS = int(tile[kDimS]), TC = int(tile[kDimC]), TK = int(tile[kDimK]);

  const std::array<int, kNumSdmDims> extent = {K, C, N, XO, YO};
  std::array<int, kNumSdmDims> block_size = extent;  // one block without an SDM level
  if (tile.sdm.blocked)
    for (int d = 0; d < kNumSdmDims; ++d) block_size[size_t(d)] = int(tile.sdm.block[size_t(d)]);

  std::map<PhaseShape, int> configuration_of;
  std::vector<bool> forwards;  // per configuration: whether its phases' steps forward (phase_forwards)
  PhaseShape last_shape;
  int configuration = -1;  // last_shape's
  // The first phase of each step list (block's N, X', Y' origins, forwarding).
  std::unordered_map<std::array<int, 4>, std::size_t, util::ArrayHash> phase_with_steps;
  std::array<int, 4> last_steps_key{-1, -1, -1, -1};
  std::size_t last_with_steps = 0;  // phase_with_steps[last_steps_key]
  // The fabric's loops over one SDM block (its C and K ranges) of one group.
  const auto fabric_phases = [&](int group, const std::array<int, kNumSdmDims>& block) {
    const int c_end = std::min(C, block[kSdmC] + block_size[kSdmC]);
    const int k_end = std::min(K, block[kSdmK] + block_size[kSdmK]);
    // R, S, C, K loops nested in the mapping's phase order (contracts/phase_order.hpp).
    const std::array<int, 4> begin = {0, 0, block[kSdmC], block[kSdmK]}, end = {R, S, c_end, k_end},
                             step = {TR, TS, TC, TK};
    const std::array<int, 4> nest = fabric_loop_nest(tile.phase_order);
    std::array<int, 4> origin{};
    const std::function<void(int)> fabric_loop = [&](int level) {
      if (level < 4) {
        const size_t dim = size_t(nest[size_t(level)]);
        for (origin[dim] = begin[dim]; origin[dim] < end[dim]; origin[dim] += step[dim]) fabric_loop(level + 1);
        return;
      }
      const int r0 = origin[0], s0 = origin[1], c0 = origin[2], k0 = origin[3];
      const PhaseShape shape =
          phase_shape(tile, std::min(TR, R - r0), std::min(TS, S - s0), std::min(TC, C - c0), std::min(TK, K - k0));
      // Most phases have the previous phase's shape (only edges of R, S, C, K differ): no lookup then.
      if (configuration < 0 || shape < last_shape || last_shape < shape) {
        auto found = configuration_of.find(shape);
        if (found == configuration_of.end()) {
          found = configuration_of.emplace(shape, int(program.configurations.size())).first;
          program.configurations.push_back(configure_phase(layer, tile, program.num_ms, shape));
          forwards.push_back(phase_forwards(layer, tile, shape));
        }
        configuration = found->second;
        last_shape = shape;
      }
      WeightPhase phase;
      phase.configuration = configuration;
      phase.group = group;
      phase.r0 = r0;
      phase.s0 = s0;
      phase.c0 = c0;
      phase.k0 = k0;
      phase.block = block;
      phase.accumulate = r0 > 0 || s0 > 0 || c0 > 0;
      if (detail == PlanDetail::Steps) {
        // The steps depend only on the block's N, X', Y' origins and the forwarding flag: listed once, then copied.
        const bool forwarding = forwards[std::size_t(configuration)];
        const std::array<int, 4> steps_key{block[kSdmN], block[kSdmX], block[kSdmY], int(forwarding)};
        bool listed = false;
        if (steps_key != last_steps_key) {  // most phases: the previous phase's block and forwarding
          const auto [first, added] = phase_with_steps.try_emplace(steps_key, program.phases.size());
          last_steps_key = steps_key;
          last_with_steps = first->second;
          if (added) add_phase_steps(layer, tile, forwarding, phase);
          listed = added;
        }
        if (!listed) phase.steps = program.phases[last_with_steps].steps;
      }
      program.phases.push_back(std::move(phase));
    };
    fabric_loop(0);
  };
  // Group tiles outermost, then the SDM loops, outer to inner in the mapping's order (without an SDM level: one
  // block).
  std::array<int, kNumSdmDims> block{};
  int group = 0;
  const std::function<void(int)> sdm_loop = [&](int level) {
    if (level == kNumSdmDims) return fabric_phases(group, block);
    const size_t dim = tile.sdm.order[size_t(level)];
    for (block[dim] = 0; block[dim] < extent[dim]; block[dim] += block_size[dim]) sdm_loop(level + 1);
    block[dim] = 0;
  };
  for (group = 0; group < int(layer.groups); group += int(tile.groups_per_step())) sdm_loop(0);
  return program;
}

void add_phase_steps(const contracts::Layer& layer, const contracts::Mapping& tile, bool forwarding, WeightPhase& phase) {
  using namespace contracts;
  const int N = int(layer.N), XO = int(layer.output_x()), YO = int(layer.output_y());
  const auto end = [&](int dim, int extent) {
    return tile.sdm.blocked ? std::min<int>(extent, phase.block[size_t(dim)] + int(tile.sdm.block[size_t(dim)])) : extent;
  };
  const int n_end = end(kSdmN, N), x_end = end(kSdmX, XO), y_end = end(kSdmY, YO);
  const int y_begin = phase.block[kSdmY];
  const auto tiles = [](int from, int to, std::int64_t size) {
    return std::size_t(std::max<std::int64_t>(0, util::ceil_div(to - from, size)));
  };
  phase.steps.reserve(phase.steps.size() + tiles(phase.block[kSdmN], n_end, tile[kDimN]) *
                                               tiles(phase.block[kSdmX], x_end, tile[kDimX]) *
                                               tiles(y_begin, y_end, tile[kDimY]));
  for (int n0 = phase.block[kSdmN]; n0 < n_end; n0 += int(tile[kDimN]))
    for (int x0 = phase.block[kSdmX]; x0 < x_end; x0 += int(tile[kDimX]))
      for (int y0 = y_begin; y0 < y_end; y0 += int(tile[kDimY]))
        phase.steps.push_back({n0, x0, y0, forwarding && y0 > y_begin});
}

}  // namespace maeri::codegen
