// The fusion-aware search (fused_search.hpp): partial mappings per layer shape and stripe count, Pareto sets per
// compatibility key, joins per candidate group, and the partition by dynamic programming.
#include "mapper/search/fused_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include <tbb/parallel_for.h>

#include "contracts/sdm_budget.hpp"
#include "contracts/sdm_level.hpp"
#include "contracts/sdm_rules.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "mapper/mapspace/equivalent_orders.hpp"
#include "mapper/model/timing_bound.hpp"
#include "mapper/search/pareto_front.hpp"

namespace maeri::mapper {
namespace {

constexpr double kNone = std::numeric_limits<double>::infinity();

// One partial mapping of a layer in a role: what the join needs of it, and the lower bounds of its exact cycles
// (member_cycles_lower_bound) and energy (no DN/RN traversals: exact traffic only sets those counts).
struct Partial {
  double cycles = 0, energy_pj = 0;
  std::int64_t working_set = 0, pinned_bytes = 0;
  contracts::Mapping mapping;
  bool pinned = false;
  double cycles_bound = 0, energy_bound = 0;
  std::int64_t dram_bytes = 0;
};

bool dominates(const Partial& a, const Partial& b) {
  return a.cycles <= b.cycles && a.energy_pj <= b.energy_pj && a.working_set <= b.working_set &&
         a.pinned_bytes <= b.pinned_bytes;
}

// The compatibility key within one (layer, stripes): what the layer reads from the SDM, leaves there and whether it
// feeds the group (its output must leave final); with stripes, its rows per stripe.
struct RoleKey {
  bool input_in_sdm, output_in_sdm, feeds;
  std::int64_t rows;
  bool weights_in_sdm;  // a matrix product's operand A from the group
  bool operator<(const RoleKey& o) const {
    return std::tie(input_in_sdm, output_in_sdm, feeds, rows, weights_in_sdm) <
           std::tie(o.input_in_sdm, o.output_in_sdm, o.feeds, o.rows, o.weights_in_sdm);
  }
};
// A key's partial mappings: those no other beats in fluid cycles, energy, working set and pinned bytes (what the
// joins propose), and the componentwise least of every partial's costs and bounds, pruned or not (what a group's
// bound over its members' whole spaces adds up).
struct RoleSet {
  std::vector<Partial> front;
  bool pinnable = false;  // some partial pins its weights
  Partial lowest{kNone, kNone, 0, 0, {}, false, kNone, kNone, std::numeric_limits<std::int64_t>::max()};
  void lower_to(const Partial& partial) {
    lowest.cycles = std::min(lowest.cycles, partial.cycles);
    lowest.energy_pj = std::min(lowest.energy_pj, partial.energy_pj);
    lowest.cycles_bound = std::min(lowest.cycles_bound, partial.cycles_bound);
    lowest.energy_bound = std::min(lowest.energy_bound, partial.energy_bound);
    lowest.dram_bytes = std::min(lowest.dram_bytes, partial.dram_bytes);
  }
};
using PartialSets = std::map<RoleKey, RoleSet>;

// A group's stripes: how many, along X' or N (token stripes).
struct Stripes {
  std::int64_t count = 1;
  bool tokens = false;
  bool operator<(const Stripes& o) const { return std::tie(count, tokens) < std::tie(o.count, o.tokens); }
  bool operator==(const Stripes& o) const { return count == o.count && tokens == o.tokens; }
};

// Every partial mapping of a layer for `striping`: each mapping of its fused space in each role, visited with each
// compatibility key it may take (an output written anyway may feed the group or not).
void for_each_partial(const contracts::Layer& layer, const contracts::Hardware& hardware,
                      const std::vector<contracts::FabricTile>& tiles, Stripes striping, bool product,
                      bool weights_shareable, const std::function<void(const RoleKey&, const Partial&)>& visit,
                      std::uint64_t* made = nullptr) {
  const bool query_rows = striping.tokens && product && striping.count > 1;
  const std::int64_t stripes = striping.count;
  const std::int64_t pinned_bytes = pinned_weight_bytes(layer, hardware);
  const auto extents = contracts::layer_extents(layer);
  for_each_fused_sdm_tile(layer, hardware, tiles, stripes, striping.tokens, query_rows, [&](const contracts::Mapping& tile,
                                                               const std::vector<contracts::SdmOrder>& orders) {
    const auto trips = contracts::sdm_trips(extents, tile.sdm.block);
    const bool can_pin = stripes > 1 && trips[contracts::kSdmK] == 1 && trips[contracts::kSdmC] == 1;
    std::vector<FusedRole> roles;
    for (int in = 0; in < 2; ++in)
      for (int out = 0; out < 2; ++out)
        for (int pin = 0; pin < (can_pin ? 2 : 1); ++pin)
          // Operand A from the group: held whole (one stripe), or a stripe of its query rows.
          for (int shared = 0; shared < (weights_shareable && (stripes == 1 || query_rows) ? 2 : 1); ++shared)
            roles.push_back(
                FusedRole{in == 1, out == 1, stripes, pin == 1, false, shared == 1, striping.tokens, query_rows});
    const std::int64_t rows = stripes > 1 ? tile.sdm.block[contracts::stripe_dim(striping.tokens, query_rows)] : 0;
    evaluate_orders(layer, hardware, tile, distinct_phase_orders(layer, tile), orders, roles, [&](const contracts::CostReport& report, std::size_t r) {
      const FusedRole& role = roles[r];
      if (made) ++*made;
      const Partial partial{report.cycles.total, report.energy_pj.total,
                            member_working_set(layer, hardware, report.mapping, role),
                            role.weights_pinned ? pinned_bytes : 0, report.mapping, role.weights_pinned,
                            member_cycles_lower_bound(report, hardware),
                            report.energy_pj.total - report.energy_pj.dn - report.energy_pj.rn,
                            report.counts.dram_bytes};
      const bool final_output = contracts::sdm_block_traffic(layer, report.mapping).output_visits == 1;
      for (int feeds = role.output_in_sdm ? 1 : 0; feeds < 2; ++feeds)
        if (!feeds || final_output)
          visit(RoleKey{role.input_in_sdm, role.output_in_sdm, feeds == 1, rows, role.weights_in_sdm}, partial);
    });
  });
}

PartialSets make_partials(const contracts::Layer& layer, const contracts::Hardware& hardware,
                          const std::vector<contracts::FabricTile>& tiles, Stripes striping, bool product,
                          bool weights_shareable, FusedSearchStats& stats) {
  PartialSets sets;
  for_each_partial(layer, hardware, tiles, striping, product, weights_shareable,
                   [&](const RoleKey& key, const Partial& partial) {
                     RoleSet& set = sets[key];
                     set.lower_to(partial);
                     set.pinnable = set.pinnable || partial.pinned;
                     offer_pareto(set.front, partial, dominates, stats.pruned);
                   },
                   &stats.made);
  return sets;
}

// A partial mapping of a group's first members: its last member's partial (`pick`) joined to a state of the members
// before it (`parent`, an index into their states).
struct JoinState {
  double cycles = 0, energy_pj = 0;
  std::int64_t peak = 0, pinned = 0;
  std::uint32_t parent = 0, pick = 0;
  double cycles_bound = 0, energy_bound = 0;
  std::int64_t dram_bytes = 0;
};

// A mapping of a candidate group (one layer: its standalone best) with its totals by the fluid estimate, and its
// bounds (for a layer alone: its standalone report's totals).
struct Joined {
  double cycles = 0, energy_pj = 0;
  FusedGroup group;
  std::int64_t dram_bytes = 0;
  double cycles_bound = 0, energy_bound = 0;
};

GroupTotals operator+(const GroupTotals& a, const GroupTotals& b) {
  return {a.cycles + b.cycles, a.energy_pj + b.energy_pj, a.dram_bytes + b.dram_bytes};
}

// Whether two sums differ by more than their rounding.
bool differ(double a, double b) { return std::abs(a - b) > 1e-12 * std::max(std::abs(a), std::abs(b)); }
bool above(double a, double b) { return a > b && differ(a, b); }

// Whether `a` ranks ahead of `b`: the objective, then cycles, energy, DRAM bytes (mapper::better's order).
bool ahead(const GroupTotals& a, const GroupTotals& b, Objective objective) {
  const double value_a = objective_value(a.cycles, a.energy_pj, objective),
               value_b = objective_value(b.cycles, b.energy_pj, objective);
  if (differ(value_a, value_b)) return value_a < value_b;
  if (differ(a.cycles, b.cycles)) return a.cycles < b.cycles;
  if (differ(a.energy_pj, b.energy_pj)) return a.energy_pj < b.energy_pj;
  return a.dram_bytes < b.dram_bytes;
}

// A group mapping's costs as the partition compares them, each stage tighter and dearer: its lower bounds, then its
// exact traffic (energy, DRAM bytes), then its exact cycles with DRAM (ExactGroupCosts); without them, each stage
// is the fluid estimate.
class OptionCosts {
 public:
  OptionCosts(const ExactGroupCosts& exact, FusedSearchStats& stats) : exact_(exact), stats_(stats) {}

