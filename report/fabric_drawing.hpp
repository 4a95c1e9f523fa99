// The chosen mapping drawn on the fabric: the distribution network (DN) fat tree, the row of multiplier switches
// (MS) coloured by the virtual neuron (VN) each belongs to, and the reduction network (ART) with the adders that
// reduce one VN alone coloured like it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "contracts/tile.hpp"

namespace maeri::report {

// Switch → VN id (−1 idle) for the full tile of a mapping: the toolkit's placement (codegen/tile_placement.hpp,
// tested against it in tests/unit/test_html_report.cpp): T_G·T_K·T_N·T_X'·T_Y' VNs of T_R·T_S·T_C switches
// packed from switch 0, VN v = (((g·T_K + k)·T_N + n)·T_X' + x)·T_Y' + y on switches [v·size, (v+1)·size).
// Edge phases of smaller tiles use a prefix of the same switches. Throws std::invalid_argument when the tile
// needs more switches than num_ms.
std::vector<int> switch_vns(const contracts::FabricTile& tile, std::int64_t num_ms);

// The tile offsets (g, k, n, x, y) of VN v as "k=0 n=0 x'=0 y'=1" (with "g=…" when T_G > 1).
std::string vn_offsets_text(const contracts::FabricTile& tile, int vn);

// An inline <svg> of the three networks for this tile on num_ms switches (a power of two). Switch, DN switch and
// adder elements carry the classes ms / dn-switch / rn-adder; a switch of VN v has class "ms vn" and data-vn="v",
// an idle one "ms idle". Fabrics over 128 switches draw the switch row as runs (class "ms-run") and the trees'
// upper levels only.
std::string fabric_svg(const contracts::FabricTile& tile, std::int64_t num_ms);

}  // namespace maeri::report
