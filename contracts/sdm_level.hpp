// The SDM level of a mapping (two-level map space, docs/mapping.md "SDM level"): the SDM tile sizes of the five
// dimensions that block DRAM→SDM traffic (K, C, N, X', Y') and the order of the SDM-level loops over those blocks.
// A mapping without an SDM level runs the whole layer as one block under the single-level residency rule
// (docs/model.md, "Memory"); that is what old mapping files and `--tile` alone give.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maeri::contracts {

// SDM-level dimensions, in the order mapping files and `--sdm` list them.
enum SdmDim : int { kSdmK = 0, kSdmC, kSdmN, kSdmX, kSdmY, kNumSdmDims };

const char* sdm_dim_key(int dim);       // "K", "C", "N", "X", "Y" (mapping-file keys and order letters)
const char* sdm_block_name(int dim);    // "B_K", "B_C", "B_N", "B_X'", "B_Y'"
int sdm_tile_dim(int dim);              // the fabric tile dimension (TileDim) an SDM dimension blocks

// An order, outer to inner, of the five SDM-level loops.
using SdmOrder = std::array<std::uint8_t, kNumSdmDims>;
inline constexpr SdmOrder kDefaultSdmOrder = {kSdmK, kSdmC, kSdmN, kSdmX, kSdmY};

struct SdmLevel {
  bool blocked = false;  // false: no SDM level (single-level mapping)
  std::array<std::int64_t, kNumSdmDims> block{1, 1, 1, 1, 1};  // B_K, B_C, B_N, B_X', B_Y'
  SdmOrder order = kDefaultSdmOrder;                          // outer to inner
  bool operator==(const SdmLevel& other) const {
    return blocked == other.blocked && (!blocked || (block == other.block && order == other.order));
  }
  bool operator!=(const SdmLevel& other) const { return !(*this == other); }
  bool operator<(const SdmLevel& other) const {
    if (blocked != other.blocked) return !blocked;
    if (!blocked) return false;
    return block != other.block ? block < other.block : order < other.order;
  }
};

// "KCNXY" and back; nullopt unless the text names each of K, C, N, X, Y exactly once.
std::string order_text(const SdmOrder& order);
std::optional<SdmOrder> parse_order(const std::string& text);
// Why `text` is not an order, naming what is missing or repeated.
std::string order_problem(const std::string& text);

// "B_K,B_C,B_N,B_X',B_Y'" as "64,16,1,28,28" and back.
std::string blocks_text(const SdmLevel& sdm);
std::optional<std::array<std::int64_t, kNumSdmDims>> parse_blocks(const std::string& text);

// Every permutation of the five loops (120), in lexicographic order of the dimension indices.
std::vector<SdmOrder> all_sdm_orders();

}  // namespace maeri::contracts