  GroupTotals bound(const Joined& option) const {
    if (!exact_.traffic) return fluid(option);
    return {exact_.cycles ? option.cycles_bound : option.cycles, option.energy_bound, 0};
  }
  // Exact energy and DRAM bytes; cycles still bound (or the fluid estimate when nothing is timed).
  GroupTotals traffic(const Joined& option) {
    if (!exact_.traffic) return fluid(option);
    ++stats_.traffic_costed;
    GroupTotals totals = exact_.traffic(option.group);
    if (exact_.cycles) totals.cycles = option.cycles_bound;
    return totals;
  }
  // `traffic`'s totals with the exact cycles.
  GroupTotals timed(const Joined& option, GroupTotals traffic) {
    if (!exact_.cycles) return traffic;
    ++stats_.timed;
    traffic.cycles = exact_.cycles(option.group);
    return traffic;
  }
  GroupTotals exact(const Joined& option) { return timed(option, traffic(option)); }

  // The same three stages for member `i` of `group` (its mapping `partial.mapping`, already in group.mappings[i]).
  GroupTotals bound(const Partial& partial) const {
    return bound(Joined{partial.cycles, partial.energy_pj, {}, partial.dram_bytes, partial.cycles_bound,
                        partial.energy_bound});
  }
  GroupTotals traffic(const FusedGroup& group, std::size_t i, const Partial& partial) {
    if (!exact_.member_traffic) return {partial.cycles, partial.energy_pj, partial.dram_bytes};
    GroupTotals totals = exact_.member_traffic(group, i);
    if (exact_.member_cycles) totals.cycles = partial.cycles_bound;
    return totals;
  }
  // Whether `timed` replays (the proof's budget counts replays, not fluid or traffic costs).
  bool replays() const { return bool(exact_.member_cycles); }
  GroupTotals timed(const FusedGroup& group, std::size_t i, GroupTotals traffic) {
    if (!exact_.member_cycles) return traffic;
    ++stats_.member_timed;
    const MemberCycles timed = exact_.member_cycles(group, i);
    traffic.cycles = timed.cycles;
    if (timed.replayed) stats_.member_replayed_cycles += timed.cycles;
    return traffic;
  }
  double replayed_cycles() const { return stats_.member_replayed_cycles; }

