// Pareto sets as the fused search keeps them (fused_search.cpp): the items no other dominates, the first of equals
// kept, in the order they were offered. Two ways to the same set: offer_pareto, one item at a time, and keep_pareto,
// a batch at once by sorting (the join's hot loop; tests/unit/test_pareto_front.cpp holds them equal).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace maeri::mapper {

// Offers `item` to `set`: dropped when an item of the set dominates it (no worse in every criterion, equals too), else
// added at the end, removing the items it dominates. `pruned` counts the items dropped or removed.
template <typename T, typename Dominates>
bool offer_pareto(std::vector<T>& set, T item, Dominates&& dominates, std::uint64_t& pruned) {
  for (const T& kept : set)
    if (dominates(kept, item)) {
      ++pruned;
      return false;
    }
  const auto removed = std::remove_if(set.begin(), set.end(), [&](const T& kept) { return dominates(item, kept); });
  pruned += std::uint64_t(set.end() - removed);
  set.erase(removed, set.end());
  set.push_back(std::move(item));
  return true;
}

// What offering `items` to an empty set in turn keeps, under the dominance "no criterion larger", in the same order:
// `kept`. `criteria(item)` gives an item's N criteria as a std::array<double, N> (integers below 2^53 convert
// exactly, so the order of each is kept). Sorted by criteria and then position, every item that dominates another,
// or equals it and was offered first, comes before it; an item beaten by one that is itself beaten is beaten by that
// one's victor too; so comparing each item with the items kept before it in that order is enough — their criteria
// held side by side, the scan's memory contiguous. Returns how many were dropped. `scratch` is reused memory.
template <std::size_t N>
struct ParetoScratch {
  std::vector<std::uint32_t> order, front;
  std::vector<std::array<double, N>> criteria, front_criteria;
};

template <typename T, std::size_t N, typename Criteria>
std::uint64_t keep_pareto(const std::vector<T>& items, Criteria&& criteria, std::vector<T>& kept,
                          ParetoScratch<N>& scratch) {
  auto& values = scratch.criteria;
  values.resize(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) values[k] = criteria(items[k]);
  auto& order = scratch.order;
  order.resize(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) order[k] = std::uint32_t(k);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return values[a] < values[b] || (!(values[b] < values[a]) && a < b);
  });
  auto& front = scratch.front;
  auto& front_values = scratch.front_criteria;
  front.clear();
  front_values.clear();
  for (std::uint32_t k : order) {
    const std::array<double, N>& value = values[k];
    // The latest kept are the nearest in the sort: the likeliest to dominate it.
    const bool beaten = std::any_of(front_values.rbegin(), front_values.rend(), [&](const std::array<double, N>& kept_value) {
      for (std::size_t c = 0; c < N; ++c)
        if (kept_value[c] > value[c]) return false;
      return true;
    });
    if (!beaten) {
      front.push_back(k);
      front_values.push_back(value);
    }
  }
  std::sort(front.begin(), front.end());
  kept.clear();
  for (std::uint32_t k : front) kept.push_back(items[k]);
  return std::uint64_t(items.size() - front.size());
}

}  // namespace maeri::mapper
