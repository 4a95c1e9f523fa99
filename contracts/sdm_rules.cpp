// SDM-level legality and the working set of one SDM block (see sdm_rules.hpp).
#include "contracts/sdm_rules.hpp"

#include <fmt/format.h>

#include <cmath>

#include "contracts/sdm_budget.hpp"
#include "util/integer_math.hpp"

namespace maeri::contracts {

std::int64_t data_bytes(const Hardware& hardware) { return util::ceil_div(hardware.data_width, 8); }
std::int64_t accumulator_bytes(const Hardware& hardware) { return util::ceil_div(hardware.acc_width, 8); }

std::int64_t staging_bytes(const Hardware& hardware, const Mapping& tile) {
  const auto latency = static_cast<std::int64_t>(std::ceil(pipeline_latency(hardware)));
  return (latency * hardware.rn_bw + 2 * tile.vn_count()) * accumulator_bytes(hardware);
}

SdmWorkingSet sdm_working_set(const Layer& layer, const Hardware& hardware, const Mapping& tile) {
  const auto& b = tile.sdm.block;
  // A block spans the T_G groups of its group tile, each with the block's channels, filters and outputs.
  const std::int64_t groups = tile.groups_per_step();
  SdmWorkingSet set;
  set.inputs = groups * b[kSdmN] * b[kSdmC] * window_span(b[kSdmX], layer.R, layer.stride_x, layer.dilation_x) *
               window_span(b[kSdmY], layer.S, layer.stride_y, layer.dilation_y) * data_bytes(hardware);
  set.weights = groups * b[kSdmK] * b[kSdmC] * layer.R * layer.S * data_bytes(hardware);
  set.outputs = groups * b[kSdmN] * b[kSdmK] * b[kSdmX] * b[kSdmY] * accumulator_bytes(hardware);
  set.staging = staging_bytes(hardware, tile);
  return set;
}

std::optional<std::string> sdm_violation(const Layer& layer, const Hardware& hardware, const Mapping& tile) {
  if (!tile.sdm.blocked) return std::nullopt;
  static const char* const kExtentNames[kNumSdmDims] = {"K", "C", "N", "X'", "Y'"};
  const auto extents = layer_extents(layer);
  for (int dim = 0; dim < kNumSdmDims; ++dim) {
    const int tile_dim = sdm_tile_dim(dim);
    const std::int64_t block = tile.sdm.block[size_t(dim)], fabric = tile[tile_dim], extent = extents[size_t(tile_dim)];
    if (block < fabric)
      return fmt::format("SDM bound: sdm.{} = {} is smaller than the fabric tile {} = {}", sdm_dim_key(dim), block,
                         tile_dim_name(tile_dim), fabric);
    if (block > extent)
      return fmt::format("SDM bound: sdm.{} = {} exceeds the layer's {} = {}", sdm_dim_key(dim), block,
                         kExtentNames[dim], extent);
    if (block != extent && block % fabric != 0)
      return fmt::format("SDM multiple: sdm.{} = {} must be a multiple of the fabric tile {} = {} (or the layer's "
                         "{} = {})",
                         sdm_dim_key(dim), block, tile_dim_name(tile_dim), fabric, kExtentNames[dim], extent);
    const std::int64_t last = extent % block;
    if (dim >= kSdmN && last != 0 && last < fabric)
      return fmt::format("SDM edge: sdm.{} = {} leaves a last block of {} {} smaller than the fabric tile {} = {}",
                         sdm_dim_key(dim), block, last, kExtentNames[dim], tile_dim_name(tile_dim), fabric);
  }
  if (hardware.sdm_bytes > 0) {
    const SdmWorkingSet set = sdm_working_set(layer, hardware, tile);
    if (set.total() > hardware.sdm_bytes)
      return fmt::format("SDM capacity: one SDM block needs 2·({} input + {} weight bytes) + max({} output, {} "
                         "staging bytes) = {} bytes, the SDM holds {}",
                         set.inputs, set.weights, set.outputs, set.staging, set.total(), hardware.sdm_bytes);
  }
  return std::nullopt;
}

std::int64_t stripe_extent(const Layer& layer, bool token_stripes, bool query_rows) {
  return token_stripes && query_rows ? layer.group_filters() : token_stripes ? layer.N : layer.output_x();
}

const char* stripe_extent_name(bool token_stripes, bool query_rows) {
  return token_stripes && query_rows ? "query rows (K per group)" : token_stripes ? "tokens (N)" : "output rows";
}

std::optional<std::string> fused_member_violation(const Layer& layer, const Mapping& mapping, const FusedRole& role,
                                                  bool output_feeds_group) {
  if (!mapping.sdm.blocked)
    return fmt::format("SDM level: layer '{}' has no SDM level (a fused layer runs in SDM blocks)", layer.name);
  const auto trips = sdm_trips(layer_extents(layer), mapping.sdm.block);
  if (role.stripes > 1) {
    const int dim = stripe_dim(role);
    const char* what = stripe_extent_name(role.token_stripes, role.query_rows);
    const std::int64_t extent = stripe_extent(layer, role);
    if (trips[dim] != role.stripes)
      return fmt::format("stripes: layer '{}' has sdm.{} = {}, {} blocks of its {} {}, not the group's {} stripes",
                         layer.name, sdm_dim_key(dim), mapping.sdm.block[dim], trips[dim], extent, what, role.stripes);
    for (std::uint8_t outer : mapping.sdm.order) {
      if (outer == dim) break;
      if (trips[outer] > 1)
        return fmt::format("exchange order: layer '{}' has its {} loop ({} blocks) outside the {} loop of the stripes "
                           "(order {}): tiles would not be exchanged stripe by stripe",
                           layer.name, sdm_dim_key(outer), trips[outer], sdm_dim_key(dim), order_text(mapping.sdm.order));
    }
  }
  if (output_feeds_group && sdm_block_traffic(layer, mapping).output_visits > 1)
    return fmt::format("backing level: layer '{}' sends partial sums to DRAM and back (C outside an output loop, "
                       "order {}), so its output cannot stay in the SDM", layer.name, order_text(mapping.sdm.order));
  if (role.weights_pinned && (role.stripes == 1 || trips[kSdmK] > 1 || trips[kSdmC] > 1))
    return fmt::format("pinned weights: layer '{}' can pin its weights only across several stripes with all of "
                       "them in one SDM block", layer.name);
  return std::nullopt;
}

}  // namespace maeri::contracts
