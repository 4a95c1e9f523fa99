// TilePlacement: where each part of one tile of a layer sits on the multiplier switches. It fixes the two
// orderings that codegen, the functional model and the co-simulation controller must share:
//  - VN order: v = (((g·t_K + k)·T_N + n)·T_X' + x)·T_Y' + y over the tile offsets (g, k, n, x, y), VN v on
//    switches [v·size, (v+1)·size): the T_G groups of a step side by side, each one group's VNs;
//  - element order inside a VN: e = (r·t_C + c)·t_S + (t_S − 1 − s), so the switch left of (r, s, c) holds
//    (r, s + 1, c): on a stride-1 step along Y' it already has the operand (r, s, c) needs (MN forwarding).
#pragma once

#include <vector>

#include "codegen/vn_layout.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::codegen {

// Sizes of one weight phase (edge tiles may be smaller than the mapping's tile) and of its step replicas.
struct PhaseShape {
  int t_r = 1, t_s = 1, t_c = 1, t_k = 1;  // this phase's reduction slice and filters
  int t_n = 1, t_x = 1, t_y = 1;           // the mapping's replicas (fixed for the layer)
  int t_g = 1;                             // the mapping's T_G: groups side by side (fixed for the layer)
  int vn_size() const { return t_r * t_s * t_c; }
  int vn_count() const { return t_g * t_k * t_n * t_x * t_y; }
  bool operator<(const PhaseShape& other) const;
};

struct ElementOffset {
  int r = 0, s = 0, c = 0;
};
struct VnOffset {
  int k = 0, n = 0, x = 0, y = 0;
  int g = 0;  // the group among the phase's T_G, counted from its first (WeightPhase::group)
};

struct TilePlacement {
  PhaseShape shape;
  VnLayout layout;
  std::vector<VnOffset> vn_offsets;        // per VN id
  std::vector<ElementOffset> elements;     // per position inside a VN
  std::vector<bool> take_forward;          // per switch, when the phase uses MN forwarding
};

// forwarding: whether steps along Y' reuse operands from the left neighbour (stride 1, t_Y' = 1, t_S > 1).
TilePlacement place_tile(int num_ms, const PhaseShape& shape, bool forwarding);

// Whether a phase of this shape forwards operands between multiplier switches (contracts::phase_uses_mn_forwarding).
bool phase_forwards(const contracts::Layer& layer, const contracts::Mapping& tile, const PhaseShape& shape);

}  // namespace maeri::codegen