 private:
  static GroupTotals fluid(const Joined& option) { return {option.cycles, option.energy_pj, option.dram_bytes}; }
  const ExactGroupCosts& exact_;
  FusedSearchStats& stats_;
};

bool joined_dominates(const Joined& a, const Joined& b) { return a.cycles <= b.cycles && a.energy_pj <= b.energy_pj; }

// A candidate group (first layer, count, stripes) for the partition: the mappings its fluid joins propose (its
// front, non-empty) and, summed over its members, the componentwise least costs and bounds of every mapping of each
// member in its role (`space_bound`): no mapping of the group, proposed or not, costs less in any of them.
struct Candidate {
  FusedGroup shape;
  std::vector<Joined> front;
  Joined space_bound;
};
using GroupsEnding = std::function<void(std::size_t, const std::function<void(Candidate)>&)>;

// A candidate group solved over its members' spaces (GroupSolver): its best mapping found by the costs the partition
// compares (none when nothing that could rank ahead of the target fits), and whether no mapping of the group can
// rank ahead of it and of the target (every context that could, solved; every member's search closed by its bound).
struct Solved {
  std::optional<FusedGroup> group;
  GroupTotals totals;
  bool proven = true;
};
// solve(group shape, the prefix's lower bound, the target: the best partition of the layers so far).
using SolveGroup = std::function<Solved(const FusedGroup&, const GroupTotals&, const GroupTotals&)>;

GroupTotals least(const GroupTotals& a, const GroupTotals& b, Objective objective) {
  return ahead(b, a, objective) ? b : a;
}

// A sum objective (runtime, energy) is the sum of the groups' objectives: the best partition of the first j layers
// is the best of the first j − 1 plus layer j − 1 alone, or of the first `first` plus a group mapping (by the
// objective, then cycles, energy and DRAM bytes, which add up too). The group mappings ending at j are taken in the
// order of their lower bounds; one is costed exactly only while its bound can still beat (or tie) the best so far.
// Then the proof over the members' spaces (docs/model.md, "Which model decides what"): `lower[j]` ranks no worse
// than every partition of the first j layers, proposed or not — the least of each candidate group's bound over its
// members' spaces (or its solved best) after the prefix's lower bound, of the layer alone, and of best[j]. A
// one-stripe group whose bound can still rank ahead of best[j] is solved over its members' spaces (`solve`); a
// striped one left so is open. The partition is proven when lower[layers] does not rank ahead of best[layers].
std::vector<FusedGroup> best_partition_by_sum(std::size_t layers, Objective objective,
                                              const std::function<Joined(std::size_t)>& alone,
                                              const GroupsEnding& groups_ending, OptionCosts& costs,
                                              const SolveGroup& solve, FusedSearchStats& stats) {
  std::vector<GroupTotals> best(layers + 1), lower(layers + 1);
  std::vector<FusedGroup> last(layers + 1);
  const auto value = [&](const GroupTotals& totals) { return objective_value(totals.cycles, totals.energy_pj, objective); };
  for (std::size_t j = 1; j <= layers; ++j) {
    Joined single = alone(j - 1);
    const GroupTotals single_totals{single.cycles, single.energy_pj, single.dram_bytes};
    best[j] = best[j - 1] + single_totals;
    lower[j] = lower[j - 1] + single_totals;
    last[j] = std::move(single.group);
    std::vector<Joined> options;
    std::vector<Candidate> candidates;
    groups_ending(j, [&](Candidate candidate) {
      for (Joined& option : candidate.front) options.push_back(std::move(option));
      candidate.front.clear();
      candidates.push_back(std::move(candidate));
    });
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t k = 0; k < options.size(); ++k)
      order.emplace_back(value(best[options[k].group.first] + costs.bound(options[k])), k);
    std::stable_sort(order.begin(), order.end());
    for (const auto& [bound, k] : order) {
      if (above(bound, value(best[j]))) break;  // every later option's bound is no lower
      Joined& option = options[k];
      const GroupTotals& prefix = best[option.group.first];
      const GroupTotals traffic = costs.traffic(option);
      if (above(value(prefix + traffic), value(best[j]))) continue;
      const GroupTotals total = prefix + costs.timed(option, traffic);
      if (ahead(total, best[j], objective)) {  // strictly: ties keep what came first, the layer alone
        best[j] = total;
        last[j] = std::move(option.group);
      }
    }
    if (!solve) continue;
    // The proof: the candidate groups in the order of their bounds over their members' spaces.
    const auto space_bound = [&](const Candidate& candidate) {
      return lower[candidate.shape.first] + costs.bound(candidate.space_bound);
    };
    std::stable_sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
      return value(space_bound(a)) < value(space_bound(b));
    });
    // Per group that could still rank ahead: a lower bound after the prefix's lower bound, and, when the group is
    // open, its own bound after the prefix's best.
    std::vector<std::pair<GroupTotals, std::optional<GroupTotals>>> could_win;
    for (const Candidate& candidate : candidates) {
      const std::size_t first = candidate.shape.first;
      const GroupTotals bound = space_bound(candidate);
      if (!ahead(bound, best[j], objective)) continue;  // no mapping of the group ranks ahead of best[j]
      ++stats.solved_groups;
      const Solved solved = solve(candidate.shape, lower[first], best[j]);
      if (solved.group) {
        const GroupTotals total = best[first] + solved.totals;
        if (ahead(total, best[j], objective)) {
          best[j] = total;
          last[j] = *solved.group;
        }
      }
      if (!solved.proven)
        could_win.emplace_back(bound, best[first] + costs.bound(candidate.space_bound));
      else if (solved.group)
        could_win.emplace_back(lower[first] + solved.totals, std::nullopt);
    }
    lower[j] = least(lower[j], best[j], objective);
    for (const auto& [bound, own] : could_win)
      if (ahead(bound, best[j], objective)) {  // still, against the final best[j]
        lower[j] = least(lower[j], bound, objective);
        stats.open_groups += own && ahead(*own, best[j], objective);
      }
  }
  stats.proven = solve && !ahead(lower[layers], best[layers], objective);
  std::vector<FusedGroup> groups;
  for (std::size_t j = layers; j > 0; j -= last[j].count) groups.push_back(last[j]);
  std::reverse(groups.begin(), groups.end());
  return groups;
}

// The EDP of a partition is the network's: its total cycles × its total energy (docs/mapping.md, "Fused groups").
// That is no sum over groups, but it grows with both totals, so the best partition of the whole network extends,
// layer by layer, a partition of each prefix that no other of that prefix beats in both cycles and energy: per
// prefix the Pareto front of (cycles, energy) over its partitions, each point extended by a layer alone or by
// every point of a group's front, is exact. Each layer alone keeps its standalone best mapping (as --no-fusion).
// A group mapping is costed exactly only when some point it would extend, at its lower bounds, is not already
// beaten in both totals by a point made so far (then its exact point, never below its bounds, would not be either).
std::vector<FusedGroup> best_partition_by_network_edp(std::size_t layers, const std::function<Joined(std::size_t)>& alone,
                                                      const GroupsEnding& groups_ending, OptionCosts& costs) {
  struct Point {
    double cycles = 0, energy_pj = 0;
    std::size_t prefix = 0, previous = 0, group = 0;  // fronts[prefix][previous] + groups[group]
  };
  std::vector<FusedGroup> groups;
  std::vector<std::vector<Point>> fronts(layers + 1);
  fronts[0].push_back(Point{});
  for (std::size_t j = 1; j <= layers; ++j) {
    std::vector<Point> points;
    const auto extend = [&](std::size_t count, const GroupTotals& totals) {
      const std::size_t first = j - count;
      for (std::size_t p = 0; p < fronts[first].size(); ++p)
        points.push_back(Point{fronts[first][p].cycles + totals.cycles, fronts[first][p].energy_pj + totals.energy_pj,
                               first, p, groups.size()});
    };
    const auto beaten = [&](std::size_t count, const GroupTotals& totals) {
      for (const Point& prefix : fronts[j - count]) {
        const double cycles = prefix.cycles + totals.cycles, energy_pj = prefix.energy_pj + totals.energy_pj;
        if (std::none_of(points.begin(), points.end(), [&](const Point& point) {
              return point.cycles <= cycles && point.energy_pj <= energy_pj;
            }))
          return false;
      }
      return true;
    };
    Joined single = alone(j - 1);
    extend(1, {single.cycles, single.energy_pj, 0});  // first, so that on equal totals the unfused partition stays
    groups.push_back(std::move(single.group));
    std::vector<Joined> options;
    groups_ending(j, [&](Candidate candidate) {
      for (Joined& option : candidate.front) options.push_back(std::move(option));
    });
    std::stable_sort(options.begin(), options.end(), [&](const Joined& a, const Joined& b) {
      return costs.bound(a).cycles < costs.bound(b).cycles;
    });
    for (Joined& option : options) {
      const std::size_t count = option.group.count;
      if (beaten(count, costs.bound(option))) continue;
      const GroupTotals traffic = costs.traffic(option);
      if (beaten(count, traffic)) continue;
      extend(count, costs.timed(option, traffic));
      groups.push_back(std::move(option.group));
    }
    std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
      return std::tie(a.cycles, a.energy_pj) < std::tie(b.cycles, b.energy_pj);
    });
    for (const Point& point : points)
      if (fronts[j].empty() || point.energy_pj < fronts[j].back().energy_pj) fronts[j].push_back(point);
  }
  const auto best = std::min_element(fronts[layers].begin(), fronts[layers].end(), [](const Point& a, const Point& b) {
    return a.cycles * a.energy_pj < b.cycles * b.energy_pj;
  });
  std::vector<FusedGroup> partition;
  for (Point point = *best;; point = fronts[point.prefix][point.previous]) {
    partition.push_back(groups[point.group]);
    if (point.prefix == 0) break;
  }
  std::reverse(partition.begin(), partition.end());
  return partition;
}

