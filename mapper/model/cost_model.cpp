// Implementation of the analytical model (docs/model.md). The loop nest it costs, outer to inner:
//   for each group tile (T_G groups side by side; the layer's groups / T_G of them)
//   for each reduction fold (T_R x T_S x T_C slice of R, S, C)  } in the mapping's phase order: folds-outer as
//     for each filter tile (T_K filters)                        } here, or filters-outer (the two swapped)
//                                                   <- weight phase: weights loaded once, then stationary
//       for each batch tile, X' tile, Y' tile       <- control step: inputs streamed, VN results collected
// The order of the two outer loops changes only the runs of equal phase shapes (configurations) and, without an
// SDM level, the residency rule (docs/mapping.md, "Phase order").
// Each dimension splits into full tiles and at most one ragged edge tile; the model walks every
// combination of full/edge sizes with its multiplicity, so edge tiles are costed exactly.
#include "mapper/model/cost_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "contracts/sdm_budget.hpp"
#include "contracts/sdm_rules.hpp"
#include "util/integer_math.hpp"

namespace maeri::mapper {
namespace {


// The sizes a dimension takes over its tiles and how often each occurs.
struct DimParts {
  std::int64_t size[2];
  std::int64_t count[2];
  int parts;
};

DimParts split(std::int64_t extent, std::int64_t tile) {
  DimParts parts{{tile, extent % tile}, {extent / tile, 1}, extent % tile ? 2 : 1};
  return parts;
}

// Switch traversals to multicast one element from the root of an L-level binary tree to `fanout`
// scattered leaves: the top log2(f) levels form a shared subtree of f - 1 switches, below which each
// of the f copies travels alone through L - log2(f) levels (exact for f = 1 and for f = num_ms).
double multicast_hops(double fanout, int levels) {
  if (fanout <= 1) return levels;
  const double shared_levels = std::min<double>(std::log2(fanout), levels);
  return (fanout - 1) + fanout * (levels - shared_levels);
}

// Lower bound of the DN traversals of `elements` elements that have `destinations` destinations in all
// (docs/model.md, "Exact traffic"): at a level l at or above the conversion level c, an element with f
// destinations enters at least max(1, ceil(f / 2^(L-l))) switches (a level-l switch covers 2^(L-l) leaves), and
// the sum over elements of max(1, ceil(f/B)) is at least max(elements, ceil(destinations / B)); below c every
// destination counts once per level, exactly.
std::int64_t dn_traversal_lower_bound(std::int64_t elements, std::int64_t destinations, int levels,
                                      int conversion_level) {
  const int switch_levels = conversion_level < levels ? conversion_level + 1 : levels;
  std::int64_t total = static_cast<std::int64_t>(levels - switch_levels) * destinations;
  for (int level = 0; level < switch_levels; ++level) {
    const int shift = levels - level;  // ceil(destinations / 2^shift) by shifts: this runs for every tile
    total += std::max(elements, (destinations + (std::int64_t(1) << shift) - 1) >> shift);
  }
  return total;
}

// Lower bound of the RN traversals of one VN of V multiplier switches: its V products enter the leaf adders,
// which are at least ceil(V/2); all but the one that emits the sum send their token on (up or over a link),
// and each send enters another adder.
std::int64_t rn_traversal_lower_bound(std::int64_t vn_size) {
  return vn_size + std::max<std::int64_t>(0, util::ceil_div(vn_size, std::int64_t(2)) - 1);
}


// Runs of equal phase shapes in the program's phase order (R, S, C, K tiles nested as the mapping's phase order
// says: R S C K or K R S C, outer to inner). A phase's shape is the set of dimensions in which it is the ragged
// edge tile (bit d for R, S, C, K); every run is one fabric configuration. Built from the innermost dimension
// outwards: n copies of an inner sequence Q under the same outer flag merge their boundary runs exactly when Q
// starts and ends with the same shape.
struct ShapeRuns {
  std::array<std::int64_t, 16> runs;  // runs per shape (shape_runs sets all 16 by its last level)
  std::int64_t total() const {
    std::int64_t sum = 0;
    for (std::int64_t r : runs) sum += r;
    return sum;
  }
};

// The group tiles of a grouped layer (T_G groups each) repeat the whole sequence, outermost: `groups` copies whose
// boundary runs merge in the same way.
ShapeRuns shape_runs(const DimParts* parts, std::int64_t groups, contracts::PhaseOrder order) {
  ShapeRuns inner;
  inner.runs.fill(0);
  inner.runs[0] = 1;  // the empty inner sequence: one phase, no flags
  if (parts[contracts::kDimR].parts == 1 && parts[contracts::kDimS].parts == 1 && parts[contracts::kDimC].parts == 1 && parts[contracts::kDimK].parts == 1)
    return inner;  // no ragged tile: a single configuration, in every group (the common case in the search)
  const std::array<int, 4> nest = contracts::fabric_loop_nest(order);
  int first = 0, last = 0;
  unsigned placed = 0;  // the dimensions of the inner sequence: its shapes have no other bits
  for (int level = 3; level >= 0; --level) {
    const int dim = nest[size_t(level)];  // R, S, C, K are tile dimensions 0..3 and shape bits 0..3
    const DimParts& d = parts[dim];
    const std::int64_t full = d.count[0], edge = d.parts == 2 ? 1 : 0;
    const int bit = 1 << dim;
    // The inner sequence's shapes are the subsets of `placed`; each gives the outer shape without and with `bit`,
    // which together are every subset of placed + bit, each set once. Only those entries are touched (walking the
    // subsets, not all 16): this runs for every ragged tile of the search.
    ShapeRuns outer;
    for (unsigned shape = placed;; shape = (shape - 1) & placed) {
      outer.runs[shape] = full * inner.runs[shape];
      outer.runs[shape | unsigned(bit)] = edge * inner.runs[shape];
      if (shape == 0) break;
    }
    if (full > 1 && first == last) outer.runs[size_t(first)] -= full - 1;  // the full copies join up
    first = full > 0 ? first : (first | bit);
    last = edge > 0 ? (last | bit) : last;
    placed |= unsigned(bit);
    inner = outer;
  }
  if (groups > 1) {
    for (std::int64_t& run : inner.runs) run *= groups;
    if (first == last) inner.runs[size_t(first)] -= groups - 1;
  }
  return inner;
}

// The same runs for a mapping with an SDM level (docs/model.md, "SDM level"): the phase sequence is the SDM
// loops in their order (N, X', Y' blocks repeat their inner sequence; C and K blocks change the extent the fabric
// loops cover, the last block possibly ragged) around the fabric's R, S, C, K loops over the block. Sequences are
// combined by their runs per shape and their first and last shapes: n copies merge n − 1 boundary runs when the
// sequence starts and ends with the same shape; two sequences one when the first ends as the second starts.
struct RunSequence {
  std::array<std::int64_t, 16> runs{};
  int first = -1, last = -1;  // -1: empty
};

RunSequence concat(RunSequence a, const RunSequence& b) {
  if (a.first < 0) return b;
  if (b.first < 0) return a;
  for (size_t i = 0; i < 16; ++i) a.runs[i] += b.runs[i];
  if (a.last == b.first) --a.runs[size_t(a.last)];
  a.last = b.last;
  return a;
}

RunSequence repeat(RunSequence a, std::int64_t times) {
  if (times == 0 || a.first < 0) return {};
  for (std::int64_t& r : a.runs) r *= times;
  if (a.first == a.last) a.runs[size_t(a.first)] -= times - 1;
  return a;
}

// The fabric loops R, S, C, K over extents `extent` (R, S, and the block's C and K ranges), nested in the tile's
// phase order, inside one SDM block: the single-level recursion (shape_runs); the sequence starts with the full tile of every dimension that has one
// and ends with the edge tile of every dimension that has one.
RunSequence fabric_runs(const contracts::Mapping& tile, const std::array<std::int64_t, 4>& extent) {
  static const int kDims[4] = {contracts::kDimR, contracts::kDimS, contracts::kDimC, contracts::kDimK};
  DimParts parts[contracts::kNumTileDims];
  RunSequence sequence;
  sequence.first = sequence.last = 0;
  for (int i = 0; i < 4; ++i) {
    parts[kDims[i]] = split(extent[size_t(i)], tile[kDims[i]]);
    if (parts[kDims[i]].count[0] == 0) sequence.first |= 1 << i;  // only the edge tile
    if (parts[kDims[i]].parts == 2) sequence.last |= 1 << i;
  }
  sequence.runs = shape_runs(parts, 1, tile.phase_order).runs;
  return sequence;
}

RunSequence sdm_runs(const contracts::Layer& layer, const contracts::Mapping& tile, const contracts::SdmBlockTraffic& traffic, int level,
                     std::array<std::int64_t, 4> extent) {
  if (level == contracts::kNumSdmDims) return fabric_runs(tile, extent);
  const int dim = tile.sdm.order[size_t(level)];
  if (dim != contracts::kSdmC && dim != contracts::kSdmK) {
    const std::int64_t trips = traffic.trips[size_t(dim)];
    return trips == 1 ? sdm_runs(layer, tile, traffic, level + 1, extent)
                      : repeat(sdm_runs(layer, tile, traffic, level + 1, extent), trips);
  }
  const size_t slot = dim == contracts::kSdmC ? 2 : 3;
  const std::int64_t length = dim == contracts::kSdmC ? layer.group_channels() : layer.group_filters();
  const std::int64_t block = tile.sdm.block[size_t(dim)];
  extent[slot] = block;
  RunSequence sequence = repeat(sdm_runs(layer, tile, traffic, level + 1, extent), length / block);
  if (length % block) {
    extent[slot] = length % block;
    sequence = concat(sequence, sdm_runs(layer, tile, traffic, level + 1, extent));
  }
  return sequence;
}

// Whether a C or K block of a group is ragged (the blocks cover a group's channels and filters): only then does the
// phase sequence, hence the fabric part, depend on the SDM loop order.
bool ragged_channel_or_filter_block(const contracts::Layer& layer, const contracts::Mapping& tile) {
  return layer.group_channels() % tile.sdm.block[contracts::kSdmC] != 0 ||
         layer.group_filters() % tile.sdm.block[contracts::kSdmK] != 0;
}

ShapeRuns blocked_shape_runs(const contracts::Layer& layer, const contracts::Mapping& tile, const contracts::SdmBlockTraffic& traffic) {
  const auto& block = tile.sdm.block;
  const std::int64_t channels = layer.group_channels(), filters = layer.group_filters();
  RunSequence sequence;
  if (!ragged_channel_or_filter_block(layer, tile)) {
    // Every block runs the same fabric sequence, whatever the order (the common case in the search).
    std::int64_t blocks = 1;
    for (std::int64_t trips : traffic.trips) blocks *= trips;
    sequence = repeat(fabric_runs(tile, {layer.R, layer.S, block[contracts::kSdmC], block[contracts::kSdmK]}), blocks);
  } else {
    sequence = sdm_runs(layer, tile, traffic, 0, {layer.R, layer.S, channels, filters});
  }
  // The group tiles, outermost, repeat the whole sequence.
  sequence = repeat(sequence, layer.groups / tile.groups_per_step());
  ShapeRuns runs;
  runs.runs = sequence.runs;
  return runs;
}

// Query-row stripes (codegen/image_program.cpp): the stripe loop is the kb loop with every group tile inside it, and
// each stripe, following another member on the fabric, starts with a configuration of its own. So the runs are the
// sum over the stripes of one stripe's sequence (one K block of every group tile): the full blocks' stripes, then
// the stripe of a ragged last block, whose phases may have other shapes.
ShapeRuns query_row_stripe_runs(const contracts::Layer& layer, const contracts::Mapping& tile,
                                const contracts::SdmBlockTraffic& one_stripe) {
  const std::int64_t rows = layer.group_filters(), block = tile.sdm.block[contracts::kSdmK];
  const auto stripe = [&](std::int64_t stripe_rows) {
    contracts::Layer stripe_layer = layer;  // the SDM's K loop runs over the layer's filters: one block of each group
    stripe_layer.K = layer.groups * stripe_rows;
    return repeat(sdm_runs(stripe_layer, tile, one_stripe, 0, {layer.R, layer.S, layer.group_channels(), stripe_rows}),
                  layer.groups / tile.groups_per_step());
  };
  ShapeRuns runs;
  const RunSequence full = stripe(block);
  for (size_t i = 0; i < runs.runs.size(); ++i) runs.runs[i] = full.runs[i] * (rows / block);
  if (rows % block) {
    const RunSequence edge = stripe(rows % block);
    for (size_t i = 0; i < runs.runs.size(); ++i) runs.runs[i] += edge.runs[i];
  }
  return runs;
}

// A fused stripe after the first follows another layer's program on the fabric, so it configures the fabric again
// where the layer's own sequence would have kept its configuration: one more run (configuration, drain, first fire)
// of the shape one stripe's phases (one X' block, or one N block with token stripes) start and end in, at every
// stripe boundary. Where they start and end in different shapes, the boundary reconfigures anyway. Query-row
// stripes reorder the phases (query_row_stripe_runs).
void add_stripe_runs(const contracts::Layer& layer, const contracts::Mapping& tile,
                     const contracts::SdmBlockTraffic& traffic, const FusedRole& role, ShapeRuns& runs) {
  const std::int64_t stripes = role.stripes;
  if (stripes <= 1) return;
  contracts::SdmBlockTraffic one_stripe = traffic;
  one_stripe.trips[contracts::stripe_dim(role)] = 1;
  if (role.query_rows) {
    runs = query_row_stripe_runs(layer, tile, one_stripe);
    return;
  }
  const RunSequence stripe = sdm_runs(layer, tile, one_stripe, 0,
                                      {layer.R, layer.S, layer.group_channels(), layer.group_filters()});
  if (stripe.first == stripe.last) runs.runs[size_t(stripe.first)] += stripes - 1;
}

// What the loop nest leaves for the blocks after it.
struct LoopNestTotals {
  double dn_traversal_estimate = 0;    // the multicast estimate, rounded once at the end
  double active_ms_steps = 0;          // Σ over steps of active multiplier switches (Eq. 3)
  TrafficLowerBounds lower_bounds;     // of the exact DN/RN traversals
  std::int64_t drain_lane_cycles = 0;  // extra output-lane cycles of each configuration run's last step
  // The program's last weight phase (edge tile in R, S, C and K): its streaming cycles and its results, which
  // all go back to DRAM while it runs (docs/model.md, "Memory timing").
  double last_phase_streaming = 0;
  std::int64_t last_phase_results = 0;
};

// What every phase shape of the loop nest shares: the layer's tiling and the fabric's beat and tree sizes.
struct LoopNest {
  LoopNest(const contracts::Layer& layer_, const contracts::Hardware& hardware, const contracts::Mapping& tile_,
           const DimParts* parts_, bool estimate_traffic_, const contracts::SdmBlockTraffic* blocks)
      : layer(layer_),
        tile(tile_),
        parts(parts_),
        estimate_traffic(estimate_traffic_),
        output_blocks(blocks ? blocks->output_blocks : 1),
        row_starts_per_row(blocks ? blocks->trips[contracts::kSdmY] : 1),
        levels(util::ceil_log2(hardware.num_ms)),
        conversion_level(contracts::dn_conversion_level(hardware.num_ms, hardware.dn_bw)),
        per_dn_beat(hardware.dn_bw),
        per_rn_beat(hardware.rn_bw),
        y_steps_per_row(util::ceil_div(contracts::layer_extents(layer_)[contracts::kDimY], tile_[contracts::kDimY])),
        weight_replicas(tile_[contracts::kDimN] * tile_[contracts::kDimX] * tile_[contracts::kDimY]),
        groups_per_step(tile_.groups_per_step()) {}
  std::int64_t span_x(std::int64_t outputs, std::int64_t taps) const {
    return contracts::window_span(outputs, taps, layer.stride_x, layer.dilation_x);
  }
  std::int64_t span_y(std::int64_t outputs, std::int64_t taps) const {
    return contracts::window_span(outputs, taps, layer.stride_y, layer.dilation_y);
  }

