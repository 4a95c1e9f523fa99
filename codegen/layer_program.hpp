// LayerProgram: the control program of one layer under one mapping, at the granularity the controller plays
// it — configurations, weight phases and the steps of each phase — before it is encoded into an image.
// The loop nest is the analytical model's (docs/model.md): group tiles of T_G groups side by side (outermost; one
// for an ungrouped layer), then reduction folds (R, S, C slices of the group's channels) and filter tiles of the
// group's filters (a weight phase each) in the mapping's phase order (folds outer by default,
// contracts/phase_order.hpp), then batch, X' and Y' tiles (a control step each, Y' innermost); with an SDM level
// (docs/mapping.md) that nest runs inside each SDM block of the group tile, the blocks in the mapping's SDM loop
// order.
#pragma once

#include <array>
#include <vector>

#include "codegen/fabric_compiler.hpp"
#include "codegen/tile_placement.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::codegen {

// One fabric configuration and the placement it implements (one per distinct phase shape).
struct PhaseConfiguration {
  TilePlacement placement;
  ReductionPlan reduction;
};

struct StepOrigin {
  int n0 = 0, x0 = 0, y0 = 0;
  bool forward = false;  // take operands over the MN forwarding links where the placement says so
};

struct WeightPhase {
  int configuration = 0;              // index into LayerProgram::configurations
  int group = 0;                      // the first of the T_G groups this phase computes (0 for an ungrouped layer)
  int r0 = 0, s0 = 0, c0 = 0, k0 = 0;  // origin of the phase's weight slice inside its group
  // Origin of the SDM block the phase runs in (K, C, N, X', Y' in contracts::SdmDim order; all 0 without an SDM level):
  // its steps cover the block's N, X', Y' ranges.
  std::array<int, contracts::kNumSdmDims> block{};
  bool accumulate = false;            // not the first reduction fold: results add to the stored partial sums
  std::vector<StepOrigin> steps;
};

struct LayerProgram {
  contracts::Layer layer;
  contracts::Mapping mapping;
  int num_ms = 0;
  bool forwarding = false;
  std::vector<PhaseConfiguration> configurations;
  std::vector<WeightPhase> phases;
};

// A program of `layer` under `tile` on `num_ms` multiplier switches, with no configurations or phases yet.
LayerProgram empty_program(const contracts::Layer& layer, const contracts::Mapping& tile, int num_ms);

// The shape of a phase whose R, S, C, K slices have t_r, t_s, t_c, t_k elements (the tile's sizes, or fewer at the
// layer's edge), with the tile's N, X', Y' replicas.
PhaseShape phase_shape(const contracts::Mapping& tile, int t_r, int t_s, int t_c, int t_k);

// The fabric configuration of a phase shape: its placement and the MN, RN and collector words that implement it.
PhaseConfiguration configure_phase(const contracts::Layer& layer, const contracts::Mapping& tile, int num_ms,
                                   const PhaseShape& shape);

// The layer's channel / filter where the slice of the phase's group `group_offset` (0…T_G − 1, VnOffset::g) starts:
// (group + group_offset)·C/groups + c0, (group + group_offset)·K/groups + k0.
int first_channel(const contracts::Layer& layer, const WeightPhase& phase, int group_offset = 0);
int first_filter(const contracts::Layer& layer, const WeightPhase& phase, int group_offset = 0);

enum class PlanDetail {
  Steps,       // every phase lists its steps (what execution needs)
  PhasesOnly,  // phases without their steps (enough to count configurations and traffic of large layers)
};

// The steps of a phase: the T_N, T_X', T_Y' tiles of its SDM block's N, X', Y' ranges (the whole layer without an
// SDM level), Y' innermost; with forwarding every step but the first of each Y' row of the block forwards.
void add_phase_steps(const contracts::Layer& layer, const contracts::Mapping& tile, bool forwarding, WeightPhase& phase);

// Throws LayoutError (or std::invalid_argument for an illegal tile) with the reason.
LayerProgram plan_layer(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                        PlanDetail detail = PlanDetail::Steps);

}  // namespace maeri::codegen
