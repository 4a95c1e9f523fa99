// Mapping legality (Eq. 1 of the mRNA paper plus per-dimension bounds), text forms and the paper's baseline tile.
#include "contracts/tile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "contracts/sdm_rules.hpp"
#include "util/integer_math.hpp"

namespace maeri::contracts {

const char* tile_dim_name(int dim) {
  static const char* const kNames[kNumTileDims] = {"T_R", "T_S", "T_C", "T_K", "T_N", "T_X'", "T_Y'"};
  return kNames[dim];
}

std::array<std::int64_t, kNumTileDims> layer_extents(const Layer& layer) {
  return {layer.R, layer.S, layer.group_channels(), layer.group_filters(), layer.N, layer.output_x(), layer.output_y()};
}

std::optional<std::string> mapping_violation(const Layer& layer, const Hardware& hardware, const Mapping& mapping) {
  const FabricTile& tile = mapping.tile;
  static const char* const kExtentNames[kNumTileDims] = {"R", "S", "C", "K", "N", "X'", "Y'"};
  const auto extents = layer_extents(layer);
  for (int dim = 0; dim < kNumTileDims; ++dim) {
    if (tile[dim] < 1 || tile[dim] > extents[dim]) {
      return fmt::format("bound: {} = {} must be between 1 and {} = {} (layer '{}')", tile_dim_name(dim),
                         tile[dim], kExtentNames[dim], extents[dim], layer.name);
    }
  }
  if (tile.groups < 1 || tile.groups > layer.groups)
    return fmt::format("bound: T_G = {} must be between 1 and groups = {} (layer '{}')", tile.groups, layer.groups,
                       layer.name);
  // Every step holds T_G whole groups: the group loop has no ragged edge tile.
  if (layer.groups % tile.groups != 0)
    return fmt::format("group edge: T_G = {} must divide groups = {} (layer '{}')", tile.groups, layer.groups,
                       layer.name);
  if (tile.mapped_ms() > hardware.num_ms) {
    if (tile.groups > 1)
      return fmt::format("Eq. 1: T_G·T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' = {} (VN size {} x {} VNs) exceeds num_ms = {}",
                         tile.mapped_ms(), tile.vn_size(), tile.vn_count(), hardware.num_ms);
    return fmt::format("Eq. 1: T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' = {} (VN size {} x {} VNs) exceeds num_ms = {}",
                       tile.mapped_ms(), tile.vn_size(), tile.vn_count(), hardware.num_ms);
  }
  return sdm_violation(layer, hardware, mapping);
}

std::string to_compact_string(const FabricTile& tile) {
  std::string text = fmt::format("{},{},{},{},{},{},{}", tile[0], tile[1], tile[2], tile[3], tile[4], tile[5], tile[6]);
  if (tile.groups != 1) text += fmt::format(",{}", tile.groups);
  return text;
}

bool uses_mn_forwarding(const Layer& layer, const Mapping& tile) {
  return layer.stride_y == 1 && layer.dilation_y == 1 && tile[kDimY] == 1 && tile[kDimS] > 1;
}

bool phase_uses_mn_forwarding(const Layer& layer, const Mapping& tile, std::int64_t phase_t_s) {
  return uses_mn_forwarding(layer, tile) && phase_t_s > 1;
}

bool phase_order_matters(const Layer& layer, const Mapping& tile) {
  const auto extents = layer_extents(layer);
  std::int64_t channels = extents[kDimC], filters = extents[kDimK];
  if (tile.sdm.blocked) {
    channels = std::min(channels, tile.sdm.block[kSdmC]);
    filters = std::min(filters, tile.sdm.block[kSdmK]);
  }
  const std::int64_t folds =
      util::ceil_div(layer.R, tile[kDimR]) * util::ceil_div(layer.S, tile[kDimS]) * util::ceil_div(channels, tile[kDimC]);
  return folds > 1 && util::ceil_div(filters, tile[kDimK]) > 1;
}

PhaseOrder effective_phase_order(const Layer& layer, const Mapping& tile) {
  // The default first: the search costs many tiles, nearly all in it.
  return tile.phase_order != PhaseOrder::FoldsOuter && phase_order_matters(layer, tile) ? tile.phase_order
                                                                                       : PhaseOrder::FoldsOuter;
}

std::string to_string(const Mapping& mapping) {
  FabricTile sizes = mapping.tile;
  sizes.groups = 1;
  std::string text = fmt::format("(T_R,T_S,T_C,T_K,T_N,T_X',T_Y') = ({})", to_compact_string(sizes));
  if (mapping.tile.groups != 1) text += fmt::format(" T_G = {}", mapping.tile.groups);
  if (mapping.sdm.blocked)
    text += fmt::format(" SDM (B_K,B_C,B_N,B_X',B_Y') = ({}) order {}", blocks_text(mapping.sdm),
                        order_text(mapping.sdm.order));
  if (mapping.phase_order != kDefaultPhaseOrder)
    text += fmt::format(" phase order {}", phase_order_text(mapping.phase_order));
  return text;
}

std::optional<std::vector<std::int64_t>> parse_integer_list(const std::string& text, std::size_t count) {
  std::vector<std::int64_t> values;
  std::istringstream stream(text);
  for (std::size_t i = 0; i < count; ++i) {
    std::string field;
    if (!std::getline(stream, field, ',') || field.empty()) return std::nullopt;
    std::size_t used = 0;
    try {
      values.push_back(std::stoll(field, &used));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (used != field.size()) return std::nullopt;
  }
  std::string rest;
  if (std::getline(stream, rest)) return std::nullopt;
  return values;
}

std::optional<FabricTile> parse_fabric_tile(const std::string& text) {
  auto values = parse_integer_list(text, kNumTileDims);
  const bool with_groups = !values;
  if (with_groups) values = parse_integer_list(text, kNumTileDims + 1);
  if (!values) return std::nullopt;
  FabricTile tile;
  for (int dim = 0; dim < kNumTileDims; ++dim) tile[dim] = (*values)[size_t(dim)];
  if (with_groups) tile.groups = (*values)[kNumTileDims];
  return tile;
}

std::optional<FabricTile> baseline_tile(const Layer& layer, const Hardware& hardware) {
  const std::int64_t window = layer.R * layer.S;
  if (window > hardware.num_ms) return std::nullopt;
  FabricTile tile;
  tile[kDimR] = layer.R;
  tile[kDimS] = layer.S;
  tile[kDimK] = std::min(layer.group_filters(), hardware.num_ms / window);
  return tile;
}

}  // namespace maeri::contracts