  const contracts::Layer& layer;
  const contracts::Mapping& tile;
  const DimParts* parts;
  bool estimate_traffic;
  // With an SDM level every weight phase runs once per N·X'·Y' block (streaming that block's steps), and each Y'
  // block starts its rows with full windows (docs/model.md, "SDM level").
  std::int64_t output_blocks, row_starts_per_row;
  int levels, conversion_level;
  util::CeilDivider per_dn_beat, per_rn_beat;
  std::int64_t y_steps_per_row, weight_replicas;
  // T_G: every step (and phase) holds this many groups' VNs side by side, each group with its own inputs and
  // weights, so nothing is multicast across groups (docs/model.md, "Groups").
  std::int64_t groups_per_step;
};

// One phase shape of the loop nest (full or edge tile in each of R, S, C, K).
struct PhaseShapeTerms {
  std::int64_t t_r, t_s, t_c, t_k;
  // `phases`: the fabric's weight slices of this shape, in every group tile (docs/model.md, "Groups");
  // `weight_phases`: how often they are loaded.
  std::int64_t phases, weight_phases;
  std::int64_t active_vn_size, unique_weights;  // unique_weights: of all T_G groups of the phase
  bool forwarding;
};

// The weight loads of one phase shape and the overlap at its phase boundaries; `runs_here`: its configuration runs.
void cost_weight_loads(const LoopNest& nest, const PhaseShapeTerms& shape, std::int64_t runs_here,
                       contracts::CostReport& report, LoopNestTotals& totals) {
  contracts::ActivityCounts& counts = report.counts;
  contracts::CycleBreakdown& cycles = report.cycles;
  const DimParts* parts = nest.parts;
  const std::int64_t weight_phases = shape.weight_phases, unique_weights = shape.unique_weights;
  const std::int64_t weight_beats = nest.per_dn_beat(unique_weights);
  cycles.weight_load += static_cast<double>(weight_phases * weight_beats);
  // Overlap at phase boundaries (docs/model.md, "Cycles"): the next phase's weight beats go out while the
  // collector's fire spacing holds the next fire back, and the first fire after a (re)configuration does
  // not wait at all. The first step of a phase uses the first N, X', Y' tiles with full windows.
  const std::int64_t spacing = nest.per_rn_beat(nest.groups_per_step * shape.t_k * nest.weight_replicas);
  const std::int64_t first_inputs = nest.groups_per_step * parts[contracts::kDimN].size[0] * shape.t_c *
                                    nest.span_x(parts[contracts::kDimX].size[0], shape.t_r) *
                                    nest.span_y(parts[contracts::kDimY].size[0], shape.t_s);
  const std::int64_t first_beats = std::max<std::int64_t>(nest.per_dn_beat(first_inputs), 1);
  const std::int64_t after_phase =
      weight_beats + std::max(first_beats, spacing) - std::max(weight_beats + first_beats, spacing);
  const std::int64_t after_configuration = std::max(first_beats, spacing) - first_beats;
  cycles.phase_overlap -=
      static_cast<double>(weight_phases * after_phase + runs_here * (after_configuration - after_phase));
  // Each run of this shape ends in a drain, during which the collector needs `spacing` cycles for the last
  // step's results instead of one.
  totals.drain_lane_cycles += runs_here * (spacing - 1);

  counts.sdm_weight_reads += weight_phases * unique_weights;
  counts.mn_weight_loads += weight_phases * unique_weights * nest.weight_replicas;
  if (nest.estimate_traffic)
    totals.dn_traversal_estimate += static_cast<double>(weight_phases * unique_weights) *
                      multicast_hops(static_cast<double>(nest.weight_replicas), nest.levels);
  totals.lower_bounds.dn_traversals +=
      weight_phases *
      dn_traversal_lower_bound(unique_weights, unique_weights * nest.weight_replicas, nest.levels, nest.conversion_level);
}

// The control steps of every phase of one shape: each combination of full and edge N, X', Y' tiles, with and
// without forwarding.
void cost_steps(const LoopNest& nest, const PhaseShapeTerms& shape, contracts::CostReport& report,
                LoopNestTotals& totals) {
  contracts::ActivityCounts& counts = report.counts;
  contracts::CycleBreakdown& cycles = report.cycles;
  const DimParts* parts = nest.parts;
  const std::int64_t t_r = shape.t_r, t_s = shape.t_s, t_c = shape.t_c, t_k = shape.t_k;
  const std::int64_t active_vn_size = shape.active_vn_size;
  for (int in = 0; in < parts[contracts::kDimN].parts; ++in)
  for (int ix = 0; ix < parts[contracts::kDimX].parts; ++ix)
  for (int iy = 0; iy < parts[contracts::kDimY].parts; ++iy) {
    const std::int64_t t_n = parts[contracts::kDimN].size[in], t_x = parts[contracts::kDimX].size[ix], t_y = parts[contracts::kDimY].size[iy];
    const std::int64_t steps =
        shape.phases * parts[contracts::kDimN].count[in] * parts[contracts::kDimX].count[ix] * parts[contracts::kDimY].count[iy];
    const std::int64_t active_vns = nest.groups_per_step * t_k * t_n * t_x * t_y;
    // A ragged N, X' or Y' tile leaves VNs idle, but the fabric still multiplies and reduces in every VN of
    // the configuration; only the used VNs' results are collected (docs/config-image.md).
    const std::int64_t configured_vns = nest.groups_per_step * t_k * nest.weight_replicas;
    const std::int64_t operands = active_vns * active_vn_size;
    const std::int64_t rows = nest.span_x(t_x, t_r);
    const std::int64_t full_inputs = nest.groups_per_step * t_n * t_c * rows * nest.span_y(t_y, t_s);

    // With forwarding, the first step of each Y' row loads whole windows, the others one new column.
    std::int64_t full_steps = steps, shifted_steps = 0;
    if (shape.forwarding) {
      full_steps = steps / nest.y_steps_per_row * nest.row_starts_per_row;
      shifted_steps = steps - full_steps;
    }
    const std::int64_t shifted_inputs = nest.groups_per_step * t_n * t_c * rows;
    const std::int64_t forwarded_operands = active_vns * t_r * (t_s - 1) * t_c;
    const std::int64_t forwarding_switches = configured_vns * t_r * (t_s - 1) * t_c;
    const std::int64_t rn_cycles = nest.per_rn_beat(configured_vns);

    const auto cost_step_kind = [&](std::int64_t count, std::int64_t inputs, std::int64_t forwarded,
                                    std::int64_t forwarding_now) {
      if (count == 0) return;
      const std::int64_t dn_cycles = nest.per_dn_beat(inputs);
      const std::int64_t step_cycles = std::max<std::int64_t>({dn_cycles, rn_cycles, 1});
      cycles.streaming += static_cast<double>(count * step_cycles);
      if (dn_cycles >= rn_cycles && dn_cycles > 1) report.dn_limited_steps += count;
      if (rn_cycles > dn_cycles && rn_cycles > 1) report.rn_limited_steps += count;
      counts.sdm_input_reads += count * inputs;
      counts.mn_operand_loads += count * (operands - forwarded);
      counts.mn_forwards += count * forwarding_now;
      if (nest.estimate_traffic) {
        const double fanout = static_cast<double>(operands - forwarded) / static_cast<double>(inputs);
        totals.dn_traversal_estimate += static_cast<double>(count * inputs) * multicast_hops(fanout, nest.levels);
      }
      totals.lower_bounds.dn_traversals +=
          count * dn_traversal_lower_bound(inputs, operands - forwarded, nest.levels, nest.conversion_level);
    };
    cost_step_kind(full_steps, full_inputs, 0, 0);
    cost_step_kind(shifted_steps, shifted_inputs, forwarded_operands, forwarding_switches);

    report.counts.fires += steps;
    counts.multiplications += steps * configured_vns * active_vn_size;
    counts.useful_multiplications += steps * operands;
    counts.additions += steps * configured_vns * (active_vn_size - 1);
    counts.vn_results += steps * active_vns;
    counts.results += steps * configured_vns;
    totals.lower_bounds.rn_traversals += steps * configured_vns * rn_traversal_lower_bound(active_vn_size);
    totals.active_ms_steps += static_cast<double>(steps * operands);
  }
}

// Counts that follow from the loop nest as a whole: reduction folds, accumulation, SDM output traffic and the
// traversal counts (the estimates, or their lower bounds).
void finish_loop_nest_counts(const contracts::Layer& layer, const contracts::Mapping& tile, const LoopNestTotals& totals,
                             bool estimate_traffic, contracts::CostReport& report) {
  contracts::ActivityCounts& counts = report.counts;
  const auto extents = contracts::layer_extents(layer);
  const std::int64_t outputs = layer.output_elements();
  report.reduction_folds = util::ceil_div(extents[contracts::kDimR], tile[contracts::kDimR]) *
                           util::ceil_div(extents[contracts::kDimS], tile[contracts::kDimS]) *
                           util::ceil_div(extents[contracts::kDimC], tile[contracts::kDimC]);
  counts.accumulation_additions = outputs * (report.reduction_folds - 1);
  counts.sdm_psum_reads = counts.accumulation_additions;
  counts.sdm_output_writes = counts.vn_results;
  if (estimate_traffic) {
    counts.rn_traversals = counts.multiplications + counts.additions;
    counts.dn_traversals = static_cast<std::int64_t>(std::llround(totals.dn_traversal_estimate));
  } else {
    counts.rn_traversals = totals.lower_bounds.rn_traversals;
    counts.dn_traversals = totals.lower_bounds.dn_traversals;
  }
}

// docs/model.md "Loop nest", "Distribution (DN) serialisation", "Reduction (RN) serialisation", the streaming,
// weight-load and phase-overlap terms of "Cycles", and "Activity counts": walks every combination of full and
// edge tile sizes with its multiplicity.
LoopNestTotals cost_loop_nest(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                              const DimParts* parts, const ShapeRuns& runs, contracts::CostReport& report,
                              bool estimate_traffic, const contracts::SdmBlockTraffic* blocks) {
  const LoopNest nest(layer, hardware, tile, parts, estimate_traffic, blocks);
  LoopNestTotals totals;
  for (int ir = 0; ir < parts[contracts::kDimR].parts; ++ir)
  for (int is = 0; is < parts[contracts::kDimS].parts; ++is)
  for (int ic = 0; ic < parts[contracts::kDimC].parts; ++ic)
  for (int ik = 0; ik < parts[contracts::kDimK].parts; ++ik) {
    PhaseShapeTerms shape;
    shape.t_r = parts[contracts::kDimR].size[ir];
    shape.t_s = parts[contracts::kDimS].size[is];
    shape.t_c = parts[contracts::kDimC].size[ic];
    shape.t_k = parts[contracts::kDimK].size[ik];
    shape.phases = layer.groups / nest.groups_per_step * parts[contracts::kDimR].count[ir] * parts[contracts::kDimS].count[is] *
                   parts[contracts::kDimC].count[ic] * parts[contracts::kDimK].count[ik];
    shape.weight_phases = shape.phases * nest.output_blocks;
    shape.active_vn_size = shape.t_r * shape.t_s * shape.t_c;
    shape.unique_weights = nest.groups_per_step * shape.t_k * shape.active_vn_size;
    shape.forwarding = contracts::phase_uses_mn_forwarding(layer, tile, shape.t_s);

    report.counts.weight_phases += shape.weight_phases;
    const bool last_phase_shape = ir == parts[contracts::kDimR].parts - 1 && is == parts[contracts::kDimS].parts - 1 &&
                                  ic == parts[contracts::kDimC].parts - 1 && ik == parts[contracts::kDimK].parts - 1;
    const double streaming_before = report.cycles.streaming;
    const std::int64_t results_before = report.counts.vn_results;
    cost_weight_loads(nest, shape, runs.runs[size_t(ir | is << 1 | ic << 2 | ik << 3)], report, totals);
    cost_steps(nest, shape, report, totals);
    if (last_phase_shape) {
      totals.last_phase_streaming = (report.cycles.streaming - streaming_before) / static_cast<double>(shape.weight_phases);
      totals.last_phase_results = (report.counts.vn_results - results_before) / shape.weight_phases;
    }
  }
  finish_loop_nest_counts(layer, tile, totals, estimate_traffic, report);
  return totals;
}

// The inputs an SDM-blocked layer fetches in its role: as its SDM loops dictate, or, in query-row stripes, those of
// one stripe again in every stripe (the stripes are the K loop, which the inputs do not depend on, but the group's
// other members run between them: docs/model.md, "Fused groups").
std::int64_t input_fills(const FusedRole& role, const contracts::SdmBlockTraffic& blocks) {
  if (!role.query_rows || role.stripes <= 1) return blocks.input_fills;
  // The stripe loop is outermost (fused_member_violation): with another input loop of several blocks inside it the
  // inputs already come back once per K block; otherwise the layer alone would have fetched them once.
  using namespace contracts;
  const bool inner_input_loop = blocks.trips[kSdmC] > 1 || blocks.trips[kSdmN] > 1 || blocks.trips[kSdmX] > 1 ||
                                blocks.trips[kSdmY] > 1;
  return inner_input_loop ? blocks.input_fills : blocks.input_fills * role.stripes;
}

// docs/model.md "Memory": SDM fills and DRAM bytes, and the bytes read from DRAM (fills and partial sums read
// back), which the memory timing needs.
struct MemoryTraffic {
  contracts::SdmBudget sdm;
  bool blocked = false;
  std::int64_t read_bytes = 0;
};

// Without an SDM level the fold loop is outermost, so a resident SDM (sdm_budget.hpp) fetches every touched input
// and every weight once; otherwise nothing is reused in the SDM beyond a step: inputs are fetched per step and
// partial sums spill to DRAM. With an SDM level each tensor's blocks are fetched as the SDM loop order dictates
// (sdm_block_traffic), and each output's block is written back once per visit and read back on every visit but
// the first.
// `sdm` and `compulsory` do not depend on the SDM loop order: computed once per fabric part (fabric_part).
// In a fused group (`role`) a shared input is already in the SDM and a shared output stays there; weights fetched
// again for every stripe come back once per stripe (docs/model.md, "Fused groups").
MemoryTraffic count_memory_traffic(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::SdmBudget& sdm_use,
                                   std::int64_t compulsory, const contracts::SdmBlockTraffic* blocks,
                                   const FusedRole& role, contracts::CostReport& report) {
  contracts::ActivityCounts& counts = report.counts;
  const std::int64_t data_b = contracts::data_bytes(hardware);
  const std::int64_t acc_b = contracts::accumulator_bytes(hardware);
  const std::int64_t weights = layer.weight_elements();
  const std::int64_t outputs = layer.output_elements();
  MemoryTraffic traffic;
  traffic.sdm = sdm_use;
  const contracts::SdmBudget& sdm = traffic.sdm;
  report.sdm_resident = sdm.resident;
  report.compulsory_dram_bytes = compulsory;
  if (blocks) {
    traffic.blocked = true;
    const bool one_weight_block = blocks->trips[contracts::kSdmK] == 1 && blocks->trips[contracts::kSdmC] == 1;
    const std::int64_t weight_fills =
        role.weights_in_sdm ? 0
        : role.stripes > 1 && one_weight_block && !role.weights_pinned ? weights * role.stripes
                                                                        : blocks->weight_fills;
    counts.sdm_fill_writes = (role.input_in_sdm ? 0 : input_fills(role, *blocks)) + weight_fills;
    traffic.read_bytes = counts.sdm_fill_writes * data_b + outputs * (blocks->output_visits - 1) * acc_b;
    counts.dram_bytes =
        traffic.read_bytes + outputs * (blocks->output_visits - (role.output_in_sdm ? 1 : 0)) * acc_b;
  } else if (sdm.resident) {
    counts.sdm_fill_writes = sdm.touched_inputs + weights;
    traffic.read_bytes = counts.sdm_fill_writes * data_b;
    counts.dram_bytes = traffic.read_bytes + outputs * acc_b;
  } else {
    counts.sdm_fill_writes = counts.sdm_input_reads + weights;
    traffic.read_bytes = counts.sdm_fill_writes * data_b + counts.sdm_psum_reads * acc_b;
    counts.dram_bytes = counts.sdm_fill_writes * data_b + (counts.sdm_psum_reads + counts.sdm_output_writes) * acc_b;
  }
  return traffic;
}

// The cycles of one configuration written through the config port (docs/model.md "Cycles", reconfiguration).
double configuration_cycles(const contracts::Hardware& hardware) {
  return static_cast<double>(contracts::configuration_words(hardware.num_ms, hardware.config_bw)) /
         hardware.model.config_words_per_cycle;
}

// docs/model.md "Cycles", the terms after the loop nest: phases follow each other without a bubble (weights for
// the next phase travel right behind the last step of the previous one); the pipeline fills and drains once per
// configuration, since the fabric must be idle before its configuration words change (docs/rtl.md). Returns the
// compute cycles (ideal memory).
double compute_cycles(const contracts::Hardware& hardware, const LoopNestTotals& totals, contracts::CostReport& report) {
  const contracts::ModelParameters& model = hardware.model;
  contracts::CycleBreakdown& cycles = report.cycles;
  cycles.fill_drain = static_cast<double>(report.counts.configurations) * contracts::pipeline_latency(hardware) +
                      static_cast<double>(totals.drain_lane_cycles);
  cycles.control_overhead = static_cast<double>(report.counts.fires) * model.step_overhead +
                            static_cast<double>(report.counts.weight_phases) * model.phase_overhead;
  cycles.reconfiguration = static_cast<double>(report.counts.configurations) * configuration_cycles(hardware);
  return cycles.streaming + cycles.weight_load + cycles.phase_overlap + cycles.fill_drain + cycles.control_overhead +
         cycles.reconfiguration;
}

// docs/model.md "Memory timing": the run's cycles with the SDM and the DRAM channel, from the compute cycles and
// the traffic.
double memory_time(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                   const MemoryTraffic& traffic, const LoopNestTotals& totals, double compute,
                   const contracts::CostReport& report) {
  const contracts::SdmBudget& sdm = traffic.sdm;
  const contracts::ModelParameters& model = hardware.model;
  const contracts::ActivityCounts& counts = report.counts;
  const contracts::CycleBreakdown& cycles = report.cycles;
  const auto extents = contracts::layer_extents(layer);
  const std::int64_t data_b = contracts::data_bytes(hardware);
  const std::int64_t acc_b = contracts::accumulator_bytes(hardware);
  const double pipeline_latency = contracts::pipeline_latency(hardware);
  const double configuration_cycles = mapper::configuration_cycles(hardware);
  const double last_phase_streaming = totals.last_phase_streaming;
  const std::int64_t last_phase_results = totals.last_phase_results;
  // Memory timing (docs/model.md, "Memory timing"): a fluid model of the one FIFO DRAM channel. Reads are
  // prefetched in program order as early as the SDM allows; writes are posted as results appear. The run ends
  // when the fabric has computed (plus what the first data and the last writes add) or when the channel has
  // moved every byte and the data of the last read has gone through the fabric, whichever is later.
  const double bandwidth = hardware.dram_bytes_per_cycle * model.dram_efficiency;
  const double latency = static_cast<double>(hardware.dram_latency_cycles);
  const auto edge = [&extents, &tile](int dim) {
    const std::int64_t rest = extents[dim] % tile[dim];
    return rest ? rest : tile[dim];
  };
  const std::int64_t first_bytes =
      tile.groups_per_step() *
      (tile[contracts::kDimK] * tile.vn_size() + tile[contracts::kDimN] * tile[contracts::kDimC] *
                                                contracts::window_span(tile[contracts::kDimX], tile[contracts::kDimR], layer.stride_x, layer.dilation_x) *
                                                contracts::window_span(tile[contracts::kDimY], tile[contracts::kDimS], layer.stride_y, layer.dilation_y)) *
      data_b;
  const std::int64_t last_write_bytes = tile.groups_per_step() * edge(contracts::kDimK) * edge(contracts::kDimN) *
                                        edge(contracts::kDimX) * edge(contracts::kDimY) * acc_b;
  const std::int64_t read_bytes = traffic.read_bytes;
  const std::int64_t write_bytes = counts.dram_bytes - read_bytes;
  const double startup = std::max(0.0, latency + static_cast<double>(first_bytes) / bandwidth - configuration_cycles);
  // Writes go out while results appear: from the first result on, or only in the last reduction fold when the
  // partial sums stay in the SDM and the folds are the outer loop. Reads still queued when they start compete with them.
  const double before_results = configuration_cycles + pipeline_latency;
  const double write_window = std::max(1.0, (compute - before_results) /
                                                static_cast<double>(sdm.writes_in_last_fold ? report.reduction_folds : 1));
  const double write_start = compute - write_window;
  const double late_reads = std::max(0.0, static_cast<double>(read_bytes) - bandwidth * write_start);
  // The tail after the last result: the last step's write-back, the backlog the last phase's results leave, or
  // the backlog of the whole write window, whichever is largest.
  const double tail = std::max({static_cast<double>(last_write_bytes),
                                static_cast<double>(last_phase_results * acc_b) - last_phase_streaming * bandwidth,
                                late_reads + static_cast<double>(write_bytes) - write_window * bandwidth}) /
                      bandwidth;
  const double compute_bound = compute + startup + tail;
  // DRAM-bound: every byte crosses the channel; and the last read's data still has to arrive, pass through the
  // fabric and be written back.
  double dram_bound = std::max(static_cast<double>(counts.dram_bytes) / bandwidth,
                               latency + static_cast<double>(read_bytes) / bandwidth + 1 + pipeline_latency +
                                   static_cast<double>(last_write_bytes) / bandwidth);
  if (!sdm.resident && !traffic.blocked && report.counts.fires > 0) {
    // Little's law: a streaming SDM holds a step's data from its request until the step retires, so only as many
    // steps as fit the stream buffer are in flight, each for a latency, its transfer, the pipeline and the step.
    const double step_bytes = static_cast<double>(read_bytes) / static_cast<double>(report.counts.fires);
    const double in_flight = std::max(1.0, std::floor(static_cast<double>(sdm.stream_buffer_bytes) / step_bytes));
    const double hold = latency + step_bytes / bandwidth + pipeline_latency +
                        cycles.streaming / static_cast<double>(report.counts.fires) + 1;
    dram_bound = std::max(dram_bound, std::ceil(static_cast<double>(report.counts.fires) / in_flight) * hold);
  }
  // Bursts make the two bounds interfere where they are close: the p-norm with p = 1 / memory_contention
  // blends max (contention 0, perfect overlap) into the sum (contention 1, no overlap).
  const double longer = std::max(compute_bound, dram_bound);
  double time = longer;
  if (model.memory_contention > 1e-6) {
    const double p = 1 / model.memory_contention;
    time = longer * std::pow(std::pow(compute_bound / longer, p) + std::pow(dram_bound / longer, p), 1 / p);
  }
  return time;

}

}  // namespace

namespace {

// evaluate() and evaluate_lower_bound(): the traversal counts are the estimates, or the lower bounds.
// What does not depend on the SDM loop order when the phase sequence does not (every C and K block of the same
// extent, or no SDM level): the loop nest and the compute cycles.
struct FabricPart {
  contracts::CostReport report;
  LoopNestTotals totals;
  double compute = 0;
  contracts::SdmBudget sdm;                         // how the mapping uses the SDM (sdm_budget: not order-dependent)
  std::int64_t compulsory_dram_bytes = 0;
};

FabricPart fabric_part(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                       bool estimate_traffic, const FusedRole& role = {}) {
  FabricPart part;
  contracts::CostReport& report = part.report;
  report.mapping = tile;
  report.vn_size = tile.vn_size();
  report.vn_count = tile.vn_count();
  report.idle_ms = hardware.num_ms - tile.mapped_ms();
  report.peak_utilisation = static_cast<double>(tile.mapped_ms()) / static_cast<double>(hardware.num_ms);
  report.uses_forwarding = contracts::uses_mn_forwarding(layer, tile);

  const auto extents = contracts::layer_extents(layer);
  DimParts parts[contracts::kNumTileDims];
  for (int dim = 0; dim < contracts::kNumTileDims; ++dim) parts[dim] = split(extents[dim], tile[dim]);
  contracts::SdmBlockTraffic block_traffic;
  const contracts::SdmBlockTraffic* blocks = nullptr;
  if (tile.sdm.blocked) {
    block_traffic = contracts::sdm_block_traffic(layer, tile);
    blocks = &block_traffic;
  }
  ShapeRuns runs = blocks ? blocked_shape_runs(layer, tile, *blocks)
                          : shape_runs(parts, layer.groups / tile.groups_per_step(), tile.phase_order);
  if (blocks) add_stripe_runs(layer, tile, *blocks, role, runs);
  report.counts.configurations = runs.total();
  part.totals = cost_loop_nest(layer, hardware, tile, parts, runs, report, estimate_traffic, blocks);
  part.compute = compute_cycles(hardware, part.totals, report);
  part.sdm = contracts::sdm_budget(layer, hardware, tile);
  part.compulsory_dram_bytes = contracts::compulsory_dram_bytes(layer, hardware);
  return part;
}

// The rest for one mapping (`tile`, whose fabric part `part` is): memory traffic and timing, utilisation, energy.
contracts::CostReport finish(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                        const FabricPart& part, TrafficLowerBounds* bounds, const FusedRole& role = {}) {
  contracts::CostReport report = part.report;
  report.mapping = tile;
  contracts::SdmBlockTraffic block_traffic;
  const contracts::SdmBlockTraffic* blocks = nullptr;
  if (tile.sdm.blocked) {
    block_traffic = contracts::sdm_block_traffic(layer, tile);
    blocks = &block_traffic;
  }
  const MemoryTraffic traffic =
      count_memory_traffic(layer, hardware, part.sdm, part.compulsory_dram_bytes, blocks, role, report);
  const double compute = part.compute;
  const double time = memory_time(layer, hardware, tile, traffic, part.totals, compute, report);
  report.cycles.memory_stall = time - compute;
  report.cycles.total = compute + report.cycles.memory_stall;

  // docs/model.md "Utilisation" and "Energy".
  report.average_utilisation = part.totals.active_ms_steps / (static_cast<double>(report.counts.fires) *
                                                              static_cast<double>(hardware.num_ms));
  report.compute_efficiency = static_cast<double>(report.counts.useful_multiplications) /
                              (static_cast<double>(hardware.num_ms) * report.cycles.total);
  report.energy_pj = energy_of(report.counts, hardware.energy_pj);
  if (bounds) *bounds = part.totals.lower_bounds;
  return report;
}

contracts::CostReport evaluate_model(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                                TrafficLowerBounds* bounds, bool estimate_traffic) {
  return finish(layer, hardware, tile, fabric_part(layer, hardware, tile, estimate_traffic), bounds);
}

}  // namespace

contracts::CostReport evaluate(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                          TrafficLowerBounds* bounds) {
  return evaluate_model(layer, hardware, tile, bounds, true);
}

contracts::CostReport evaluate(const contracts::Layer& layer, const contracts::Hardware& hardware,
                               const contracts::Mapping& tile, const FusedRole& role) {
  return finish(layer, hardware, tile, fabric_part(layer, hardware, tile, true, role), nullptr, role);
}

contracts::CostReport evaluate_lower_bound(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile) {
  return evaluate_model(layer, hardware, tile, nullptr, false);
}

CyclesLowerBound::CyclesLowerBound(const contracts::Layer& layer, const contracts::Hardware& hardware)
    : layer_(&layer), extents_(contracts::layer_extents(layer)), per_rn_beat_(hardware.rn_bw), hardware_(&hardware),
      dn_bw_(static_cast<double>(hardware.dn_bw)) {
  dram_bytes_per_cycle_ = hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency;
  data_bytes_ = contracts::data_bytes(hardware);
  weight_bytes_ = layer.weight_elements() * data_bytes_;
  step_overhead_ = hardware.model.step_overhead;
  phase_cost_ = hardware.model.phase_overhead;
  // At least one configuration: its words and one pipeline fill and drain.
  fixed_ = contracts::pipeline_latency(hardware) + configuration_cycles(hardware);
  for (int dim = 0; dim < contracts::kNumTileDims; ++dim) {
    const std::int64_t extent = extents_[size_t(dim)];
    tiles_[size_t(dim)].assign(size_t(extent + 1), 0);
    for (std::int64_t t = 1; t <= extent; ++t) tiles_[size_t(dim)][size_t(t)] = util::ceil_div(extent, t);
  }
  const auto span_sums = [&](int outputs, int taps, std::int64_t stride, std::int64_t dilation) {
    const std::int64_t out_extent = extents_[size_t(outputs)], tap_extent = extents_[size_t(taps)];
    std::vector<std::int64_t> sums(size_t((out_extent + 1) * (tap_extent + 1)), 0);
    for (std::int64_t t_out = 1; t_out <= out_extent; ++t_out)
      for (std::int64_t t_tap = 1; t_tap <= tap_extent; ++t_tap) {
        const DimParts out = split(out_extent, t_out), tap = split(tap_extent, t_tap);
        std::int64_t sum = 0;
        for (int i = 0; i < out.parts; ++i)
          for (int j = 0; j < tap.parts; ++j)
            sum += out.count[i] * tap.count[j] * contracts::window_span(out.size[i], tap.size[j], stride, dilation);
        sums[size_t(t_out * (tap_extent + 1) + t_tap)] = sum;
      }
    return sums;
  };
  span_sum_x_ = span_sums(contracts::kDimX, contracts::kDimR, layer.stride_x, layer.dilation_x);
  span_sum_y_ = span_sums(contracts::kDimY, contracts::kDimS, layer.stride_y, layer.dilation_y);
}

// Why it is a bound (cost_loop_nest, compute_cycles, memory_time): total ≥ compute, since the memory stall is never
// negative; a phase's weight beats are at least what the phase overlap hides behind them; what the overlap takes
// from the first step of a configuration run (at most `spacing` − 1) the run's drain adds back (`spacing` − 1). So
// compute ≥ Σ over steps of max(1, DN cycles, RN cycles) ≥ max(steps, Σ RN cycles, Σ inputs / dn_bw), plus one
// configuration and fill, plus the non-negative overheads. Both sums factor over the dimensions' full and edge
// tiles: RN cycles depend on t_K alone, and a step's inputs are t_N·t_C·span(t_X', t_R)·span(t_Y', t_S), or at
// least t_N·t_C·span(t_X', t_R) when the tile forwards in the MN (Σ over the tiles of a dimension of t_d is D).
// Total: a single-level mapping whose SDM is not resident reads every step's inputs and every weight from DRAM
// (count_memory_traffic), and the run lasts at least its DRAM bytes over the channel's bandwidth (memory_time).
CyclesLowerBound::Bounds CyclesLowerBound::bounds(const contracts::Mapping& tile) const {
  const contracts::Layer& layer = *layer_;
  std::int64_t tiles[contracts::kNumTileDims];
  for (int dim = 0; dim < contracts::kNumTileDims; ++dim) tiles[dim] = tiles_[size_t(dim)][size_t(tile[dim])];
  const std::int64_t groups_per_step = tile.groups_per_step();
  const std::int64_t folds_by_group = layer.groups / groups_per_step * tiles[contracts::kDimR] * tiles[contracts::kDimS] * tiles[contracts::kDimC];
  const std::int64_t phases = folds_by_group * tiles[contracts::kDimK];
  const std::int64_t steps_per_phase = tiles[contracts::kDimN] * tiles[contracts::kDimX] * tiles[contracts::kDimY];
  const std::int64_t steps = phases * steps_per_phase;
  // Σ over the K tiles of one sweep of a step's RN cycles, ⌈t_K·replicas / rn_bw⌉ (replicas: T_G·T_N·T_X'·T_Y').
  const std::int64_t replicas = groups_per_step * tile[contracts::kDimN] * tile[contracts::kDimX] * tile[contracts::kDimY];
  const std::int64_t filters = extents_[contracts::kDimK], t_k = tile[contracts::kDimK];
  const util::CeilDivider& rn_cycles_of = per_rn_beat_;
  const std::int64_t full_k = filters / t_k, edge_k = filters - full_k * t_k;
  const std::int64_t rn_per_k_sweep =
      full_k * rn_cycles_of(t_k * replicas) + (edge_k ? rn_cycles_of(edge_k * replicas) : 0);
  const double rn_cycles =
      static_cast<double>(folds_by_group * steps_per_phase) * static_cast<double>(rn_per_k_sweep);
  const std::int64_t taps_x = extents_[contracts::kDimR], taps_y = extents_[contracts::kDimS];
  const std::int64_t x_sum = span_sum_x_[size_t(tile[contracts::kDimX] * (taps_x + 1) + tile[contracts::kDimR])];
  const std::int64_t y_sum = contracts::uses_mn_forwarding(layer, tile)
                                 ? tiles[contracts::kDimY] * tiles[contracts::kDimS]
                                 : span_sum_y_[size_t(tile[contracts::kDimY] * (taps_y + 1) + tile[contracts::kDimS])];
  const double inputs = static_cast<double>(layer.groups * tiles[contracts::kDimK] * extents_[contracts::kDimN] *
                                            extents_[contracts::kDimC]) *
                        static_cast<double>(x_sum) * static_cast<double>(y_sum);
  const double streaming = std::max({static_cast<double>(steps), rn_cycles, inputs / dn_bw_});
  Bounds result;
  result.compute =
      streaming + static_cast<double>(steps) * step_overhead_ + static_cast<double>(phases) * phase_cost_ + fixed_;
  result.total = result.compute;
  if (!tile.sdm.blocked && !contracts::sdm_budget(layer, *hardware_, tile).resident)
    result.total = std::max(result.total, (inputs * static_cast<double>(data_bytes_) + static_cast<double>(weight_bytes_)) /
                                              dram_bytes_per_cycle_);
  return result;
}

double energy_lower_bound(const contracts::Layer& layer, const contracts::Hardware& hardware) {
  contracts::ActivityCounts counts;
  counts.multiplications = counts.useful_multiplications = layer.macs();
  counts.dram_bytes = contracts::compulsory_dram_bytes(layer, hardware);
  return energy_of(counts, hardware.energy_pj).total;
}

void evaluate_orders(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                     const std::vector<contracts::PhaseOrder>& phase_orders, const std::vector<contracts::SdmOrder>& orders,
                     bool lower_bound,
                     const std::function<void(const contracts::CostReport&)>& visit) {
  // The phase sequence, hence the fabric part, depends on the order only when a C or K block is ragged.
  const bool same_fabric = !tile.sdm.blocked || !ragged_channel_or_filter_block(layer, tile);
  contracts::Mapping mapping = tile;
  for (const contracts::PhaseOrder phase_order : phase_orders) {
    mapping.phase_order = phase_order;
    std::optional<FabricPart> shared;
    for (const contracts::SdmOrder& order : orders) {
      mapping.sdm.order = order;
      if (same_fabric) {
        if (!shared) shared = fabric_part(layer, hardware, mapping, !lower_bound);
        visit(finish(layer, hardware, mapping, *shared, nullptr));
      } else {
        visit(evaluate_model(layer, hardware, mapping, nullptr, !lower_bound));
      }
    }
  }
}

void evaluate_orders(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& tile,
                     const std::vector<contracts::PhaseOrder>& phase_orders, const std::vector<contracts::SdmOrder>& orders,
                     const std::vector<FusedRole>& roles,
                     const std::function<void(const contracts::CostReport&, std::size_t)>& visit) {
  const bool same_fabric = !ragged_channel_or_filter_block(layer, tile);
  contracts::Mapping mapping = tile;
  for (const contracts::PhaseOrder phase_order : phase_orders) {
    mapping.phase_order = phase_order;
    // The roles' fabric parts differ only in the stripes' configurations: one part per stripe count and axis.
    std::vector<std::pair<std::pair<std::int64_t, int>, FabricPart>> shared;
    for (const contracts::SdmOrder& order : orders) {
      mapping.sdm.order = order;
      if (!same_fabric) shared.clear();
      for (std::size_t r = 0; r < roles.size(); ++r) {
        const FusedRole& role = roles[r];
        auto found = std::find_if(shared.begin(), shared.end(),
                                  [&](const auto& entry) {
                                    return entry.first == std::make_pair(role.stripes, contracts::stripe_dim(role));
                                  });
        if (found == shared.end()) {
          shared.emplace_back(std::make_pair(role.stripes, contracts::stripe_dim(role)),
                              fabric_part(layer, hardware, mapping, true, role));
          found = shared.end() - 1;
        }
        visit(finish(layer, hardware, mapping, found->second, nullptr, role), r);
      }
    }
  }
}

}  // namespace maeri::mapper
