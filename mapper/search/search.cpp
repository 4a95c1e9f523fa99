// Exhaustive search: the tile space is split into (T_R, T_S, T_C, T_K) prefixes that TBB spreads over
// threads; each thread keeps its own top-k (and best tile per pruning rule), merged at the end with the
// deterministic order `better`. With exact traffic, only the tiles the lower bounds cannot rule out get the exact
// counts (see search()).
#include "mapper/search/search.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>

#include "mapper/model/cost_model.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "mapper/search/top_k.hpp"

namespace maeri::mapper {

const char* to_string(Objective objective) {
  switch (objective) {
    case Objective::Runtime: return "runtime";
    case Objective::Energy: return "energy";
    case Objective::EnergyDelay: return "edp";
  }
  return "?";
}

std::optional<Objective> parse_objective(const std::string& text) {
  if (text == "runtime") return Objective::Runtime;
  if (text == "energy") return Objective::Energy;
  if (text == "edp") return Objective::EnergyDelay;
  return std::nullopt;
}

double objective_value(double cycles, double energy_pj, Objective objective) {
  switch (objective) {
    case Objective::Runtime: return cycles;
    case Objective::Energy: return energy_pj;
    case Objective::EnergyDelay: return cycles * energy_pj;
  }
  return 0;
}

double objective_value(const contracts::CostReport& report, Objective objective) {
  return objective_value(report.cycles.total, report.energy_pj.total, objective);
}

bool better(const contracts::CostReport& a, const contracts::CostReport& b, Objective objective) {
  const double primary_a = objective_value(a, objective), primary_b = objective_value(b, objective);
  if (primary_a != primary_b) return primary_a < primary_b;
  const Objective secondary = objective == Objective::Runtime ? Objective::Energy : Objective::Runtime;
  const double secondary_a = objective_value(a, secondary), secondary_b = objective_value(b, secondary);
  if (secondary_a != secondary_b) return secondary_a < secondary_b;
  return a.tile < b.tile;
}

double improvement_percent(double baseline, double best) {
  return baseline > 0 ? 100.0 * (baseline - best) / baseline : 0.0;
}

double loss_percent(const contracts::CostReport& optimum, const contracts::CostReport& constrained, Objective objective) {
  const double best = objective_value(optimum, objective), other = objective_value(constrained, objective);
  return best > 0 ? 100.0 * (other - best) / best : 0.0;
}

namespace {

// The lists one pass keeps: the top-k of the space and, when rule losses are wanted, the best tile under each
// rule alone.
struct Ranking {
  Ranking(std::size_t k, Objective objective, bool deferred = false) : all(k, objective, deferred) {
    for (auto& list : per_rule) list = TopK(1, objective, deferred);
  }
  TopK all;
  std::array<TopK, kNumPruningRules> per_rule{TopK(1, Objective::Runtime), TopK(1, Objective::Runtime),
                                              TopK(1, Objective::Runtime), TopK(1, Objective::Runtime)};
  std::uint64_t evaluated = 0, exact_evaluations = 0;
  // Exact counts computed so far: the lists often hold the same tile, or the same tile under other SDM orders.
  // Keyed by the tile with the default SDM order: the counts do not depend on the order (contracts::ExactTrafficRefinement).
  std::map<contracts::Tile, std::pair<std::int64_t, std::int64_t>> refined;
};

// The threads a search may use (SearchOptions::threads, else all): each takes work items in order from a counter.
int worker_count() {
  return std::max(1, static_cast<int>(std::min<std::size_t>(
                         tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism),
                         static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()))));
}

// Calls visit(tile) for every tile of the space, spread over threads; `make` builds each thread's state. The
// threads take the prefixes in their order, one at a time (not the halves a range split would give them), so
// every thread meets the promising prefixes first and its lists and the cycle bound tighten early.
template <typename State, typename Make, typename Visit>
tbb::enumerable_thread_specific<State> walk(const TileSpace& space, const std::vector<TileSpace::Prefix>& prefixes,
                                            Make&& make, Visit&& visit) {
  tbb::enumerable_thread_specific<State> states(make);
  std::atomic<std::size_t> next{0};
  tbb::parallel_for(0, worker_count(), [&](int) {
    State& state = states.local();
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < prefixes.size();)
      space.enumerate_outputs_inline(prefixes[i], [&](const contracts::Tile& tile) { visit(state, tile); });
  });
  return states;
}