using ShapeKey = std::vector<std::int64_t>;
ShapeKey shape_key(const contracts::Layer& layer, Stripes stripes) {
  ShapeKey key{static_cast<std::int64_t>(layer.type), stripes.count, stripes.tokens};
  for (const contracts::LayerShapeField& field : contracts::kLayerShapeFields) key.push_back(layer.*field.member);
  return key;
}

}  // namespace

void for_each_fused_sdm_tile(const contracts::Layer& layer, const contracts::Hardware& hardware,
                             const std::vector<contracts::FabricTile>& fabric_tiles, std::int64_t stripes,
                             bool token_stripes, bool query_rows,
                             const std::function<void(const contracts::Mapping&,
                                                      const std::vector<contracts::SdmOrder>&)>& visit) {
  const auto extents = contracts::layer_extents(layer);
  const std::uint8_t dim = std::uint8_t(contracts::stripe_dim(token_stripes, query_rows));
  for (const contracts::FabricTile& fabric : fabric_tiles) {
    if (contracts::mapping_violation(layer, hardware, contracts::single_level_mapping(fabric))) continue;
    for_each_sdm_tile(layer, hardware, contracts::single_level_mapping(fabric),
                      [&](const contracts::Mapping& tile, const std::vector<contracts::SdmOrder>& orders) {
                        if (stripes == 1) return visit(tile, orders);
                        auto trips = contracts::sdm_trips(extents, tile.sdm.block);
                        if (trips[dim] != stripes) return;
                        // One order per class of the other four loops, the stripe loop moved outermost.
                        trips[dim] = 1;
                        std::set<contracts::SdmOrder> outermost;
                        for (const contracts::SdmOrder& order : distinct_sdm_orders(trips)) {
                          contracts::SdmOrder moved{};
                          moved[0] = dim;
                          std::size_t next = 1;
                          for (std::uint8_t other : order)
                            if (other != dim) moved[next++] = other;
                          outermost.insert(moved);
                        }
                        visit(tile, std::vector<contracts::SdmOrder>(outermost.begin(), outermost.end()));
                      });
  }
}

std::vector<contracts::Mapping> fused_member_mappings(const contracts::Layer& layer,
                                                      const contracts::Hardware& hardware,
                                                      const std::vector<contracts::FabricTile>& fabric_tiles,
                                                      std::int64_t stripes, bool token_stripes, bool query_rows) {
  std::vector<contracts::Mapping> mappings;
  for_each_fused_sdm_tile(layer, hardware, fabric_tiles, stripes, token_stripes, query_rows,
                          [&](const contracts::Mapping& tile, const std::vector<contracts::SdmOrder>& orders) {
                            contracts::Mapping mapping = tile;
                            for (const contracts::SdmOrder& order : orders) {
                              mapping.sdm.order = order;
                              for (contracts::PhaseOrder phase : distinct_phase_orders(layer, mapping)) {
                                mapping.phase_order = phase;
                                mappings.push_back(mapping);
                              }
                              mapping.phase_order = contracts::kDefaultPhaseOrder;
                            }
                          });
  return mappings;
}

std::vector<std::int64_t> stripe_counts(const contracts::Layer& layer,
                                        const std::vector<contracts::FabricTile>& fabric_tiles, bool token_stripes,
                                        bool query_rows) {
  std::set<std::int64_t> counts;
  if (!token_stripes) counts.insert(1);
  const std::int64_t rows = contracts::stripe_extent(layer, token_stripes, query_rows);
  const int tile_dim = contracts::sdm_tile_dim(contracts::stripe_dim(token_stripes, query_rows));
  for (const contracts::FabricTile& fabric : fabric_tiles)
    for (std::int64_t block : sdm_block_candidates(rows, fabric[tile_dim], true))
      if (!token_stripes || block < rows) counts.insert((rows + block - 1) / block);
  return {counts.begin(), counts.end()};
}

std::vector<contracts::FabricTile> fusion_fabric_tiles(const std::vector<contracts::CostReport>& best, int count) {
  std::vector<contracts::FabricTile> tiles;
  for (std::size_t i = 0; i < best.size() && i < std::size_t(std::max(count, 0)); ++i)
    if (std::find(tiles.begin(), tiles.end(), best[i].mapping.tile) == tiles.end()) tiles.push_back(best[i].mapping.tile);
  return tiles;
}

namespace {

// A candidate group ready to join: its shape and each member's Pareto sets by rows per stripe, for its role.
struct Prepared {
  FusedGroup shape;
  Stripes stripes;
  std::vector<std::vector<std::pair<std::int64_t, const std::vector<Partial>*>>> by_rows;
  Joined space_bound;  // Candidate::space_bound
};

// The memory a join works in, kept to be reused (one per thread).
struct Workspace {
  std::vector<std::vector<JoinState>> levels;
  std::vector<JoinState> joined;
  ParetoScratch<4> scratch;
};

// The candidate groups of a network with their fronts (docs/mapping.md, "Fused groups"): each member's partial
// mappings (made once per layer shape and stripe count), joined along the group under its reservations.
class GroupJoiner {
 public:
  GroupJoiner(const contracts::Network& network, const FusionGraph& graph, const contracts::Hardware& hardware,
              const std::vector<std::vector<contracts::FabricTile>>& fabric_tiles, const FusionOptions& options,
              FusedSearchStats& stats)
      : network_(network), graph_(graph), hardware_(hardware), fabric_tiles_(fabric_tiles), options_(options),
        stats_(stats), stripes_of_(network.layers.size()) {
    // Row stripes (X') and, for a layer of several tokens (N), token stripes.
    for (std::size_t i = 0; i < stripes_of_.size(); ++i) {
      for (std::int64_t count : stripe_counts(network.layers[i], fabric_tiles[i])) stripes_of_[i].push_back({count, false});
      for (std::int64_t count : stripe_counts(network.layers[i], fabric_tiles[i], true, graph.products[i]))
        stripes_of_[i].push_back({count, true});
      std::sort(stripes_of_[i].begin(), stripes_of_[i].end());
    }
  }

  // The front of the group first … first + count − 1 over every stripe count its members share.
  std::vector<Joined> front(std::size_t first, std::size_t count) {
    std::vector<Joined> all;
    if (group_structure_violation(network_, graph_, first, count)) return all;
    Workspace workspace;
    for (Stripes stripes : common_stripes(first, count))
      if (const auto group = prepare(first, count, stripes))
        for (Joined& option : join(*group, stats_, workspace)) all.push_back(std::move(option));
    return all;
  }

