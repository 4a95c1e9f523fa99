// Pareto sets as the fused search keeps them (fused_search.cpp): the items no other dominates, the first of equals
// kept, in the order they were offered. Two ways to the same set: offer_pareto, one item at a time, and keep_pareto,
// a batch at once by sorting (the join's hot loop; tests/unit/test_pareto_front.cpp holds them equal).
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
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

// What offering `items` to an empty set in turn keeps, in the same order: `kept` (`order`, `front`: scratch memory).
// `key(item)` is a tuple that an item dominating another never exceeds (its criteria, in any order). Sorted by key
// and then position, every item that dominates another, or equals it and was offered first, comes before it; an
// item beaten by one that is itself beaten is beaten by that one's victor too; so comparing each item with the items
// kept before it in that order is enough. Returns how many were dropped.
template <typename T, typename Dominates, typename Key>
std::uint64_t keep_pareto(const std::vector<T>& items, Dominates&& dominates, Key&& key, std::vector<T>& kept,
                          std::vector<std::uint32_t>& order, std::vector<std::uint32_t>& front) {
  order.resize(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) order[k] = std::uint32_t(k);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const auto key_a = key(items[a]), key_b = key(items[b]);
    return key_a < key_b || (!(key_b < key_a) && a < b);
  });
  front.clear();
  for (std::uint32_t k : order)
    // The latest kept are the nearest in the key: the likeliest to dominate it.
    if (std::none_of(front.rbegin(), front.rend(), [&](std::uint32_t f) { return dominates(items[f], items[k]); }))
      front.push_back(k);
  std::sort(front.begin(), front.end());
  kept.clear();
  for (std::uint32_t k : front) kept.push_back(items[k]);
  return std::uint64_t(items.size() - front.size());
}

}  // namespace maeri::mapper
