// The fusion-aware search (fused_search.hpp): partial mappings per layer shape and stripe count, Pareto sets per
// compatibility key, joins per candidate group, and the partition by dynamic programming.
#include "mapper/search/fused_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
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
using PartialSets = std::map<RoleKey, std::vector<Partial>>;

// A group's stripes: how many, along X' or N (token stripes).
struct Stripes {
  std::int64_t count = 1;
  bool tokens = false;
  bool operator<(const Stripes& o) const { return std::tie(count, tokens) < std::tie(o.count, o.tokens); }
  bool operator==(const Stripes& o) const { return count == o.count && tokens == o.tokens; }
};

PartialSets make_partials(const contracts::Layer& layer, const contracts::Hardware& hardware,
                          const std::vector<contracts::FabricTile>& tiles, Stripes striping, bool product,
                          bool weights_shareable, FusedSearchStats& stats) {
  const bool query_rows = striping.tokens && product && striping.count > 1;
  const std::int64_t stripes = striping.count;
  PartialSets sets;
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
      ++stats.made;
      Partial partial{report.cycles.total, report.energy_pj.total,
                      member_working_set(layer, hardware, report.mapping, role),
                      role.weights_pinned ? pinned_bytes : 0, report.mapping, role.weights_pinned,
                      member_cycles_lower_bound(report, hardware),
                      report.energy_pj.total - report.energy_pj.dn - report.energy_pj.rn, report.counts.dram_bytes};
      const bool final_output = contracts::sdm_block_traffic(layer, report.mapping).output_visits == 1;
      // An output that stays in the SDM feeds the group; one that is written anyway may feed it or not.
      for (int feeds = role.output_in_sdm ? 1 : 0; feeds < 2; ++feeds) {
        if (feeds && !final_output) continue;
        offer_pareto(sets[RoleKey{role.input_in_sdm, role.output_in_sdm, feeds == 1, rows, role.weights_in_sdm}], partial, dominates,
                     stats.pruned);
      }
    });
  });
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

 private:
  static GroupTotals fluid(const Joined& option) { return {option.cycles, option.energy_pj, option.dram_bytes}; }
  const ExactGroupCosts& exact_;
  FusedSearchStats& stats_;
};

bool joined_dominates(const Joined& a, const Joined& b) { return a.cycles <= b.cycles && a.energy_pj <= b.energy_pj; }

using GroupsEnding = std::function<void(std::size_t, const std::function<void(std::vector<Joined>)>&)>;

// A sum objective (runtime, energy) is the sum of the groups' objectives: the best partition of the first j layers
// is the best of the first j − 1 plus layer j − 1 alone, or of the first `first` plus a group mapping (by the
// objective, then cycles, energy and DRAM bytes, which add up too). The group mappings ending at j are taken in the
// order of their lower bounds; one is costed exactly only while its bound can still beat (or tie) the best so far.
std::vector<FusedGroup> best_partition_by_sum(std::size_t layers, Objective objective,
                                              const std::function<Joined(std::size_t)>& alone,
                                              const GroupsEnding& groups_ending, OptionCosts& costs) {
  std::vector<GroupTotals> best(layers + 1);
  std::vector<FusedGroup> last(layers + 1);
  const auto value = [&](const GroupTotals& totals) { return objective_value(totals.cycles, totals.energy_pj, objective); };
  for (std::size_t j = 1; j <= layers; ++j) {
    Joined single = alone(j - 1);
    best[j] = best[j - 1] + GroupTotals{single.cycles, single.energy_pj, single.dram_bytes};
    last[j] = std::move(single.group);
    std::vector<Joined> options;
    groups_ending(j, [&](std::vector<Joined> front) {
      for (Joined& option : front) options.push_back(std::move(option));
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
  }
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
    groups_ending(j, [&](std::vector<Joined> front) {
      for (Joined& option : front) options.push_back(std::move(option));
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
  void for_each_group_ending(std::size_t j, const std::function<void(std::vector<Joined>)>& visit) {
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
      if (!fronts[g].empty()) visit(std::move(fronts[g]));
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
    const bool weights_shareable = std::any_of(graph_.edges.begin(), graph_.edges.end(), [&](const FusionEdge& edge) {
      return edge.consumer == layer && edge.operand_a;
    });
    ShapeKey key = shape_key(network_.layers[layer], stripes);
    key.push_back(weights_shareable);
    key.push_back(graph_.products[layer]);
    auto found = partials_.find(key);
    if (found == partials_.end())
      found = partials_.emplace(key, make_partials(network_.layers[layer], hardware_, fabric_tiles_[layer], stripes,
                                                   graph_.products[layer], weights_shareable, stats_)).first;
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
    for (std::size_t i = 0; i < count; ++i) {
      for (const auto& [key, set] : partials_of(first + i, stripes))
        if (key.input_in_sdm == roles[i].input_in_sdm && key.output_in_sdm == roles[i].output_in_sdm &&
            key.feeds == feeds[i] && key.weights_in_sdm == roles[i].weights_in_sdm && !set.empty())
          group.by_rows[i].emplace_back(key.rows, &set);
      if (group.by_rows[i].empty()) return std::nullopt;
    }
    return group;
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
  const GroupsEnding groups_ending = [&](std::size_t j, const std::function<void(std::vector<Joined>)>& visit) {
    joiner.for_each_group_ending(j, [&](std::vector<Joined> front) {
      fusion.stats.options += front.size();
      visit(std::move(front));
    });
  };
  const auto layer_alone = [&](std::size_t layer) {
    const contracts::CostReport& report = standalone[layer];
    return Joined{report.cycles.total, report.energy_pj.total, FusedGroup{layer, 1, 1, {report.mapping}, {false}},
                  report.counts.dram_bytes, report.cycles.total, report.energy_pj.total};
  };
  OptionCosts costs(exact, fusion.stats);
  const std::size_t layers = network.layers.size();
  if (!options.fixed_group.empty())
    fusion.groups = fixed_partition(network, options.fixed_group, objective, layer_alone,
                                    [&](std::size_t first, std::size_t count) { return joiner.front(first, count); },
                                    costs);
  else
    fusion.groups = objective == Objective::EnergyDelay
                        ? best_partition_by_network_edp(layers, layer_alone, groups_ending, costs)
                        : best_partition_by_sum(layers, objective, layer_alone, groups_ending, costs);
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