  // Every candidate group ending after layer j − 1 (j = first + count), each with its front. The partial mappings
  // are made first, in order; then the groups are joined at once, each on its own statistics and memory, and visited
  // in order: the same fronts, in the same order, as one after another.
  void for_each_group_ending(std::size_t j, const std::function<void(Candidate)>& visit) {
    std::vector<Prepared> groups;
    for (std::size_t count = 2; count <= std::min(j, options_.max_layers); ++count) {
      const std::size_t first = j - count;
      if (group_structure_violation(network_, graph_, first, count)) continue;
      for (Stripes stripes : common_stripes(first, count))
        if (auto group = prepare(first, count, stripes)) groups.push_back(std::move(*group));
    }
    std::vector<std::vector<Joined>> fronts(groups.size());
    std::vector<FusedSearchStats> stats(groups.size());
    tbb::parallel_for(std::size_t(0), groups.size(), [&](std::size_t g) {
      thread_local Workspace workspace;
      fronts[g] = join(groups[g], stats[g], workspace);
    });
    for (std::size_t g = 0; g < groups.size(); ++g) {
      stats_.joined += stats[g].joined;
      stats_.pruned += stats[g].pruned;
      if (!fronts[g].empty()) visit(Candidate{groups[g].shape, std::move(fronts[g]), groups[g].space_bound});
    }
  }

 private:
  // The stripe counts every member of the group offers.
  std::vector<Stripes> common_stripes(std::size_t first, std::size_t count) const {
    std::vector<Stripes> common = stripes_of_[first];
    for (std::size_t i = first + 1; i < first + count; ++i) {
      std::vector<Stripes> both;
      std::set_intersection(common.begin(), common.end(), stripes_of_[i].begin(), stripes_of_[i].end(),
                            std::back_inserter(both));
      common = both;
    }
    return common;
  }

  const PartialSets& partials_of(std::size_t layer, Stripes stripes) {
    // A matrix product whose operand A some layer makes may read it from the group: roles with its weights shared.
    const bool shareable = weights_shareable(layer);
    ShapeKey key = shape_key(network_.layers[layer], stripes);
    key.push_back(shareable);
    key.push_back(graph_.products[layer]);
    auto found = partials_.find(key);
    if (found == partials_.end())
      found = partials_.emplace(key, make_partials(network_.layers[layer], hardware_, fabric_tiles_[layer], stripes,
                                                   graph_.products[layer], shareable, stats_)).first;
    return found->second;
  }

  // A candidate group made ready to join: each member's Pareto sets by rows per stripe, for its role; nullopt
  // when a member has none (then the members after it are not made).
  std::optional<Prepared> prepare(std::size_t first, std::size_t count, Stripes stripes) {
    ++stats_.groups;
    Prepared group{FusedGroup{first, count, stripes.count, {}, {}, stripes.tokens}, stripes, {}};
    const std::vector<FusedRole> roles = group_roles(graph_, group.shape);
    const std::vector<bool> feeds = group_feeds(graph_, group.shape);
    group.by_rows.resize(count);
    group.space_bound = Joined{0, 0, group.shape, 0, 0, 0};
    for (std::size_t i = 0; i < count; ++i) {
      RoleSet member;  // its least costs and bounds over every rows per stripe
      for (const auto& [key, set] : partials_of(first + i, stripes))
        if (key.input_in_sdm == roles[i].input_in_sdm && key.output_in_sdm == roles[i].output_in_sdm &&
            key.feeds == feeds[i] && key.weights_in_sdm == roles[i].weights_in_sdm && !set.front.empty()) {
          group.by_rows[i].emplace_back(key.rows, &set.front);
          member.lower_to(set.lowest);
        }
      if (group.by_rows[i].empty()) return std::nullopt;
      Joined& bound = group.space_bound;
      bound.cycles += member.lowest.cycles;
      bound.energy_pj += member.lowest.energy_pj;
      bound.dram_bytes += member.lowest.dram_bytes;
      bound.cycles_bound += member.lowest.cycles_bound;
      bound.energy_bound += member.lowest.energy_bound;
    }
    return group;
  }

 public:
  // A member's rows per stripe in its role (0 with one stripe): whether some mapping pins its weights, one mapping
  // (a stand-in for the member while another is costed: the group's reservations read its rows) and the least costs
  // and bounds of all.
  struct RowsChoice {
    std::int64_t rows = 0;
    bool pinnable = false;
    contracts::Mapping example;
    Partial lowest;
  };
  // Per member of `shape`, the rows per stripe its space offers in its role (an empty list: none).
  std::vector<std::vector<RowsChoice>> rows_choices(const FusedGroup& shape) {
    const Stripes stripes{shape.stripes, shape.token_stripes};
    const std::vector<FusedRole> roles = group_roles(graph_, shape);
    const std::vector<bool> feeds = group_feeds(graph_, shape);
    std::vector<std::vector<RowsChoice>> choices(shape.count);
    for (std::size_t i = 0; i < shape.count; ++i)
      for (const auto& [key, set] : partials_of(shape.first + i, stripes))
        if (key.input_in_sdm == roles[i].input_in_sdm && key.output_in_sdm == roles[i].output_in_sdm &&
            key.feeds == feeds[i] && key.weights_in_sdm == roles[i].weights_in_sdm && !set.front.empty())
          choices[i].push_back(RowsChoice{key.rows, set.pinnable, set.front.front().mapping, set.lowest});
    return choices;
  }
  std::int64_t sdm_bytes() const { return hardware_.sdm_bytes; }
  GroupReservations reservations(const FusedGroup& shape, const std::vector<std::int64_t>& rows) const {
    return group_reservations(network_, graph_, hardware_, shape.first, shape.count, shape.stripes, rows,
                              shape.token_stripes);
  }
  std::int64_t pinned_bytes(const FusedGroup& shape, std::size_t i) const {
    return pinned_weight_bytes(network_.layers[shape.first + i], hardware_);
  }
  // Every mapping of member i of `shape` in its role with `rows` per stripe and its weights pinned or not whose
  // working set is at most `room`, pruned by nothing (what the proof walks).
  std::vector<Partial> member_space(const FusedGroup& shape, std::size_t i, std::int64_t rows, bool pinned,
                                    std::int64_t room) const {
    const std::size_t layer = shape.first + i;
    const FusedRole role = group_roles(graph_, shape)[i];
    const bool feeds = group_feeds(graph_, shape)[i];
    std::vector<Partial> space;
    const Stripes stripes{shape.stripes, shape.token_stripes};
    for_each_partial(network_.layers[layer], hardware_, fabric_tiles_[layer], stripes, graph_.products[layer],
                     weights_shareable(layer), [&](const RoleKey& key, const Partial& partial) {
                       if (key.input_in_sdm == role.input_in_sdm && key.output_in_sdm == role.output_in_sdm &&
                           key.feeds == feeds && key.weights_in_sdm == role.weights_in_sdm && key.rows == rows &&
                           partial.pinned == pinned && partial.working_set <= room)
                         space.push_back(partial);
                     });
    return space;
  }
  // What decides member i's cost besides its mapping, its rows, its pin and the bytes beside it: its layer's shape,
  // the group's stripes and the member's role.
  std::vector<std::int64_t> member_context(const FusedGroup& shape, std::size_t i) {
    const std::size_t layer = shape.first + i;
    const FusedRole role = group_roles(graph_, shape)[i];
    ShapeKey key = shape_key(network_.layers[layer], Stripes{shape.stripes, shape.token_stripes});
    key.insert(key.end(), {weights_shareable(layer), graph_.products[layer], role.input_in_sdm, role.output_in_sdm,
                           role.weights_in_sdm, role.output_over_shortcut, role.query_rows,
                           group_feeds(graph_, shape)[i]});
    return key;
  }

