// The map space's legal moves and its legality answer (see map_space.hpp). Every move draws its random numbers in
// a fixed order: a search with the same seed proposes the same mappings.
#include "mapper/mapspace/map_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "contracts/sdm_rules.hpp"
#include "mapper/mapspace/equivalent_orders.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "util/integer_math.hpp"

namespace maeri::mapper {

namespace {

std::size_t uniform_index(std::mt19937_64& rng, std::size_t n) {
  return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
}

// A uniform index of 0 … n-1 other than `except`.
std::size_t uniform_index_except(std::mt19937_64& rng, std::size_t n, std::size_t except) {
  const std::size_t index = uniform_index(rng, n - 1);
  return index >= except ? index + 1 : index;
}

// The member of `list` `steps` places along from `value` (a member of it), stopping at the ends.
std::int64_t step_along(const std::vector<std::int64_t>& list, std::int64_t value, std::ptrdiff_t steps) {
  const auto at = std::ptrdiff_t(std::find(list.begin(), list.end(), value) - list.begin());
  return list[size_t(std::clamp<std::ptrdiff_t>(at + steps, 0, std::ptrdiff_t(list.size()) - 1))];
}

// Index of the candidate nearest to log2_size (by log distance; ties to the smaller candidate) in a list sorted
// either way.
std::size_t nearest_index(const std::vector<std::int64_t>& list, double log2_size) {
  std::size_t best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const double distance = std::abs(std::log2(double(list[i])) - log2_size);
    if (distance < best_distance || (distance == best_distance && list[i] < list[best])) {
      best = i;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace

std::int64_t space_size(const contracts::Mapping& mapping, int dim) {
  return dim == kSpaceGroups ? mapping.groups_per_step() : mapping[dim];
}

void set_space_size(contracts::Mapping& mapping, int dim, std::int64_t size) {
  (dim == kSpaceGroups ? mapping.tile.groups : mapping[dim]) = size;
}

MapSpace::MapSpace(const contracts::Layer& layer, const contracts::Hardware& hardware, bool two_level)
    : layer_(layer), hardware_(hardware), two_level_(two_level), extents_(contracts::layer_extents(layer)),
      dims_(layer.groups > 1 ? kNumSpaceDims : contracts::kNumTileDims) {
  for (int d = 0; d < contracts::kNumTileDims; ++d) {
    const std::int64_t extent = extents_[size_t(d)];
    auto& list = sizes_[size_t(d)];
    for (std::int64_t m = 1; m <= extent; ++m) {
      const std::int64_t size = util::ceil_div(extent, m);
      if (list.empty() || list.back() != size) list.push_back(size);
    }
  }
  const std::int64_t groups = std::max<std::int64_t>(1, layer.groups);
  for (std::int64_t size = groups; size >= 1; --size)
    if (groups % size == 0) sizes_[kSpaceGroups].push_back(size);
}

std::optional<std::string> MapSpace::violation(const contracts::Mapping& mapping) const {
  if (auto violation = contracts::mapping_violation(layer_, hardware_, mapping)) return violation;
  if (!two_level_ && mapping.sdm.blocked) return "single level: the space has no SDM level";
  for (int d = 0; d < dims_; ++d) {
    const auto& list = sizes_[size_t(d)];
    const std::int64_t size = space_size(mapping, d);
    if (std::find(list.begin(), list.end(), size) == list.end())
      return fmt::format("fold-minimal: {} = {} folds its dimension as often as the smaller {} (the space holds "
                         "only the smallest size of each fold count)",
                         d == kSpaceGroups ? "T_G" : contracts::tile_dim_name(d), size,
                         *std::upper_bound(list.begin(), list.end(), size, std::greater<std::int64_t>()));
  }
  if (!mapping.sdm.blocked) return std::nullopt;
  const SdmCandidates candidates = sdm_candidates(layer_, mapping);
  for (int d = 0; d < contracts::kNumSdmDims; ++d) {
    const auto& list = candidates.blocks[size_t(d)];
    if (std::find(list.begin(), list.end(), mapping.sdm.block[size_t(d)]) == list.end())
      return fmt::format("SDM candidates: sdm.{} = {} is not a candidate block of this fabric tile (sdm_space.hpp)",
                         contracts::sdm_dim_key(d), mapping.sdm.block[size_t(d)]);
  }
  return std::nullopt;
}

std::size_t MapSpace::nearest_size(int dim, double log2_size) const {
  return nearest_index(sizes_[size_t(dim)], log2_size);
}

MapSpace::Excess MapSpace::random_excess(std::mt19937_64& rng) const {
  Excess excess{};
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int d = 0; d < dims_; ++d) excess[size_t(d)] = unit(rng);
  return excess;
}

void MapSpace::repair_fabric(contracts::Mapping& tile, const Excess& excess_in) const {
  auto excess = excess_in;
  while (tile.mapped_ms() > hardware_.num_ms) {
    int shrink = -1;
    for (int d = 0; d < dims_; ++d)
      if (space_size(tile, d) > 1 && (shrink < 0 || excess[size_t(d)] > excess[size_t(shrink)])) shrink = d;
    const auto& list = sizes_[size_t(shrink)];
    const std::int64_t size = space_size(tile, shrink);
    // The next smaller fold-minimal size (the list is descending).
    const auto next = std::upper_bound(list.begin(), list.end(), size, std::greater<std::int64_t>());
    const std::int64_t smaller = next == list.end() ? 1 : *next;
    excess[size_t(shrink)] -= std::log2(double(size)) - std::log2(double(smaller));
    set_space_size(tile, shrink, smaller);
  }
}

void MapSpace::repair_sdm(contracts::Mapping& tile, const std::array<double, contracts::kNumSdmDims>& log2_blocks) const {
  if (!two_level_ || !tile.sdm.blocked) {
    tile.sdm = contracts::SdmLevel{};
    return;
  }
  const SdmCandidates candidates = sdm_candidates(layer_, tile);
  std::array<std::size_t, contracts::kNumSdmDims> index{};
  for (int d = 0; d < contracts::kNumSdmDims; ++d) {
    index[size_t(d)] = nearest_index(candidates.blocks[size_t(d)], log2_blocks[size_t(d)]);
    tile.sdm.block[size_t(d)] = candidates.blocks[size_t(d)][index[size_t(d)]];
  }
  // Capacity: shrink the block largest relative to its smallest candidate (candidates ascend) until it fits.
  while (!sdm_fits(layer_, hardware_, tile)) {
    int shrink = -1;
    double largest = 0;
    for (int d = 0; d < contracts::kNumSdmDims; ++d) {
      if (index[size_t(d)] == 0) continue;
      const auto& list = candidates.blocks[size_t(d)];
      const double ratio = std::log2(double(list[index[size_t(d)]])) - std::log2(double(list.front()));
      if (shrink < 0 || ratio > largest) {
        shrink = d;
        largest = ratio;
      }
    }
    if (shrink < 0) {  // even the smallest blocks do not fit: no SDM level
      tile.sdm = contracts::SdmLevel{};
      return;
    }
    tile.sdm.block[size_t(shrink)] = candidates.blocks[size_t(shrink)][--index[size_t(shrink)]];
  }
}

void MapSpace::fill_fabric(contracts::Mapping& tile, int keep, std::mt19937_64& rng) const {
  std::vector<int> dims(static_cast<std::size_t>(dims_));
  std::iota(dims.begin(), dims.end(), 0);
  std::shuffle(dims.begin(), dims.end(), rng);
  for (int d : dims) {
    if (d == keep) continue;
    const std::int64_t size = space_size(tile, d), others = tile.mapped_ms() / size;
    const auto& list = sizes_[size_t(d)];  // descending: the first that fits is the largest
    const auto fits = std::find_if(list.begin(), list.end(),
                                   [&](std::int64_t candidate) { return others * candidate <= hardware_.num_ms; });
    if (fits != list.end() && *fits > size) set_space_size(tile, d, *fits);
  }
}

contracts::Mapping MapSpace::filled(const contracts::Mapping& tile, std::mt19937_64& rng) const {
  contracts::Mapping full = tile;
  fill_fabric(full, -1, rng);
  full = legalise(full);  // the SDM blocks snapped to the new fabric tile's candidates
  fill_sdm(full, rng, false);
  settle(full);
  return full;
}

void MapSpace::fill_sdm(contracts::Mapping& tile, std::mt19937_64& rng, bool from_smallest) const {
  if (!tile.sdm.blocked) return;
  const SdmCandidates candidates = sdm_candidates(layer_, tile);
  if (from_smallest)
    for (int d = 0; d < contracts::kNumSdmDims; ++d) tile.sdm.block[size_t(d)] = candidates.blocks[size_t(d)].front();
  std::array<int, contracts::kNumSdmDims> dims{};
  std::iota(dims.begin(), dims.end(), 0);
  std::shuffle(dims.begin(), dims.end(), rng);
  for (int d : dims) {
    const auto& list = candidates.blocks[size_t(d)];  // ascending; the capacity rule is monotone in each block
    auto at = std::size_t(std::find(list.begin(), list.end(), tile.sdm.block[size_t(d)]) - list.begin());
    while (at + 1 < list.size()) {
      tile.sdm.block[size_t(d)] = list[at + 1];
      if (!sdm_fits(layer_, hardware_, tile)) {
        tile.sdm.block[size_t(d)] = list[at];
        break;
      }
      ++at;
    }
  }
}

void MapSpace::plan_sdm(contracts::Mapping& tile, const contracts::SdmOrder& order) const {
  if (!tile.sdm.blocked) return;
  tile.sdm.order = order;
  const SdmCandidates candidates = sdm_candidates(layer_, tile);
  std::array<std::size_t, contracts::kNumSdmDims> at{};
  std::array<bool, contracts::kNumSdmDims> growing{};
  for (int d = 0; d < contracts::kNumSdmDims; ++d) {
    tile.sdm.block[size_t(d)] = candidates.blocks[size_t(d)].front();
    growing[size_t(d)] = d != order.back() && candidates.blocks[size_t(d)].size() > 1;
  }
  if (!sdm_fits(layer_, hardware_, tile)) {  // even the smallest blocks do not fit: no SDM level
    tile.sdm = contracts::SdmLevel{};
    return;
  }
  for (;;) {
    // The growing block that has grown least (log2 of its factor over its smallest candidate; ties: outer first).
    int grow = -1;
    double least = 0;
    for (int d : order) {
      if (!growing[size_t(d)]) continue;
      const auto& list = candidates.blocks[size_t(d)];
      const double factor = std::log2(double(list[at[size_t(d)]])) - std::log2(double(list.front()));
      if (grow < 0 || factor < least) {
        grow = d;
        least = factor;
      }
    }
    if (grow < 0) break;
    const auto& list = candidates.blocks[size_t(grow)];
    std::size_t& index = at[size_t(grow)];
    tile.sdm.block[size_t(grow)] = list[index + 1];
    if (!sdm_fits(layer_, hardware_, tile)) {
      tile.sdm.block[size_t(grow)] = list[index];
      growing[size_t(grow)] = false;
    } else if (++index + 1 == list.size()) {
      growing[size_t(grow)] = false;
    }
  }
  settle(tile);
}

namespace {

std::array<double, contracts::kNumSdmDims> log2_blocks(const contracts::Mapping& tile) {
  std::array<double, contracts::kNumSdmDims> blocks{};
  for (int d = 0; d < contracts::kNumSdmDims; ++d) blocks[size_t(d)] = std::log2(double(tile.sdm.block[size_t(d)]));
  return blocks;
}

}  // namespace

contracts::Mapping MapSpace::random(std::mt19937_64& rng) const {
  contracts::Mapping tile;
  std::vector<int> order(static_cast<std::size_t>(dims_));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::int64_t remaining = hardware_.num_ms;
  for (int d : order) {
    const auto& list = sizes_[size_t(d)];  // descending: the sizes that fit are a suffix
    const auto first = std::upper_bound(list.begin(), list.end(), remaining, std::greater<std::int64_t>());
    const std::size_t fitting = std::size_t(list.end() - first);
    set_space_size(tile, d, fitting == 0 ? 1 : *(first + std::ptrdiff_t(uniform_index(rng, fitting))));
    remaining /= space_size(tile, d);
  }
  if (two_level_ && std::uniform_real_distribution<double>(0.0, 1.0)(rng) < 0.75) {
    pick_sdm_level(layer_, tile, [&](std::size_t n) { return uniform_index(rng, n); });
    repair_sdm(tile, log2_blocks(tile));
  }
  if (two_level_) {
    const auto& orders = distinct_phase_orders(layer_, tile);
    tile.phase_order = orders[uniform_index(rng, orders.size())];
  }
  settle(tile);
  return tile;
}

void MapSpace::settle(contracts::Mapping& tile) const {
  if (tile.sdm.blocked) tile.sdm.order = canonical_sdm_order(contracts::sdm_trips(extents_, tile.sdm.block), tile.sdm.order);
  if (!two_level_ || distinct_phase_orders(layer_, tile).size() < 2) tile.phase_order = contracts::kDefaultPhaseOrder;
}

void MapSpace::swap_roles(contracts::Mapping& tile, int a, int b, std::mt19937_64& rng) const {
  const int fabric_a = contracts::sdm_tile_dim(a), fabric_b = contracts::sdm_tile_dim(b);
  const std::int64_t size_a = tile[fabric_a], size_b = tile[fabric_b];
  tile[fabric_a] = sizes_[size_t(fabric_a)][nearest_size(fabric_a, std::log2(double(size_b)))];
  tile[fabric_b] = sizes_[size_t(fabric_b)][nearest_size(fabric_b, std::log2(double(size_a)))];
  auto excess = random_excess(rng);
  excess[size_t(fabric_a)] = excess[size_t(fabric_b)] = -1;  // shrink the other dimensions first
  repair_fabric(tile, excess);
  auto blocks = log2_blocks(tile);
  std::swap(blocks[size_t(a)], blocks[size_t(b)]);
  auto& order = tile.sdm.order;
  std::iter_swap(std::find(order.begin(), order.end(), a), std::find(order.begin(), order.end(), b));
  repair_sdm(tile, blocks);  // no SDM level stays none
  settle(tile);
}

contracts::Mapping MapSpace::neighbour(const contracts::Mapping& tile, std::mt19937_64& rng) const {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<int> movable;
  for (int d = 0; d < dims_; ++d)
    if (sizes_[size_t(d)].size() > 1) movable.push_back(d);
  for (int attempt = 0; attempt < 16; ++attempt) {
    contracts::Mapping next = tile;
    if (unit(rng) < kRoleSwapShare) {
      const std::size_t a = uniform_index(rng, contracts::kNumSdmDims);
      swap_roles(next, int(a), int(uniform_index_except(rng, contracts::kNumSdmDims, a)), rng);
    } else if (two_level_ && unit(rng) < 0.1 && distinct_phase_orders(layer_, next).size() > 1) {
      next.phase_order = next.phase_order == contracts::PhaseOrder::FoldsOuter ? contracts::PhaseOrder::FiltersOuter
                                                                          : contracts::PhaseOrder::FoldsOuter;
    } else if (two_level_ && (movable.empty() || unit(rng) < 0.35)) {
      if (!next.sdm.blocked)
        add_sdm_level(next, rng);
      else
        change_sdm_level(next, rng);
    } else if (!movable.empty()) {
      move_fabric_size(next, tile, movable, rng);
    }
    settle(next);
    if (next != tile) return next;
  }
  return random(rng);  // a space of one mapping, or no move found: any mapping
}

void MapSpace::add_sdm_level(contracts::Mapping& next, std::mt19937_64& rng) const {
  // Any SDM level, or (half the time) a full one.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  pick_sdm_level(layer_, next, [&](std::size_t n) { return uniform_index(rng, n); });
  repair_sdm(next, log2_blocks(next));
  if (next.sdm.blocked && unit(rng) < 0.5) fill_sdm(next, rng, true);
}

void MapSpace::change_sdm_level(contracts::Mapping& next, std::mt19937_64& rng) const {
  const double kind = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  if (kind < 0.15) {
    jump_to_full_sdm_level(next, rng);
  } else if (kind < 0.6) {
    move_sdm_block(next, rng);
  } else if (kind < 0.9) {
    move_sdm_loop(next, rng);
  } else {
    // Without the SDM level the phase order changes the residency rule: either one, in one move.
    next.sdm = contracts::SdmLevel{};
    const auto& orders = distinct_phase_orders(layer_, next);
    next.phase_order = orders[uniform_index(rng, orders.size())];
  }
}

void MapSpace::jump_to_full_sdm_level(contracts::Mapping& next, std::mt19937_64& rng) const {
  // Blocks grown as far as they fit, in any order: planned for a shuffled order, or grown one after another.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  if (unit(rng) < 0.5) {
    contracts::SdmOrder order = next.sdm.order;
    std::shuffle(order.begin(), order.end(), rng);
    plan_sdm(next, order);
  } else {
    fill_sdm(next, rng, unit(rng) < 0.5);
    const auto& orders = distinct_sdm_orders(contracts::sdm_trips(extents_, next.sdm.block));
    next.sdm.order = orders[uniform_index(rng, orders.size())];
  }
}

void MapSpace::move_sdm_block(contracts::Mapping& next, std::mt19937_64& rng) const {
  // An SDM block one candidate along, or (dense lists: many steps) a jump by a factor 2^0.5 … 2^1.5 or a
  // transfer of that factor to another block: the best blocks of a full SDM level are often a balance of
  // two (X' and Y'), and each step that moves one of them alone overflows the SDM or leaves it underused.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::size_t d = uniform_index(rng, contracts::kNumSdmDims);
  auto blocks = log2_blocks(next);
  const double sign = unit(rng) < 0.5 ? -1.0 : 1.0;
  if (unit(rng) < 0.5) {
    blocks[d] = std::log2(double(
        step_along(sdm_candidates(layer_, next).blocks[d], next.sdm.block[d], std::ptrdiff_t(sign))));
  } else {
    const double jump = sign * std::uniform_real_distribution<double>(0.5, 1.5)(rng);
    blocks[d] += jump;
    if (unit(rng) < 0.5) blocks[uniform_index_except(rng, contracts::kNumSdmDims, d)] -= jump;
  }
  repair_sdm(next, blocks);
}

void MapSpace::move_sdm_loop(contracts::Mapping& next, std::mt19937_64& rng) const {
  // Two loops swapped, or one loop moved to another place in the order.
  auto& order = next.sdm.order;
  const std::size_t i = uniform_index(rng, contracts::kNumSdmDims), j = uniform_index(rng, contracts::kNumSdmDims);
  if (std::uniform_real_distribution<double>(0.0, 1.0)(rng) < 0.5)
    std::swap(order[i], order[j]);
  else if (i < j)
    std::rotate(order.begin() + std::ptrdiff_t(i), order.begin() + std::ptrdiff_t(i) + 1,
                order.begin() + std::ptrdiff_t(j) + 1);
  else
    std::rotate(order.begin() + std::ptrdiff_t(j), order.begin() + std::ptrdiff_t(i),
                order.begin() + std::ptrdiff_t(i) + 1);
}

void MapSpace::move_fabric_size(contracts::Mapping& next, const contracts::Mapping& tile, const std::vector<int>& movable,
                                std::mt19937_64& rng) const {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int d = movable[uniform_index(rng, movable.size())];
  const auto& list = sizes_[size_t(d)];
  const double kind = unit(rng), sign = unit(rng) < 0.5 ? -1.0 : 1.0;
  auto excess = random_excess(rng);
  excess[size_t(d)] = -1;  // shrink the other dimensions first
  if (kind < 0.4) {  // the next size along the list
    set_space_size(next, d, step_along(list, space_size(next, d), std::ptrdiff_t(sign)));
  } else {  // a jump by a factor 2^0.5 … 2^1.5 (dense lists: many steps), or a transfer of that factor
    const double jump = sign * std::uniform_real_distribution<double>(0.5, 1.5)(rng);
    set_space_size(next, d, list[nearest_size(d, std::log2(double(space_size(next, d))) + jump)]);
    if (kind >= 0.75 && movable.size() > 1) {
      int other = d;
      while (other == d) other = movable[uniform_index(rng, movable.size())];
      set_space_size(next, other,
                     sizes_[size_t(other)][nearest_size(other, std::log2(double(space_size(next, other))) - jump)]);
      excess[size_t(other)] = -1;
    }
  }
  repair_fabric(next, excess);
  if (unit(rng) < 0.3) fill_fabric(next, d, rng);  // often a jump from one full tile to another
  repair_sdm(next, log2_blocks(tile));
}

contracts::Mapping MapSpace::crossover(const contracts::Mapping& a, const contracts::Mapping& b, std::mt19937_64& rng) const {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  contracts::Mapping child = a;
  for (int d = 0; d < dims_; ++d)
    if (unit(rng) < 0.5) set_space_size(child, d, space_size(b, d));
  child.sdm = unit(rng) < 0.5 ? a.sdm : b.sdm;
  child.phase_order = unit(rng) < 0.5 ? a.phase_order : b.phase_order;
  repair_fabric(child, random_excess(rng));
  repair_sdm(child, log2_blocks(child));
  settle(child);
  return child;
}

contracts::Mapping MapSpace::project(const RelaxedMapping& point) const {
  contracts::Mapping tile;
  Excess excess{};
  for (int d = 0; d < dims_; ++d) {
    const double log2_size = point[size_t(d == kSpaceGroups ? kRelaxedGroups : kRelaxedFabric + d)];
    set_space_size(tile, d, sizes_[size_t(d)][nearest_size(d, log2_size)]);
    excess[size_t(d)] = std::log2(double(space_size(tile, d))) - log2_size;
  }
  repair_fabric(tile, excess);
  tile.sdm.blocked = two_level_ && point[kRelaxedBlocked] > 0.5;
  std::array<std::uint8_t, contracts::kNumSdmDims> order{};
  std::iota(order.begin(), order.end(), std::uint8_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::uint8_t x, std::uint8_t y) {
    return point[size_t(kRelaxedOrder + x)] < point[size_t(kRelaxedOrder + y)];
  });
  tile.sdm.order = order;
  std::array<double, contracts::kNumSdmDims> blocks{};
  for (int d = 0; d < contracts::kNumSdmDims; ++d) blocks[size_t(d)] = point[size_t(kRelaxedBlocks + d)];
  repair_sdm(tile, blocks);
  tile.phase_order = point[kRelaxedPhase] > 0.5 ? contracts::PhaseOrder::FiltersOuter : contracts::PhaseOrder::FoldsOuter;
  settle(tile);
  return tile;
}

RelaxedMapping MapSpace::relax(const contracts::Mapping& tile) const {
  RelaxedMapping point{};
  for (int d = 0; d < contracts::kNumTileDims; ++d) point[size_t(kRelaxedFabric + d)] = std::log2(double(tile[d]));
  for (int d = 0; d < contracts::kNumSdmDims; ++d)
    point[size_t(kRelaxedBlocks + d)] = std::log2(double(
        tile.sdm.blocked ? tile.sdm.block[size_t(d)] : extents_[size_t(contracts::sdm_tile_dim(d))]));
  for (int position = 0; position < contracts::kNumSdmDims; ++position)
    point[size_t(kRelaxedOrder + tile.sdm.order[size_t(position)])] = position;
  point[kRelaxedBlocked] = tile.sdm.blocked ? 1.0 : 0.0;
  point[kRelaxedPhase] = tile.phase_order == contracts::PhaseOrder::FiltersOuter ? 1.0 : 0.0;
  point[kRelaxedGroups] = std::log2(double(tile.groups_per_step()));
  return point;
}

contracts::Mapping MapSpace::legalise(contracts::Mapping tile) const {
  RelaxedMapping point = relax(tile);
  for (int d = 0; d < contracts::kNumTileDims; ++d)
    point[size_t(kRelaxedFabric + d)] =
        std::log2(double(std::clamp<std::int64_t>(tile[d], 1, extents_[size_t(d)])));
  point[kRelaxedGroups] =
      std::log2(double(std::clamp<std::int64_t>(tile.groups_per_step(), 1, std::max<std::int64_t>(1, layer_.groups))));
  return project(point);  // a warm start keeps its phase order where it still matters
}

}  // namespace maeri::mapper
