// The SDM residency rule and capacity split (see sdm_budget.hpp).
#include "mapper/sdm_budget.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "spec/integer_math.hpp"

namespace maeri::mapper {

std::int64_t data_bytes(const spec::Hardware& hardware) { return (hardware.data_width + 7) / 8; }
std::int64_t accumulator_bytes(const spec::Hardware& hardware) { return (hardware.acc_width + 7) / 8; }

std::int64_t window_span(std::int64_t outputs, std::int64_t filter, std::int64_t stride, std::int64_t dilation) {
  const std::int64_t common = std::gcd(stride, dilation);
  const std::int64_t stride_steps = stride / common, dilation_steps = dilation / common;
  return outputs * filter -
         std::max<std::int64_t>(0, outputs - dilation_steps) * std::max<std::int64_t>(0, filter - stride_steps);
}

SdmBudget sdm_budget(const spec::Layer& layer, const spec::Hardware& hardware, const spec::Tile& tile) {
  const std::int64_t folds = spec::ceil_div(layer.R, tile[spec::kDimR]) * spec::ceil_div(layer.S, tile[spec::kDimS]) *
                             spec::ceil_div(layer.group_channels(), tile[spec::kDimC]);
  const std::int64_t rows = window_span(layer.output_x(), layer.R, layer.stride_x, layer.dilation_x);
  const std::int64_t columns = window_span(layer.output_y(), layer.S, layer.stride_y, layer.dilation_y);
  const std::int64_t configured_vns = tile[spec::kDimK] * tile[spec::kDimN] * tile[spec::kDimX] * tile[spec::kDimY];
  // Results land in a staging area that covers what the fabric's pipeline can still deliver after a fire
  // (RN_BW results a cycle for the fire-to-result latency) plus a double buffer of one step's results, so the
  // controller never has to hold a fire back while DRAM keeps up.
  const auto latency = static_cast<std::int64_t>(std::ceil(spec::pipeline_latency(hardware)));
  const std::int64_t staging = (latency * hardware.rn_bw + 2 * configured_vns) * accumulator_bytes(hardware);
  const std::int64_t whole_output = layer.output_elements() * accumulator_bytes(hardware);

  SdmBudget budget;
  budget.touched_inputs = layer.N * layer.C * rows * columns;
  const std::int64_t slice = layer.N * tile[spec::kDimC] * rows * columns * data_bytes(hardware);
  const std::int64_t phase_weights = tile[spec::kDimK] * tile.vn_size() * data_bytes(hardware);
  const std::int64_t resident_output = folds > 1 ? std::max(whole_output, staging) : staging;
  budget.resident_bytes = resident_output + slice + phase_weights;
  budget.resident = budget.resident_bytes <= hardware.sdm_bytes;
  budget.psums_in_sdm = budget.resident && folds > 1;
  budget.output_buffer_bytes = budget.resident ? resident_output : staging;
  budget.stream_buffer_bytes = std::max<std::int64_t>(0, hardware.sdm_bytes - budget.output_buffer_bytes);
  return budget;
}

}  // namespace maeri::mapper