 private:
  bool weights_shareable(std::size_t layer) const {
    return std::any_of(graph_.edges.begin(), graph_.edges.end(),
                       [&](const FusionEdge& edge) { return edge.consumer == layer && edge.operand_a; });
  }

  // The group's mappings that no other beats in both cycles and energy (empty when none is legal), joined for
  // every choice of rows per stripe. The best of them in a sum objective, and every one that can be part of the
  // network's best EDP, are on it. Reads only what prepare made: groups may be joined at once.
  std::vector<Joined> join(const Prepared& group, FusedSearchStats& stats, Workspace& workspace) const {
    const std::size_t first = group.shape.first, count = group.shape.count;
    const Stripes stripes = group.stripes;
    const auto& by_rows = group.by_rows;
    std::vector<Joined> front;
    std::vector<std::size_t> pick(count, 0);
    while (true) {
      std::vector<std::int64_t> rows(count);
      std::vector<const std::vector<Partial>*> sets(count);
      for (std::size_t i = 0; i < count; ++i) std::tie(rows[i], sets[i]) = by_rows[i][pick[i]];
      const GroupReservations reservations =
          group_reservations(network_, graph_, hardware_, first, count, stripes.count, rows, stripes.tokens);
      if (!reservations.violation) join_members(group.shape, sets, reservations, front, stats, workspace);
      std::size_t i = 0;
      while (i < count && ++pick[i] == by_rows[i].size()) pick[i++] = 0;
      if (i == count) break;
    }
    return front;
  }

  // The members' partial sets (one per member, for one choice of rows per stripe) joined member by member under the
  // group's reservations, each joined mapping that fits the SDM offered to `front`.
  void join_members(const FusedGroup& shape, const std::vector<const std::vector<Partial>*>& sets,
                    const GroupReservations& reservations, std::vector<Joined>& front, FusedSearchStats& stats,
                    Workspace& workspace) const {
    // levels[i]: the states of members 0 … i that no other beats (levels[0]'s parent: the empty join).
    std::vector<std::vector<JoinState>>& levels = workspace.levels;
    levels.resize(sets.size());
    const JoinState empty;
    for (std::size_t i = 0; i < sets.size(); ++i) {
      std::vector<JoinState>& joined = workspace.joined;
      joined.clear();
      const std::vector<Partial>& set = *sets[i];
      const std::size_t parents = i == 0 ? 1 : levels[i - 1].size();
      for (std::size_t s = 0; s < parents; ++s) {
        const JoinState& state = i == 0 ? empty : levels[i - 1][s];
        for (std::size_t p = 0; p < set.size(); ++p) {
          ++stats.joined;
          const std::int64_t peak = std::max(state.peak, set[p].working_set + reservations.live_at[i]);
          if (peak + state.pinned + set[p].pinned_bytes > hardware_.sdm_bytes) {
            ++stats.pruned;
            continue;
          }
          joined.push_back(JoinState{state.cycles + set[p].cycles, state.energy_pj + set[p].energy_pj, peak,
                                     state.pinned + set[p].pinned_bytes, std::uint32_t(s), std::uint32_t(p),
                                     state.cycles_bound + set[p].cycles_bound, state.energy_bound + set[p].energy_bound,
                                     state.dram_bytes + set[p].dram_bytes});
        }
      }
      // The states no other beats in cycles, energy, peak and pinned bytes.
      stats.pruned += keep_pareto(
          joined,
          [](const JoinState& state) {
            return std::array<double, 4>{state.cycles, state.energy_pj, double(state.peak), double(state.pinned)};
          },
          levels[i], workspace.scratch);
      if (levels[i].empty()) return;
    }
    for (const JoinState& state : levels.back()) {
      Joined candidate{state.cycles, state.energy_pj, shape, state.dram_bytes, state.cycles_bound, state.energy_bound};
      if (std::any_of(front.begin(), front.end(), [&](const Joined& kept) { return joined_dominates(kept, candidate); }))
        continue;
      candidate.group.mappings.resize(sets.size());
      candidate.group.weights_pinned.resize(sets.size());
      const JoinState* at = &state;
      for (std::size_t i = sets.size(); i-- > 0;) {
        const Partial& partial = (*sets[i])[at->pick];
        candidate.group.mappings[i] = partial.mapping;
        candidate.group.weights_pinned[i] = partial.pinned;
        if (i > 0) at = &levels[i - 1][at->parent];
      }
      std::uint64_t ignored = 0;
      offer_pareto(front, std::move(candidate), joined_dominates, ignored);
    }
  }

  const contracts::Network& network_;
  const FusionGraph& graph_;
  const contracts::Hardware& hardware_;
  const std::vector<std::vector<contracts::FabricTile>>& fabric_tiles_;
  const FusionOptions& options_;
  FusedSearchStats& stats_;
  std::vector<std::vector<Stripes>> stripes_of_;
  std::map<ShapeKey, PartialSets> partials_;  // per layer shape and stripe count
};

// The proof's solver of a candidate group (docs/model.md, "Which model decides what"). Once each member's rows per
// stripe and pin are chosen (a context), the group's reservations are fixed — the shared tensors live beside each
// member and the pinned weights, whatever the members' mappings — so its members cost independently and the group's
// best in that context by a sum objective (objective, then cycles, energy, DRAM bytes: orders that sums keep) is
// each member's best in its role. A member's mappings in its context — its whole fused space, pruned by nothing but
// the SDM's room — are taken in the order of their lower bounds and costed exactly while the next bound still ranks
// ahead of the best found, as a layer's list is proven; after kFusedMemberReplayBudget replays, or once the search's
// replays reach FusionOptions::proof_budget_cycles, its best is the best found, not proven. Contexts are solved in
// the order of their bounds while one can still rank ahead of the target (the best partition of the layers so far)
// and of the group's best found; a group of more than kFusedContextBudget contexts is left unsolved. A member's best
// is kept by what decides it, for every group that holds it so (ResNet-50's repeated blocks, a group and the groups
// that extend it).
class GroupSolver {
 public:
  GroupSolver(GroupJoiner& joiner, OptionCosts& costs, Objective objective, double budget_cycles)
      : joiner_(joiner), costs_(costs), objective_(objective), budget_cycles_(budget_cycles) {}