// Whether a tile whose report is at best `lower` can still enter `list` of k exact reports.
bool may_enter(const contracts::CostReport& lower, const TopK& list, Objective objective) {
  return !list.kth() || !better(*list.kth(), lower, objective);
}

}  // namespace

namespace {

// The best fabric tiles by compute cycles (ideal memory), ties by the tile: the first candidates of the joint
// search's budgeted mode.
class ComputeTopK {
 public:
  explicit ComputeTopK(std::size_t k) : k_(k) {}
  void offer(double compute, const contracts::Tile& tile) {
    const std::pair<double, contracts::Tile> item{compute, tile};
    const auto less = [](const std::pair<double, contracts::Tile>& a, const std::pair<double, contracts::Tile>& b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    };
    if (items_.size() == k_ && !less(item, items_.back())) return;
    items_.insert(std::upper_bound(items_.begin(), items_.end(), item, less), item);
    if (items_.size() > k_) items_.pop_back();
  }
  const std::vector<std::pair<double, contracts::Tile>>& items() const { return items_; }
  // Whether a tile of at least `compute` cycles could still enter.
  bool may_enter(double compute) const { return items_.size() < k_ || !(compute > items_.back().first); }

 private:
  std::size_t k_;
  std::vector<std::pair<double, contracts::Tile>> items_;
};

struct FabricPass {
  FabricPass(std::size_t k, Objective objective, std::size_t candidates, bool keep_ties)
      : ranking(k, objective, keep_ties), by_compute(candidates) {}
  Ranking ranking;
  ComputeTopK by_compute;
  std::uint64_t joint_space = 0, bounded = 0;
};

// Per SDM dimension and fabric tile size T, the number of SDM tile candidates (sdm_block_candidates), so the
// joint space is counted during the fabric pass at the cost of five lookups per tile.
std::array<std::vector<std::uint64_t>, contracts::kNumSdmDims> candidate_counts(const contracts::Layer& layer,
                                                                           const contracts::Hardware& hardware) {
  const auto extents = contracts::layer_extents(layer);
  std::array<std::vector<std::uint64_t>, contracts::kNumSdmDims> counts;
  for (int d = 0; d < contracts::kNumSdmDims; ++d) {
    const std::int64_t extent = extents[size_t(contracts::sdm_tile_dim(d))];
    const std::int64_t largest = std::min(extent, hardware.num_ms);
    counts[size_t(d)].assign(size_t(largest + 1), 0);
    for (std::int64_t t = 1; t <= largest; ++t)
      counts[size_t(d)][size_t(t)] = sdm_block_candidates(extent, t, d >= contracts::kSdmN).size();
  }
  return counts;
}

}  // namespace

SearchOptions map_search_options(Objective objective, int top_k, contracts::ExactTrafficRefinement exact, bool two_level) {
  SearchOptions options(objective, top_k, 0, {}, std::move(exact));
  options.joint.enabled = two_level;
  return options;
}

