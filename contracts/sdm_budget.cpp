// The SDM residency rule, capacity split and SDM-level block traffic (see sdm_budget.hpp).
#include "contracts/sdm_budget.hpp"

#include <algorithm>
#include <cmath>

#include "util/integer_math.hpp"

namespace maeri::contracts {

std::int64_t touched_inputs(const Layer& layer) {
  return layer.N * layer.C * window_span(layer.output_x(), layer.R, layer.stride_x, layer.dilation_x) *
         window_span(layer.output_y(), layer.S, layer.stride_y, layer.dilation_y);
}

std::int64_t compulsory_dram_bytes(const Layer& layer, const Hardware& hardware) {
  return (touched_inputs(layer) + layer.weight_elements()) * data_bytes(hardware) +
         layer.output_elements() * accumulator_bytes(hardware);
}

SdmBudget sdm_budget(const Layer& layer, const Hardware& hardware, const Mapping& tile) {
  const std::int64_t folds = util::ceil_div(layer.R, tile[kDimR]) * util::ceil_div(layer.S, tile[kDimS]) *
                             util::ceil_div(layer.group_channels(), tile[kDimC]);
  const std::int64_t rows = window_span(layer.output_x(), layer.R, layer.stride_x, layer.dilation_x);
  const std::int64_t columns = window_span(layer.output_y(), layer.S, layer.stride_y, layer.dilation_y);
  const std::int64_t staging = staging_bytes(hardware, tile);
  const std::int64_t whole_output = layer.output_elements() * accumulator_bytes(hardware);

  SdmBudget budget;
  budget.touched_inputs = touched_inputs(layer);
  if (tile.sdm.blocked) {
    // Each block's partial sums stay in the SDM while the block is; reads stream through the rest.
    const SdmWorkingSet set = sdm_working_set(layer, hardware, tile);
    budget.blocked = true;
    budget.output_buffer_bytes = std::max(set.outputs, set.staging);
    budget.resident_bytes = set.total();
    budget.stream_buffer_bytes = std::max<std::int64_t>(0, hardware.sdm_bytes - budget.output_buffer_bytes);
    return budget;
  }
  // Folds outer: every output's partial sum is live, and a channel slice's inputs serve all filter tiles of its
  // folds. Filters outer: one filter tile's partial sums are live (two: the next tile's build up while the previous
  // tile's results drain), and every channel of the group comes back once per filter tile.
  const bool filters_outer = effective_phase_order(layer, tile) == PhaseOrder::FiltersOuter;
  // A phase holds T_G groups side by side: T_G times one group's filters, channels and weights.
  const std::int64_t groups = tile.groups_per_step();
  const std::int64_t live_outputs =
      filters_outer ? std::min(whole_output, layer.N * std::min(layer.K, 2 * groups * tile[kDimK]) *
                                                 layer.output_x() * layer.output_y() * accumulator_bytes(hardware))
                    : whole_output;
  const std::int64_t channels = groups * (filters_outer ? layer.group_channels() : tile[kDimC]);
  const std::int64_t slice = layer.N * channels * rows * columns * data_bytes(hardware);
  const std::int64_t phase_weights = groups * tile[kDimK] * tile.vn_size() * data_bytes(hardware);
  const std::int64_t resident_output = folds > 1 ? std::max(live_outputs, staging) : staging;
  budget.resident_bytes = resident_output + slice + phase_weights;
  budget.resident = budget.resident_bytes <= hardware.sdm_bytes;
  budget.psums_in_sdm = budget.resident && folds > 1;
  budget.writes_in_last_fold = budget.psums_in_sdm && !filters_outer;
  budget.output_buffer_bytes = budget.resident ? resident_output : staging;
  budget.stream_buffer_bytes = std::max<std::int64_t>(0, hardware.sdm_bytes - budget.output_buffer_bytes);
  return budget;
}

namespace {

// Σ over the blocks of one dimension of the input rows (columns) each block's windows touch.
std::int64_t blocked_span(std::int64_t outputs, std::int64_t block, std::int64_t filter, std::int64_t stride,
                          std::int64_t dilation) {
  const std::int64_t rest = outputs % block;
  return outputs / block * window_span(block, filter, stride, dilation) +
         (rest ? window_span(rest, filter, stride, dilation) : 0);
}

// How often a tensor that depends on the SDM dimensions in `depends` (bit per SdmDim) is fetched: once per
// iteration of each loop it does not depend on that sits outside the innermost loop it depends on.
std::int64_t refetches(const SdmOrder& order, const std::array<std::int64_t, kNumSdmDims>& trips,
                       unsigned depends) {
  int innermost = -1;
  for (int i = 0; i < kNumSdmDims; ++i)
    if (trips[order[size_t(i)]] > 1 && (depends >> order[size_t(i)] & 1u)) innermost = i;
  std::int64_t factor = 1;
  for (int i = 0; i < innermost; ++i)
    if (!(depends >> order[size_t(i)] & 1u)) factor *= trips[order[size_t(i)]];
  return factor;
}

}  // namespace

SdmBlockTraffic sdm_block_traffic(const Layer& layer, const Mapping& tile) {
  using namespace contracts;
  const auto& block = tile.sdm.block;
  const auto extents = layer_extents(layer);
  SdmBlockTraffic traffic;
  traffic.trips = sdm_trips(extents, block);
  constexpr unsigned kInputs = 1u << kSdmC | 1u << kSdmN | 1u << kSdmX | 1u << kSdmY;
  constexpr unsigned kWeights = 1u << kSdmK | 1u << kSdmC;
  constexpr unsigned kOutputs = 1u << kSdmK | 1u << kSdmN | 1u << kSdmX | 1u << kSdmY;
  const std::int64_t input_volume = layer.N * layer.C *
                                    blocked_span(layer.output_x(), block[kSdmX], layer.R, layer.stride_x,
                                                 layer.dilation_x) *
                                    blocked_span(layer.output_y(), block[kSdmY], layer.S, layer.stride_y,
                                                 layer.dilation_y);
  traffic.input_fills = input_volume * refetches(tile.sdm.order, traffic.trips, kInputs);
  traffic.weight_fills = layer.weight_elements() * refetches(tile.sdm.order, traffic.trips, kWeights);
  traffic.output_visits = refetches(tile.sdm.order, traffic.trips, kOutputs);
  traffic.output_blocks = traffic.trips[kSdmN] * traffic.trips[kSdmX] * traffic.trips[kSdmY];
  return traffic;
}

}  // namespace maeri::contracts
