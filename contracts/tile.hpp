// The Mapping contract: how one layer runs on one MAERI instance. Its FabricTile holds the seven mRNA tile sizes
// (T_R, T_S, T_C, T_K, T_N, T_X', T_Y') and their derived VN structure; the Mapping adds the SDM level and the phase
// order. The legality check (Eq. 1, bounds and the SDM rules) and the text forms.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/phase_order.hpp"
#include "contracts/sdm_level.hpp"

namespace maeri::contracts {

// Index of each tiled dimension, in the paper's order.
enum TileDim : int { kDimR = 0, kDimS, kDimC, kDimK, kDimN, kDimX, kDimY, kNumTileDims };

const char* tile_dim_name(int dim);  // "T_R", ..., "T_X'", "T_Y'"

// The fabric tile: the seven mRNA tile sizes, what one step of the fabric computes, and T_G, the groups of a
// grouped layer whose VNs sit side by side in one step (each group with its own channels, filters and weights; 1
// for an ungrouped layer, and the default: docs/mapping.md, "Groups in one step").
struct FabricTile {
  std::array<std::int64_t, kNumTileDims> size{1, 1, 1, 1, 1, 1, 1};
  std::int64_t groups = 1;  // T_G

  std::int64_t operator[](int dim) const { return size[dim]; }
  std::int64_t& operator[](int dim) { return size[dim]; }
  // VN size = T_R·T_S·T_C: the multiplier switches that reduce into one output (partial) sum.
  std::int64_t vn_size() const { return size[kDimR] * size[kDimS] * size[kDimC]; }
  // VNs of one group = T_K·T_N·T_X'·T_Y'; number of VNs = T_G times that: outputs computed in parallel.
  std::int64_t group_vn_count() const { return size[kDimK] * size[kDimN] * size[kDimX] * size[kDimY]; }
  std::int64_t vn_count() const { return groups * group_vn_count(); }
  std::int64_t mapped_ms() const { return vn_size() * vn_count(); }
  bool operator==(const FabricTile& other) const { return size == other.size && groups == other.groups; }
  bool operator!=(const FabricTile& other) const { return !(*this == other); }
  bool operator<(const FabricTile& other) const {
    return size != other.size ? size < other.size : groups < other.groups;
  }
};

// A mapping of one layer: the fabric tile, optionally its SDM level (SDM tile sizes and the order of the SDM-level
// loops; docs/mapping.md), and the phase order inside a block (contracts/phase_order.hpp). Without an SDM level
// the layer runs as one block. The fusion group a network mapping adds joins here. The fabric tile's accessors are
// forwarded, since every model rule reads them.
struct Mapping {
  FabricTile tile;
  SdmLevel sdm;
  PhaseOrder phase_order = kDefaultPhaseOrder;

  std::int64_t operator[](int dim) const { return tile[dim]; }
  std::int64_t& operator[](int dim) { return tile[dim]; }
  std::int64_t vn_size() const { return tile.vn_size(); }
  std::int64_t vn_count() const { return tile.vn_count(); }
  std::int64_t groups_per_step() const { return tile.groups; }
  std::int64_t mapped_ms() const { return tile.mapped_ms(); }
  bool operator==(const Mapping& other) const {
    return tile == other.tile && sdm == other.sdm && phase_order == other.phase_order;
  }
  bool operator!=(const Mapping& other) const { return !(*this == other); }
  bool operator<(const Mapping& other) const {
    if (tile != other.tile) return tile < other.tile;
    if (sdm != other.sdm) return sdm < other.sdm;
    return phase_order < other.phase_order;
  }
};

// The single-level mapping of a fabric tile: no SDM level (the layer is one block), the default phase order.
inline Mapping single_level_mapping(const FabricTile& tile) { return Mapping{tile, SdmLevel{}, kDefaultPhaseOrder}; }

// Full extent of each tiled dimension of a layer: (R, S, C/groups, K/groups, N, X', Y'). A grouped layer is
// `groups` independent convolutions of these extents, run one after the other (docs/model.md, "Groups").
std::array<std::int64_t, kNumTileDims> layer_extents(const Layer& layer);

// Why a mapping is illegal for this layer and hardware, naming the broken rule; nullopt if legal: the fabric tile's
// bounds (T_G between 1 and the layer's groups and dividing them: the group edge rule) and Eq. 1, then the SDM level's rules (contracts/sdm_rules.hpp; its capacity rule only when
// hardware.sdm_bytes > 0).
std::optional<std::string> mapping_violation(const Layer& layer, const Hardware& hardware, const Mapping& mapping);

// Whether the tile's steps take operands from the neighbouring multiplier switch (MN forwarding): with stride 1
// and dilation 1 along Y and one output column per VN, consecutive steps along Y' shift every window by one
// column, so all but the
// newest column are already in the neighbour. Phases whose T_S is 1 (a ragged S edge) have nothing to forward.
bool uses_mn_forwarding(const Layer& layer, const Mapping& tile);
// A weight phase of such a mapping forwards when its own T_S (the ragged S edge's width in an edge phase) is > 1.
bool phase_uses_mn_forwarding(const Layer& layer, const Mapping& tile, std::int64_t phase_t_s);

// Whether the two phase orders give different programs: only when a block (the whole layer without an SDM level;
// the first block, which is the largest) has more than one reduction fold and more than one filter tile. Otherwise
// one of the two loops runs once and both orders play the same phases in the same order.
bool phase_order_matters(const Layer& layer, const Mapping& tile);
// The tile's phase order where it matters, folds-outer (the default) where it does not: what the models cost.
PhaseOrder effective_phase_order(const Layer& layer, const Mapping& tile);

// "(T_R,T_S,T_C,T_K,T_N,T_X',T_Y') = (3,3,8,4,1,1,1)" style text (with " T_G = 4" when T_G > 1, " SDM (B_K,B_C,B_N,B_X',B_Y') =
// (…) order KCNXY" when the mapping has an SDM level, and " phase order filters-outer" when it is not the default)
// and the fabric tile's parser ("3,3,8,4,1,1,1").
std::string to_string(const Mapping& mapping);
// "3,3,8,4,1,1,1", and T_G as an eighth number when it is > 1 ("3,3,1,1,1,1,3,16"); the parser takes both forms.
std::string to_compact_string(const FabricTile& tile);
std::optional<FabricTile> parse_fabric_tile(const std::string& text);
// Exactly `count` comma-separated integers ("3,3,8"), or nullopt.
std::optional<std::vector<std::int64_t>> parse_integer_list(const std::string& text, std::size_t count);

// The mRNA paper's baseline: (T_R, T_S, 1, T_K, 1, 1, 1) with T_R = R, T_S = S and T_K as large as fits,
// min(K/groups, floor(num_ms / (R·S))). nullopt when even one filter window (R·S) exceeds num_ms.
std::optional<FabricTile> baseline_tile(const Layer& layer, const Hardware& hardware);

}  // namespace maeri::contracts