SearchResult search(const contracts::Layer& layer, const contracts::Hardware& hardware, const SearchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<tbb::global_control> thread_limit;
  if (options.threads > 0) {
    thread_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                         static_cast<std::size_t>(options.threads));
  }
  const TileSpace space(layer, hardware, options.prune);
  const std::size_t k = static_cast<std::size_t>(std::max(1, options.top_k));
  const Objective objective = options.objective;
  const bool rule_losses = options.prune.empty();
  const bool joint = options.joint.enabled;
  const std::size_t joint_candidates = static_cast<std::size_t>(std::max(1, options.joint.candidates));
  // Offers a report to the lists it may enter (`admit` decides per list: all = -1, rule index otherwise).
  // With the runtime objective the exact counts are needed only to break ties in cycles and for the reports the
  // lists keep (`deferred_exact`, TopK): the lists take the lower-bound reports and refine what they must.
  const bool deferred_exact = bool(options.exact) && objective == Objective::Runtime;
  const auto refiner = [&](Ranking& ranking) {
    return [&](contracts::CostReport& report) {
      contracts::Tile key = report.tile;
      key.sdm.order = contracts::kDefaultSdmOrder;
      const auto found = ranking.refined.find(key);
      if (found != ranking.refined.end()) {
        set_traffic(report, found->second.first, found->second.second, hardware);
        return;
      }
      options.exact(report);
      ++ranking.exact_evaluations;
      ranking.refined.emplace(key, std::make_pair(report.counts.dn_traversals, report.counts.rn_traversals));
    };
  };
  const auto offer = [&](Ranking& ranking, const contracts::CostReport& report, const auto& admit, bool exact) {
    const auto refine = refiner(ranking);
    if (admit(-1)) ranking.all.offer(report, exact, refine);
    if (!rule_losses) return;
    for (int rule = 0; rule < kNumPruningRules; ++rule)
      if (admit(rule)) ranking.per_rule[size_t(rule)].offer(report, exact, refine);
  };
  // The pruning rules' lists take single-level mappings only: their losses are those of the fabric level.
  const auto rule_holds = [&](const contracts::Tile& tile, int rule) {
    return rule < 0 || (!tile.sdm.blocked && satisfies(layer, hardware, tile, kPruningRules[rule]));
  };
  // Costs one mapping into `ranking`; returns its compute cycles. Without exact traffic: the model's estimates.
  // With exact traffic (docs/model.md, "Exact traffic"): the mapping is costed with the lower bounds of its
  // traversal counts (`lower`); only one whose lower-bound report could still enter one of the thread's lists
  // (ahead of the k-th exact report already there) gets its exact report. Energy only grows with the traversal
  // counts and cycles do not depend on them, so a mapping left out is behind k exact reports of its list: the
  // merged lists are the exact top-k.
  // rank(): a costed report (estimates, or lower bounds with exact traffic) into the lists.
  const auto rank = [&](Ranking& ranking, const contracts::CostReport& costed) {
    ++ranking.evaluated;
    const contracts::Tile& tile = costed.tile;
    if (!options.exact || deferred_exact) {
      offer(ranking, costed, [&](int rule) { return rule_holds(tile, rule); }, !options.exact);
      return;
    }
    const contracts::CostReport& lower = costed;
    const auto candidate = [&](int rule) {
      if (!rule_holds(tile, rule)) return false;
      if (rule < 0) return may_enter(lower, ranking.all, objective);
      return may_enter(lower, ranking.per_rule[size_t(rule)], objective);
    };
    bool any = candidate(-1);
    for (int rule = 0; rule < kNumPruningRules && rule_losses && !any; ++rule) any = candidate(rule);
    if (any) {
      contracts::CostReport report = lower;  // exact() replaces the traversal counts and the energy
      refiner(ranking)(report);
      offer(ranking, report, [&](int rule) { return rule_holds(tile, rule); }, true);
    }
  };
  const auto consider = [&](Ranking& ranking, const contracts::Tile& tile) {
    const contracts::CostReport costed =
        options.exact ? evaluate_lower_bound(layer, hardware, tile) : evaluate(layer, hardware, tile);
    rank(ranking, costed);
    return costed.cycles.compute();
  };
  const auto merge_list = [&](Ranking& into, TopK& list, const TopK& local) {
    for (std::size_t i = 0; i < local.items().size(); ++i) list.offer(local.items()[i], local.exact(i), refiner(into));
  };
  const auto merge = [&](Ranking& into, const Ranking& local) {
    merge_list(into, into.all, local.all);
    for (int rule = 0; rule < kNumPruningRules; ++rule)
      merge_list(into, into.per_rule[size_t(rule)], local.per_rule[size_t(rule)]);
  };

  SearchResult result;
  Ranking merged(k, objective, deferred_exact);
  // Prefixes that map many multiplier switches come first, so good tiles fill the lists early and, with exact
  // traffic, few tiles need the exact counts.
  std::vector<TileSpace::Prefix> prefixes = space.prefixes();
  std::stable_sort(prefixes.begin(), prefixes.end(), [](const TileSpace::Prefix& a, const TileSpace::Prefix& b) {
    return a.r * a.s * a.c * a.k > b.r * b.s * b.c * b.k;
  });
  const auto counts = joint ? candidate_counts(layer, hardware) : std::array<std::vector<std::uint64_t>, contracts::kNumSdmDims>{};
  const auto make = [&] { return FabricPass(k, objective, joint ? joint_candidates : 0, deferred_exact); };
  // The cycle bound (runtime objective): a tile is skipped when its bound is beyond the k-th report of the top-k,
  // the best report of every rule list it satisfies and, in a joint search, the compute cycles of the last of the
  // best fabric tiles by compute. Total and compute cycles are both at least the bound, and lists only take
  // strictly better reports once full, so nothing a list would have kept is skipped. The margin keeps rounding
  // of the costed sums from mattering.
  const bool use_bound = options.bound && objective == Objective::Runtime;
  const CyclesLowerBound cycles_bound(layer, hardware);
  const auto ruled_out = [&](const FabricPass& pass, const contracts::Tile& tile) {
    const CyclesLowerBound::Bounds bounds = cycles_bound.bounds(tile);
    const double bound = bounds.total * (1 - 1e-9);
    const auto beyond = [&](const TopK& list) {
      return list.kth() && bound > objective_value(*list.kth(), objective);
    };
    if (!beyond(pass.ranking.all)) return false;
    if (joint && pass.by_compute.may_enter(bounds.compute * (1 - 1e-9))) return false;
    for (int rule = 0; rule < kNumPruningRules && rule_losses; ++rule)
      if (!beyond(pass.ranking.per_rule[size_t(rule)]) && rule_holds(tile, rule)) return false;
    return true;
  };
  auto states = walk<FabricPass>(space, prefixes, make, [&](FabricPass& pass, const contracts::Tile& tile) {
    if (joint) {
      std::uint64_t sdm_tiles = 1;
      for (int d = 0; d < contracts::kNumSdmDims; ++d) sdm_tiles *= counts[size_t(d)][size_t(tile[contracts::sdm_tile_dim(d)])];
      pass.joint_space += sdm_tiles * 120 * contracts::kPhaseOrders.size();
    }
    if (use_bound && ruled_out(pass, tile)) {
      ++pass.ranking.evaluated;
      ++pass.bounded;
      return;
    }
    const double compute = consider(pass.ranking, tile);
    if (joint) pass.by_compute.offer(compute, tile);
  });
  ComputeTopK by_compute(joint_candidates);
  for (const FabricPass& local : states) {
    result.evaluated += local.ranking.evaluated;
    result.exact_evaluations += local.ranking.exact_evaluations;
    result.joint_space += local.joint_space;
    result.bounded += local.bounded;
    merge(merged, local.ranking);
    for (const auto& [compute, tile] : local.by_compute.items()) by_compute.offer(compute, tile);
  }
  merged.all.refine_all(refiner(merged));
  if (!merged.all.items().empty()) result.fabric_optimum = merged.all.items().front();

  if (joint && !merged.all.items().empty()) {
    const auto joint_start = std::chrono::steady_clock::now();
    // The joint space: every fabric tile's SDM levels when they fit the budget, else those of the candidates.
    std::vector<contracts::Tile> fabric_tiles;
    result.joint_exhaustive = result.joint_space <= options.joint.budget;
    if (result.joint_exhaustive) {
      for (const auto& prefix : prefixes)
        space.enumerate_outputs_inline(prefix, [&](const contracts::Tile& tile) { fabric_tiles.push_back(tile); });
    } else {
      const auto add = [&](const contracts::Tile& tile) {
        if (std::find(fabric_tiles.begin(), fabric_tiles.end(), tile) == fabric_tiles.end()) fabric_tiles.push_back(tile);
      };
      const auto& by_rank = merged.all.items();
      for (std::size_t i = 0; i < std::max(by_rank.size(), by_compute.items().size()); ++i) {
        if (i < by_compute.items().size()) add(by_compute.items()[i].second);
        if (i < by_rank.size()) add(by_rank[i].tile);
      }
      // Keep the prefix of candidates whose SDM levels fit the budget (at least one): deterministic.
      std::uint64_t planned = 0;
      std::size_t keep = 0;
      for (; keep < fabric_tiles.size(); ++keep) {
        const std::uint64_t levels = for_each_sdm_level(layer, hardware, fabric_tiles[keep], [](const contracts::Tile&) {});
        if (keep > 0 && planned + levels > options.joint.budget) break;
        planned += levels;
      }
      fabric_tiles.resize(keep);
    }
    result.joint_fabric_tiles = fabric_tiles.size();
    // The fabric-tile bound: no mapping with this fabric tile (any SDM level, either phase order) has an objective
    // below it — cycles at least the compute bound (CyclesLowerBound), energy at least energy_lower_bound. A fabric
    // tile whose bound is beyond the k-th report of its thread's top-k is skipped whole: the list only takes
    // strictly better reports, so the result stays the exact top-k. The tiles go best bound first, so the lists
    // tighten early; the threads take them in that order (as walk() does).
    const double energy_bound = energy_lower_bound(layer, hardware);
    const auto fabric_bound = [&](const contracts::Tile& tile) {
      return objective_value(cycles_bound.bounds(tile).compute, energy_bound, objective);
    };
    std::vector<std::pair<double, contracts::Tile>> by_bound;
    by_bound.reserve(fabric_tiles.size());
    for (const contracts::Tile& tile : fabric_tiles) by_bound.emplace_back(fabric_bound(tile), tile);
    std::stable_sort(by_bound.begin(), by_bound.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // Each thread starts from the single-level top-k, so that with exact traffic only mappings that can beat it
    // get their exact counts; only the mappings it adds (SDM levels, the filters-outer phase order) are merged back.
    tbb::enumerable_thread_specific<Ranking> joint_states([&] { return merged; });
    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> skipped{0};
    tbb::parallel_for(0, worker_count(), [&](int) {
      Ranking& ranking = joint_states.local();
      for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < by_bound.size();) {
        const auto& [bound, tile] = by_bound[i];
        if (options.bound && ranking.all.kth() &&
            bound * (1 - 1e-9) > objective_value(*ranking.all.kth(), objective)) {
          skipped.fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        // The single-level mapping in the other phase order, where that can change its cost.
        if (distinct_phase_orders(layer, tile).size() > 1) {
          contracts::Tile filters_outer = tile;
          filters_outer.phase_order = contracts::PhaseOrder::FiltersOuter;
          consider(ranking, filters_outer);
        }
        for_each_sdm_tile(layer, hardware, tile, [&](const contracts::Tile& mapping, const std::vector<contracts::SdmOrder>& orders) {
          evaluate_orders(layer, hardware, mapping, orders, bool(options.exact),
                          [&](const contracts::CostReport& report) { rank(ranking, report); });
        });
      }
    });
    result.joint_bounded_tiles = skipped;
    Ranking seeds = merged;
    for (const Ranking& local : joint_states) {
      result.joint_evaluated += local.evaluated - seeds.evaluated;
      result.exact_evaluations += local.exact_evaluations - seeds.exact_evaluations;
      for (std::size_t i = 0; i < local.all.items().size(); ++i) {
        const contracts::Tile& tile = local.all.items()[i].tile;
        if (tile.sdm.blocked || tile.phase_order != contracts::kDefaultPhaseOrder)
          merged.all.offer(local.all.items()[i], local.all.exact(i), refiner(merged));
      }
    }
    result.joint_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - joint_start).count();
  }

  merged.all.refine_all(refiner(merged));
  for (auto& list : merged.per_rule) list.refine_all(refiner(merged));
  result.exact_evaluations += merged.exact_evaluations;
  result.best = merged.all.items();
  result.rule_losses_known = rule_losses;
  if (rule_losses)
    for (int rule = 0; rule < kNumPruningRules; ++rule)
      if (!merged.per_rule[size_t(rule)].items().empty())
        result.best_under_rule[size_t(rule)] = merged.per_rule[size_t(rule)].items().front();
  if (const auto baseline = contracts::baseline_tile(layer, hardware)) {
    result.baseline = evaluate(layer, hardware, *baseline);
    if (options.exact) options.exact(*result.baseline);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace maeri::mapper