  // The group's best mapping found (none: no context that could rank ahead of `target` after `prefix` fits), proven
  // unless such a context was left unsolved or a member's best is not proven.
  Solved operator()(const FusedGroup& shape, const GroupTotals& prefix, const GroupTotals& target) {
    using Choice = GroupJoiner::RowsChoice;
    if (costs_.replays() && costs_.replayed_cycles() >= budget_cycles_) return Solved{std::nullopt, {}, false};
    const std::vector<std::vector<Choice>> choices = joiner_.rows_choices(shape);
    double contexts = 1;
    for (const std::vector<Choice>& member : choices) {
      std::size_t options = 0;
      for (const Choice& choice : member) options += choice.pinnable ? 2 : 1;
      contexts *= double(options);
    }
    if (contexts == 0) return Solved{};
    if (contexts > double(kFusedContextBudget)) return Solved{std::nullopt, {}, false};
    // Every context with its bound, in the order of the bounds.
    struct Context {
      GroupTotals bound;
      std::vector<std::size_t> pick;
      std::vector<bool> pins;
    };
    std::vector<Context> all;
    std::vector<std::size_t> pick(shape.count, 0);
    std::vector<bool> pins(shape.count, false);
    while (true) {
      Context context{{}, pick, pins};
      for (std::size_t i = 0; i < shape.count; ++i)
        context.bound = context.bound + costs_.bound(choices[i][pick[i]].lowest);
      all.push_back(std::move(context));
      std::size_t i = 0;  // the next (rows, pin) of each member, the first fastest
      for (; i < shape.count; ++i) {
        if (!pins[i] && choices[i][pick[i]].pinnable) {
          pins[i] = true;
          break;
        }
        pins[i] = false;
        if (++pick[i] < choices[i].size()) break;
        pick[i] = 0;
      }
      if (i == shape.count) break;
    }
    std::stable_sort(all.begin(), all.end(), [&](const Context& a, const Context& b) {
      return objective_value(a.bound.cycles, a.bound.energy_pj, objective_) <
             objective_value(b.bound.cycles, b.bound.energy_pj, objective_);
    });
    Solved best;
    for (const Context& context : all) {
      if (!ahead(prefix + context.bound, target, objective_)) continue;  // cannot rank ahead of the partition so far
      if (best.group && !ahead(context.bound, best.totals, objective_)) continue;  // nor of the group's best
      std::optional<Solved> solved = solve_context(shape, choices, context.pick, context.pins);
      if (!solved) continue;
      best.proven = best.proven && solved->proven;
      if (!best.group || ahead(solved->totals, best.totals, objective_)) {
        best.group = std::move(solved->group);
        best.totals = solved->totals;
      }
    }
    return best;
  }

 private:
  // A member's best in a context: none when no mapping fits (proven) or when the budget ran out before one was
  // timed (not proven).
  struct MemberBest {
    std::optional<contracts::Mapping> mapping;
    GroupTotals totals;
    bool proven = true;
  };

  std::optional<Solved> solve_context(const FusedGroup& shape,
                                      const std::vector<std::vector<GroupJoiner::RowsChoice>>& choices,
                                      const std::vector<std::size_t>& pick, const std::vector<bool>& pins) {
    std::vector<std::int64_t> rows;
    for (std::size_t i = 0; i < shape.count; ++i) rows.push_back(choices[i][pick[i]].rows);
    const GroupReservations reservations = joiner_.reservations(shape, rows);
    if (reservations.violation) return std::nullopt;
    std::int64_t pinned = 0;
    for (std::size_t i = 0; i < shape.count; ++i) pinned += pins[i] ? joiner_.pinned_bytes(shape, i) : 0;
    // The group as the exact model sees it: each member's stand-in mapping with its rows, the pins.
    FusedGroup group{shape.first, shape.count, shape.stripes, {}, pins, shape.token_stripes};
    for (std::size_t i = 0; i < shape.count; ++i) group.mappings.push_back(choices[i][pick[i]].example);
    Solved solved{group, {}, true};
    for (std::size_t i = 0; i < shape.count; ++i) {
      std::vector<std::int64_t> context = joiner_.member_context(shape, i);
      context.insert(context.end(), {rows[i], pins[i], reservations.live_at[i], pinned});
      auto found = members_.find(context);
      if (found == members_.end()) {
        context.resize(context.size() - 2);  // the member's space: without the bytes beside it
        const std::vector<Partial>& space = member_space(group, i, rows[i], context);
        context.insert(context.end(), {reservations.live_at[i], pinned});
        found = members_.emplace(std::move(context), solve_member(group, i, space, room(reservations, i, pinned))).first;
      }
      if (!found->second.mapping) {
        if (found->second.proven) return std::nullopt;  // nothing fits: no such context
        return Solved{std::nullopt, {}, false};
      }
      solved.group->mappings[i] = *found->second.mapping;
      solved.totals = solved.totals + found->second.totals;
      solved.proven = solved.proven && found->second.proven;
    }
    return solved;
  }

  // What the SDM leaves member i beside the tensors live while it runs and the pinned weights.
  std::int64_t room(const GroupReservations& reservations, std::size_t i, std::int64_t pinned) const {
    return joiner_.sdm_bytes() - reservations.live_at[i] - pinned;
  }

  // Member i's mappings in its role with `rows` and its pin, in the order of their bounds, whatever the room beside
  // them (made once per `key`: the member's context without the bytes beside it).
  const std::vector<Partial>& member_space(const FusedGroup& group, std::size_t i, std::int64_t rows,
                                           const std::vector<std::int64_t>& key) {
    auto found = spaces_.find(key);
    if (found != spaces_.end()) return found->second;
    std::vector<Partial> space =
        joiner_.member_space(group, i, rows, group.weights_pinned[i], std::numeric_limits<std::int64_t>::max());
    std::vector<std::pair<std::array<double, 4>, std::size_t>> order;
    for (std::size_t k = 0; k < space.size(); ++k) {
      const GroupTotals bound = costs_.bound(space[k]);
      order.push_back({{objective_value(bound.cycles, bound.energy_pj, objective_), bound.cycles, bound.energy_pj,
                        double(bound.dram_bytes)},
                       k});
    }
    std::sort(order.begin(), order.end());
    std::vector<Partial> sorted;
    for (const auto& entry : order) sorted.push_back(std::move(space[entry.second]));
    return spaces_.emplace(key, std::move(sorted)).first->second;
  }

  // Member i's best in `group`'s context (its stand-ins for the others) among its mappings (`space`, in the order of
  // their bounds) that fit `room`.
  MemberBest solve_member(FusedGroup group, std::size_t i, const std::vector<Partial>& space, std::int64_t room) {
    MemberBest best;
    std::size_t replays = 0;
    for (const Partial& partial : space) {
      if (partial.working_set > room) continue;
      if (best.mapping && !ahead(costs_.bound(partial), best.totals, objective_)) break;  // nor can any later one
      group.mappings[i] = partial.mapping;
      const GroupTotals traffic = costs_.traffic(group, i, partial);
      if (best.mapping && !ahead(traffic, best.totals, objective_)) continue;
      if (costs_.replays() &&
          (replays == kFusedMemberReplayBudget || costs_.replayed_cycles() >= budget_cycles_)) {
        best.proven = false;
        break;
      }
      ++replays;
      const GroupTotals exact = costs_.timed(group, i, traffic);
      if (!best.mapping || ahead(exact, best.totals, objective_)) {
        best.mapping = partial.mapping;
        best.totals = exact;
      }
    }
    return best;
  }

