// Which mappings cost the same: one SDM order per class of equivalent orders, and the phase orders whose costs can
// differ (see equivalent_orders.hpp).
#include "mapper/mapspace/equivalent_orders.hpp"

#include <algorithm>
#include <utility>

#include "contracts/sdm_rules.hpp"

namespace maeri::mapper {

namespace {

// The class of an order for the loops of more than one block given by `multi` (bit per SdmDim): those loops, outer
// to inner, with each run of neighbouring N, X', Y' loops sorted (they index the same tensors and repeat the same
// phase sequence, so swapping two neighbours changes nothing; across a K or C loop their trip counts do matter).
std::vector<int> order_class(unsigned multi, const contracts::SdmOrder& order) {
  std::vector<int> key;
  std::size_t run_start = 0;
  for (std::uint8_t dim : order) {
    if (!(multi >> dim & 1u)) continue;
    key.push_back(dim);
    if (dim < contracts::kSdmN)
      run_start = key.size();
    else
      std::sort(key.begin() + std::ptrdiff_t(run_start), key.end());
  }
  return key;
}

// One order per class, the first of all_sdm_orders() in each.
std::vector<contracts::SdmOrder> representatives(unsigned multi) {
  std::vector<std::vector<int>> seen;
  std::vector<contracts::SdmOrder> orders;
  for (const contracts::SdmOrder& order : contracts::all_sdm_orders()) {
    std::vector<int> key = order_class(multi, order);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(std::move(key));
    orders.push_back(order);
  }
  return orders;
}

unsigned multi_block_mask(const std::array<std::int64_t, contracts::kNumSdmDims>& trips) {
  unsigned multi = 0;
  for (int d = 0; d < contracts::kNumSdmDims; ++d)
    if (trips[size_t(d)] > 1) multi |= 1u << d;
  return multi;
}

}  // namespace

const std::vector<contracts::SdmOrder>& distinct_sdm_orders(const std::array<std::int64_t, contracts::kNumSdmDims>& trips) {
  // The classes depend only on which loops have more than one block: 32 lists, built once.
  static const std::array<std::vector<contracts::SdmOrder>, 1u << contracts::kNumSdmDims> kByMask = [] {
    std::array<std::vector<contracts::SdmOrder>, 1u << contracts::kNumSdmDims> lists;
    for (unsigned mask = 0; mask < lists.size(); ++mask) lists[mask] = representatives(mask);
    return lists;
  }();
  return kByMask[multi_block_mask(trips)];
}

contracts::SdmOrder canonical_sdm_order(const std::array<std::int64_t, contracts::kNumSdmDims>& trips,
                                   const contracts::SdmOrder& order) {
  // Per mask of loops with more than one block, the representative of each of the 120 orders (by its index in
  // the sorted all_sdm_orders()): built once, so that naming an order is a table lookup.
  static const std::vector<contracts::SdmOrder> kAll = contracts::all_sdm_orders();
  static const auto kRepresentative = [] {
    std::array<std::vector<std::size_t>, 1u << contracts::kNumSdmDims> table;
    for (unsigned multi = 0; multi < table.size(); ++multi) {
      const std::vector<contracts::SdmOrder> representatives_of_mask = representatives(multi);
      for (const contracts::SdmOrder& each : kAll) {
        const std::vector<int> key = order_class(multi, each);
        const auto representative =
            std::find_if(representatives_of_mask.begin(), representatives_of_mask.end(),
                         [&](const contracts::SdmOrder& candidate) { return order_class(multi, candidate) == key; });
        table[multi].push_back(
            std::size_t(std::lower_bound(kAll.begin(), kAll.end(), *representative) - kAll.begin()));
      }
    }
    return table;
  }();
  const auto index = std::size_t(std::lower_bound(kAll.begin(), kAll.end(), order) - kAll.begin());
  return kAll[kRepresentative[multi_block_mask(trips)][index]];
}

const std::vector<contracts::PhaseOrder>& distinct_phase_orders(const contracts::Layer& layer, const contracts::Mapping& tile) {
  static const std::vector<contracts::PhaseOrder> kDefaultOnly = {contracts::PhaseOrder::FoldsOuter};
  static const std::vector<contracts::PhaseOrder> kBoth(contracts::kPhaseOrders.begin(), contracts::kPhaseOrders.end());
  if (!contracts::phase_order_matters(layer, tile)) return kDefaultOnly;
  if (!tile.sdm.blocked) return kBoth;  // the residency rule differs (docs/model.md, "Memory")
  // Blocks hold whole fabric tiles, so a block's C or K range has a ragged tile exactly when the layer's has.
  const auto extents = contracts::layer_extents(layer);
  for (int dim : {contracts::kDimR, contracts::kDimS, contracts::kDimC, contracts::kDimK})
    if (extents[size_t(dim)] % tile[dim] != 0) return kBoth;
  return kDefaultOnly;
}

}  // namespace maeri::mapper
