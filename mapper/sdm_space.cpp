// SDM-level candidates, distinct orders and the capacity test of the walk (see sdm_space.hpp).
#include "mapper/sdm_space.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "spec/integer_math.hpp"
#include "spec/sdm_rules.hpp"

namespace maeri::mapper {

std::vector<std::int64_t> sdm_block_candidates(std::int64_t extent, std::int64_t fabric, bool output_dim) {
  const std::int64_t tiles = spec::ceil_div(extent, fabric);
  std::vector<std::int64_t> blocks;
  for (std::int64_t m = 1; m <= tiles; ++m) {
    if (tiles % m) continue;
    const std::int64_t block = std::min(extent, fabric * m);
    const std::int64_t last = extent % block;
    if (output_dim && last != 0 && last < fabric) continue;
    blocks.push_back(block);
  }
  return blocks;
}

namespace {

// The class of an order for the loops of more than one block given by `multi` (bit per SdmDim): those loops, outer
// to inner, with each run of neighbouring N, X', Y' loops sorted (they index the same tensors and repeat the same
// phase sequence, so swapping two neighbours changes nothing; across a K or C loop their trip counts do matter).
std::vector<int> order_class(unsigned multi, const spec::SdmOrder& order) {
  std::vector<int> key;
  std::size_t run_start = 0;
  for (std::uint8_t dim : order) {
    if (!(multi >> dim & 1u)) continue;
    key.push_back(dim);
    if (dim < spec::kSdmN)
      run_start = key.size();
    else
      std::sort(key.begin() + std::ptrdiff_t(run_start), key.end());
  }
  return key;
}

// One order per class, the first of all_sdm_orders() in each.
std::vector<spec::SdmOrder> representatives(unsigned multi) {
  std::vector<std::vector<int>> seen;
  std::vector<spec::SdmOrder> orders;
  for (const spec::SdmOrder& order : spec::all_sdm_orders()) {
    std::vector<int> key = order_class(multi, order);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(std::move(key));
    orders.push_back(order);
  }
  return orders;
}

unsigned multi_block_mask(const std::array<std::int64_t, spec::kNumSdmDims>& trips) {
  unsigned multi = 0;
  for (int d = 0; d < spec::kNumSdmDims; ++d)
    if (trips[size_t(d)] > 1) multi |= 1u << d;
  return multi;
}

}  // namespace

const std::vector<spec::SdmOrder>& distinct_sdm_orders(const std::array<std::int64_t, spec::kNumSdmDims>& trips) {
  // The classes depend only on which loops have more than one block: 32 lists, built once.
  static const std::array<std::vector<spec::SdmOrder>, 1u << spec::kNumSdmDims> kByMask = [] {
    std::array<std::vector<spec::SdmOrder>, 1u << spec::kNumSdmDims> lists;
    for (unsigned mask = 0; mask < lists.size(); ++mask) lists[mask] = representatives(mask);
    return lists;
  }();
  return kByMask[multi_block_mask(trips)];
}

spec::SdmOrder canonical_sdm_order(const std::array<std::int64_t, spec::kNumSdmDims>& trips,
                                   const spec::SdmOrder& order) {
  // Per mask of loops with more than one block, the representative of each of the 120 orders (by its index in
  // the sorted all_sdm_orders()): built once, so that naming an order is a table lookup.
  static const std::vector<spec::SdmOrder> kAll = spec::all_sdm_orders();
  static const auto kRepresentative = [] {
    std::array<std::vector<std::size_t>, 1u << spec::kNumSdmDims> table;
    for (unsigned multi = 0; multi < table.size(); ++multi) {
      const std::vector<spec::SdmOrder> representatives_of_mask = representatives(multi);
      for (const spec::SdmOrder& order : kAll) {
        const std::vector<int> key = order_class(multi, order);
        const auto representative =
            std::find_if(representatives_of_mask.begin(), representatives_of_mask.end(),
                         [&](const spec::SdmOrder& candidate) { return order_class(multi, candidate) == key; });
        table[multi].push_back(
            std::size_t(std::lower_bound(kAll.begin(), kAll.end(), *representative) - kAll.begin()));
      }
    }
    return table;
  }();
  const auto index = std::size_t(std::lower_bound(kAll.begin(), kAll.end(), order) - kAll.begin());
  return kAll[kRepresentative[multi_block_mask(trips)][index]];
}

const std::vector<spec::PhaseOrder>& distinct_phase_orders(const spec::Layer& layer, const spec::Tile& tile) {
  static const std::vector<spec::PhaseOrder> kDefaultOnly = {spec::PhaseOrder::FoldsOuter};
  static const std::vector<spec::PhaseOrder> kBoth(spec::kPhaseOrders.begin(), spec::kPhaseOrders.end());
  if (!spec::phase_order_matters(layer, tile)) return kDefaultOnly;
  if (!tile.sdm.blocked) return kBoth;  // the residency rule differs (docs/model.md, "Memory")
  // Blocks hold whole fabric tiles, so a block's C or K range has a ragged tile exactly when the layer's has.
  const auto extents = spec::layer_extents(layer);
  for (int dim : {spec::kDimR, spec::kDimS, spec::kDimC, spec::kDimK})
    if (extents[size_t(dim)] % tile[dim] != 0) return kBoth;
  return kDefaultOnly;
}

SdmCandidates sdm_candidates(const spec::Layer& layer, const spec::Tile& tile) {
  const auto extents = spec::layer_extents(layer);
  SdmCandidates candidates;
  for (int d = 0; d < spec::kNumSdmDims; ++d) {
    const int dim = spec::sdm_tile_dim(d);
    candidates.blocks[size_t(d)] = sdm_block_candidates(extents[size_t(dim)], tile[dim], d >= spec::kSdmN);
  }
  return candidates;
}

std::uint64_t sdm_tile_count(const spec::Layer& layer, const spec::Tile& tile) {
  const SdmCandidates candidates = sdm_candidates(layer, tile);
  std::uint64_t count = 1;
  for (const auto& blocks : candidates.blocks) count *= blocks.size();
  return count;
}

bool sdm_fits(const spec::Layer& layer, const spec::Hardware& hardware, const spec::Tile& tile) {
  return spec::sdm_working_set(layer, hardware, tile).total() <= hardware.sdm_bytes;
}

}  // namespace maeri::mapper