  GroupJoiner& joiner_;
  OptionCosts& costs_;
  Objective objective_;
  double budget_cycles_;
  std::map<std::vector<std::int64_t>, MemberBest> members_;
  std::map<std::vector<std::int64_t>, std::vector<Partial>> spaces_;
};

// The partition of a fixed policy (FusionOptions::fixed_group): the named consecutive layers as one group, at the
// best of its front by the objective (the network's EDP: with the other layers' totals), every other layer alone.
std::vector<FusedGroup> fixed_partition(const contracts::Network& network, const std::vector<std::string>& names,
                                        Objective objective, const std::function<Joined(std::size_t)>& alone,
                                        const std::function<std::vector<Joined>(std::size_t, std::size_t)>& front_of,
                                        OptionCosts& costs) {
  std::vector<std::size_t> indices;
  for (const std::string& name : names) {
    const auto at = std::find_if(network.layers.begin(), network.layers.end(),
                                 [&](const contracts::Layer& layer) { return layer.name == name; });
    if (at == network.layers.end()) throw std::invalid_argument("fused group: no layer '" + name + "'");
    indices.push_back(std::size_t(at - network.layers.begin()));
  }
  const std::size_t first = indices.front(), count = indices.size();
  for (std::size_t i = 0; i < count; ++i)
    if (indices[i] != first + i)
      throw std::invalid_argument("fused group: its layers must be consecutive layers of the network, in order ('" +
                                  names[i] + "' is layer " + std::to_string(indices[i]) + ")");
  std::vector<FusedGroup> groups;
  double cycles = 0, energy_pj = 0;
  for (std::size_t layer = 0; layer < network.layers.size(); ++layer)
    if (layer < first || layer >= first + count) {
      const Joined single = alone(layer);
      cycles += single.cycles;
      energy_pj += single.energy_pj;
    }
  std::vector<Joined> front = count > 1 ? front_of(first, count) : std::vector<Joined>{alone(first)};
  if (front.empty())
    throw std::invalid_argument("fused group '" + names.front() + "' … '" + names.back() +
                                "': no stripes and mappings of its members make a legal group (docs/mapping.md, "
                                "\"Fused groups\")");
  // Every mapping of the front costed exactly (one group); the best by the objective, then cycles, energy, DRAM.
  std::vector<GroupTotals> totals;
  for (const Joined& option : front)
    totals.push_back(count > 1 ? costs.exact(option) : GroupTotals{option.cycles, option.energy_pj, option.dram_bytes});
  const auto network_totals = [&](std::size_t k) {  // for EDP: with the other layers
    return objective == Objective::EnergyDelay ? GroupTotals{cycles, energy_pj, 0} + totals[k] : totals[k];
  };
  std::size_t chosen = 0;
  for (std::size_t k = 1; k < front.size(); ++k)
    if (ahead(network_totals(k), network_totals(chosen), objective)) chosen = k;
  const Joined& best = front[chosen];
  for (std::size_t layer = 0; layer < first; ++layer) groups.push_back(alone(layer).group);
  groups.push_back(best.group);
  for (std::size_t layer = first + count; layer < network.layers.size(); ++layer) groups.push_back(alone(layer).group);
  return groups;
}

// The cost of each group of the partition: a layer alone at its standalone cost, a fused group re-costed whole.
std::vector<GroupCost> partition_costs(const contracts::Network& network, const FusionGraph& graph,
                                       const contracts::Hardware& hardware,
                                       const std::vector<contracts::CostReport>& standalone,
                                       const std::vector<FusedGroup>& groups) {
  std::vector<GroupCost> costs;
  for (const FusedGroup& group : groups) {
    if (group.count == 1) {
      const contracts::CostReport& alone = standalone[group.first];
      costs.push_back(GroupCost{{alone}, alone.cycles.total, alone.energy_pj.total, alone.counts.dram_bytes, 0});
    } else {
      costs.push_back(evaluate_group(network, graph, hardware, group));
    }
  }
  return costs;
}

}  // namespace

NetworkFusion fused_search(const contracts::Network& network, const FusionGraph& graph,
                           const contracts::Hardware& hardware, const std::vector<contracts::CostReport>& standalone,
                           const std::vector<std::vector<contracts::FabricTile>>& fabric_tiles, Objective objective,
                           const FusionOptions& options, const ExactGroupCosts& exact) {
  const auto start = std::chrono::steady_clock::now();
  NetworkFusion fusion;
  GroupJoiner joiner(network, graph, hardware, fabric_tiles, options, fusion.stats);
  const GroupsEnding groups_ending = [&](std::size_t j, const std::function<void(Candidate)>& visit) {
    joiner.for_each_group_ending(j, [&](Candidate candidate) {
      fusion.stats.options += candidate.front.size();
      visit(std::move(candidate));
    });
  };
  const auto layer_alone = [&](std::size_t layer) {
    const contracts::CostReport& report = standalone[layer];
    return Joined{report.cycles.total, report.energy_pj.total, FusedGroup{layer, 1, 1, {report.mapping}, {false}},
                  report.counts.dram_bytes, report.cycles.total, report.energy_pj.total};
  };
  OptionCosts costs(exact, fusion.stats);
  GroupSolver solver(joiner, costs, objective, options.proof_budget_cycles);
  fusion.stats.proof_budget_cycles = options.proof_budget_cycles;
  const std::size_t layers = network.layers.size();
  if (!options.fixed_group.empty())
    fusion.groups = fixed_partition(network, options.fixed_group, objective, layer_alone,
                                    [&](std::size_t first, std::size_t count) { return joiner.front(first, count); },
                                    costs);
  else
    fusion.groups = objective == Objective::EnergyDelay
                        ? best_partition_by_network_edp(layers, layer_alone, groups_ending, costs)
                        : best_partition_by_sum(layers, objective, layer_alone, groups_ending, costs,
                                                [&solver](const FusedGroup& shape, const GroupTotals& prefix,
                                                          const GroupTotals& target) {
                                                  return solver(shape, prefix, target);
                                                },
                                                fusion.stats);
  fusion.costs = partition_costs(network, graph, hardware, standalone, fusion.groups);
  double cycles = 0, energy_pj = 0;
  for (const GroupCost& cost : fusion.costs) {
    cycles += cost.cycles;
    energy_pj += cost.energy_pj;
  }
  fusion.objective = objective_value(cycles, energy_pj, objective);
  fusion.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return fusion;
}

}  // namespace maeri::mapper
