// Exhaustive search: the tile space is split into (T_R, T_S, T_C, T_K) prefixes that TBB spreads over
// worker slots; each slot keeps its own top-k (and best tile per pruning rule), merged at the end with the
// deterministic order `better`. With exact traffic, only the tiles the lower bounds cannot rule out get the exact
// counts (ExhaustiveSearch::rank).
#include "mapper/search/search.hpp"

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
#include "mapper/model/timing_bound.hpp"
#include "mapper/mapspace/equivalent_orders.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "mapper/search/top_k.hpp"

namespace maeri::mapper {

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
  std::map<contracts::Mapping, std::pair<std::int64_t, std::int64_t>> refined;
};

// The threads a search may use (SearchOptions::threads, else all): each takes work items in order from a counter.
int worker_count() {
  return std::max(1, static_cast<int>(std::min<std::size_t>(
                         tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism),
                         static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()))));
}

// Calls visit(tile) for every tile of the space, spread over the worker slots; `make` builds each slot's state.
// Slot s takes the prefixes s, s + W, s + 2W … in their order (W slots), so every slot meets the promising
// prefixes first and its lists and the cycle bound tighten early. The slots, not the threads, own the states: what
// a slot skips by its bound and refines exactly depends only on its own prefixes, so the search's counters
// (`bounded`, `exact_traffic_evaluations`) are the same in every run with the same number of slots, however the
// threads are scheduled.
template <typename State, typename Make, typename Visit>
std::vector<State> walk(const TileSpace& space, const std::vector<TileSpace::Prefix>& prefixes, Make&& make,
                        Visit&& visit) {
  const int slots = worker_count();
  std::vector<State> states;
  states.reserve(std::size_t(slots));
  for (int slot = 0; slot < slots; ++slot) states.push_back(make());
  tbb::parallel_for(0, slots, [&](int slot) {
    State& state = states[std::size_t(slot)];
    for (std::size_t i = std::size_t(slot); i < prefixes.size(); i += std::size_t(slots))
      space.enumerate_outputs_inline(prefixes[i], [&](const contracts::Mapping& tile) { visit(state, tile); });
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
  void offer(double compute, const contracts::Mapping& tile) {
    const std::pair<double, contracts::Mapping> item{compute, tile};
    const auto less = [](const std::pair<double, contracts::Mapping>& a, const std::pair<double, contracts::Mapping>& b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    };
    if (items_.size() == k_ && !less(item, items_.back())) return;
    items_.insert(std::upper_bound(items_.begin(), items_.end(), item, less), item);
    if (items_.size() > k_) items_.pop_back();
  }
  const std::vector<std::pair<double, contracts::Mapping>>& items() const { return items_; }
  // Whether a tile of at least `compute` cycles could still enter.
  bool may_enter(double compute) const { return items_.size() < k_ || !(compute > items_.back().first); }

 private:
  std::size_t k_;
  std::vector<std::pair<double, contracts::Mapping>> items_;
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

namespace {

// One exhaustive search: what each list admits and when a mapping gets its exact counts (shared by both stages),
// then the fabric tiles' pass, the choice of the fabric tiles whose SDM levels are searched, the joint stage over
// them, and the result. The threads share this object read-only; each owns its Ranking.
class ExhaustiveSearch {
 public:
  ExhaustiveSearch(const contracts::Layer& layer, const contracts::Hardware& hardware, const SearchOptions& options)
      : layer_(layer),
        hardware_(hardware),
        options_(options),
        space_(layer, hardware, options.prune),
        k_(static_cast<std::size_t>(std::max(1, options.top_k))),
        objective_(options.objective),
        rule_losses_(options.prune.empty()),
        joint_(options.joint.enabled),
        joint_candidates_(static_cast<std::size_t>(std::max(1, options.joint.candidates))),
        deferred_exact_(bool(options.exact) && options.objective == Objective::Runtime),
        use_bound_(options.bound && options.objective == Objective::Runtime),
        cycles_bound_(layer, hardware),
        prefixes_(space_.prefixes()) {
    // Prefixes that map many multiplier switches come first, so good tiles fill the lists early and, with exact
    // traffic, few tiles need the exact counts.
    std::stable_sort(prefixes_.begin(), prefixes_.end(), [](const TileSpace::Prefix& a, const TileSpace::Prefix& b) {
      return a.mapped_ms() > b.mapped_ms();
    });
  }

  SearchResult run() const {
    SearchResult result;
    Ranking merged(k_, objective_, deferred_exact_);
    const ComputeTopK by_compute = fabric_pass(result, merged);
    if (!merged.all.items().empty()) result.fabric_optimum = merged.all.items().front();
    if (joint_ && !merged.all.items().empty()) {
      const auto joint_start = std::chrono::steady_clock::now();
      joint_stage(joint_fabric_tiles(result, merged, by_compute), result, merged);
      result.joint_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - joint_start).count();
    }
    finish(result, merged);
    return result;
  }

 private:
  // Gives a report of `ranking`'s thread its exact counts, once per tile (the counts do not depend on the SDM order).
  auto refiner(Ranking& ranking) const {
    return [this, &ranking](contracts::CostReport& report) {
      contracts::Mapping key = report.mapping;
      key.sdm.order = contracts::kDefaultSdmOrder;
      const auto found = ranking.refined.find(key);
      if (found != ranking.refined.end()) {
        set_traffic(report, found->second.first, found->second.second, hardware_);
        return;
      }
      options_.exact(report);
      ++ranking.exact_evaluations;
      ranking.refined.emplace(key, std::make_pair(report.counts.dn_traversals, report.counts.rn_traversals));
    };
  }

  // Offers a report to the lists it may enter (`admit` decides per list: all = -1, rule index otherwise).
  // With the runtime objective the exact counts are needed only to break ties in cycles and for the reports the
  // lists keep (`deferred_exact_`, TopK): the lists take the lower-bound reports and refine what they must.
  template <typename Admit>
  void offer(Ranking& ranking, const contracts::CostReport& report, const Admit& admit, bool exact) const {
    const auto refine = refiner(ranking);
    if (admit(-1)) ranking.all.offer(report, exact, refine);
    if (!rule_losses_) return;
    for (int rule = 0; rule < kNumPruningRules; ++rule)
      if (admit(rule)) ranking.per_rule[size_t(rule)].offer(report, exact, refine);
  }

  // The pruning rules' lists take single-level mappings only: their losses are those of the fabric level.
  bool rule_holds(const contracts::Mapping& tile, int rule) const {
    return rule < 0 || (!tile.sdm.blocked && satisfies(layer_, hardware_, tile, kPruningRules[rule]));
  }

  // A costed report into the lists; with rank_by_timing_bound, carrying its bound on exact cycles with DRAM.
  void rank(Ranking& ranking, const contracts::CostReport& costed) const {
    if (!options_.rank_by_timing_bound) return rank_costed(ranking, costed);
    contracts::CostReport bounded = costed;
    set_cycles_to_timing_bound(bounded, hardware_);
    rank_costed(ranking, bounded);
  }

  // A costed report (the model's estimates, or the lower bounds of its traversal counts with exact traffic) into
  // the lists. With exact traffic (docs/model.md, "Exact traffic") only a mapping whose lower-bound report could
  // still enter one of the thread's lists (ahead of the k-th exact report already there) gets its exact report.
  // Energy only grows with the traversal counts and cycles do not depend on them, so a mapping left out is behind
  // k exact reports of its list: the merged lists are the exact top-k.
  void rank_costed(Ranking& ranking, const contracts::CostReport& costed) const {
    ++ranking.evaluated;
    const contracts::Mapping& tile = costed.mapping;
    const auto admit = [&](int rule) { return rule_holds(tile, rule); };
    if (!options_.exact || deferred_exact_) {
      offer(ranking, costed, admit, !options_.exact);
      return;
    }
    const contracts::CostReport& lower = costed;
    const auto candidate = [&](int rule) {
      if (!rule_holds(tile, rule)) return false;
      if (rule < 0) return may_enter(lower, ranking.all, objective_);
      return may_enter(lower, ranking.per_rule[size_t(rule)], objective_);
    };
    bool any = candidate(-1);
    for (int rule = 0; rule < kNumPruningRules && rule_losses_ && !any; ++rule) any = candidate(rule);
    if (any) {
      contracts::CostReport report = lower;  // exact() replaces the traversal counts and the energy
      refiner(ranking)(report);
      offer(ranking, report, admit, true);
    }
  }

  // Costs one mapping into `ranking`; returns its compute cycles.
  double consider(Ranking& ranking, const contracts::Mapping& tile) const {
    const contracts::CostReport costed =
        options_.exact ? evaluate_lower_bound(layer_, hardware_, tile) : evaluate(layer_, hardware_, tile);
    rank(ranking, costed);
    return costed.cycles.compute();
  }

  void merge(Ranking& into, const Ranking& local) const {
    const auto merge_list = [&](TopK& list, const TopK& from) {
      for (std::size_t i = 0; i < from.items().size(); ++i) list.offer(from.items()[i], from.exact(i), refiner(into));
    };
    merge_list(into.all, local.all);
    for (int rule = 0; rule < kNumPruningRules; ++rule) merge_list(into.per_rule[size_t(rule)], local.per_rule[size_t(rule)]);
  }

  // The cycle bound (runtime objective): a tile is skipped when its bound is beyond the k-th report of the top-k,
  // the best report of every rule list it satisfies and, in a joint search, the compute cycles of the last of the
  // best fabric tiles by compute. Total and compute cycles are both at least the bound, and lists only take
  // strictly better reports once full, so nothing a list would have kept is skipped. The margin keeps rounding
  // of the costed sums from mattering.
  bool ruled_out(const FabricPass& pass, const contracts::Mapping& tile) const {
    const CyclesLowerBound::Bounds bounds = cycles_bound_.bounds(tile);
    const double bound = bounds.total * (1 - 1e-9);
    const auto beyond = [&](const TopK& list) {
      return list.kth() && bound > objective_value(*list.kth(), objective_);
    };
    if (!beyond(pass.ranking.all)) return false;
    if (joint_ && pass.by_compute.may_enter(bounds.compute * (1 - 1e-9))) return false;
    for (int rule = 0; rule < kNumPruningRules && rule_losses_; ++rule)
      if (!beyond(pass.ranking.per_rule[size_t(rule)]) && rule_holds(tile, rule)) return false;
    return true;
  }

  // Every fabric tile (single-level, default phase order) into `merged`; in a joint search it also counts the
  // joint space and returns the best fabric tiles by compute cycles.
  ComputeTopK fabric_pass(SearchResult& result, Ranking& merged) const {
    const auto counts = joint_ ? candidate_counts(layer_, hardware_)
                               : std::array<std::vector<std::uint64_t>, contracts::kNumSdmDims>{};
    const auto make = [&] { return FabricPass(k_, objective_, joint_ ? joint_candidates_ : 0, deferred_exact_); };
    auto states = walk<FabricPass>(space_, prefixes_, make, [&](FabricPass& pass, const contracts::Mapping& tile) {
      if (joint_) {
        std::uint64_t sdm_tiles = 1;
        for (int d = 0; d < contracts::kNumSdmDims; ++d)
          sdm_tiles *= counts[size_t(d)][size_t(tile[contracts::sdm_tile_dim(d)])];
        pass.joint_space += sdm_tiles * 120 * contracts::kPhaseOrders.size();
      }
      if (use_bound_ && ruled_out(pass, tile)) {
        ++pass.ranking.evaluated;
        ++pass.bounded;
        return;
      }
      const double compute = consider(pass.ranking, tile);
      if (joint_) pass.by_compute.offer(compute, tile);
    });
    ComputeTopK by_compute(joint_candidates_);
    for (const FabricPass& local : states) {
      result.evaluated += local.ranking.evaluated;
      result.exact_evaluations += local.ranking.exact_evaluations;
      result.joint_space += local.joint_space;
      result.bounded += local.bounded;
      merge(merged, local.ranking);
      for (const auto& [compute, tile] : local.by_compute.items()) by_compute.offer(compute, tile);
    }
    merged.all.refine_all(refiner(merged));
    return by_compute;
  }

  // The fabric tiles whose SDM levels the joint stage searches: every fabric tile when the joint space fits the
  // budget, else the candidates (best by compute and by rank, alternately) whose SDM levels fit it.
  std::vector<contracts::Mapping> joint_fabric_tiles(SearchResult& result, const Ranking& merged,
                                                  const ComputeTopK& by_compute) const {
    std::vector<contracts::Mapping> fabric_tiles;
    result.joint_exhaustive = result.joint_space <= options_.joint.budget;
    if (result.joint_exhaustive) {
      for (const auto& prefix : prefixes_)
        space_.enumerate_outputs_inline(prefix, [&](const contracts::Mapping& tile) { fabric_tiles.push_back(tile); });
    } else {
      const auto add = [&](const contracts::Mapping& tile) {
        if (std::find(fabric_tiles.begin(), fabric_tiles.end(), tile) == fabric_tiles.end()) fabric_tiles.push_back(tile);
      };
      const auto& by_rank = merged.all.items();
      for (std::size_t i = 0; i < std::max(by_rank.size(), by_compute.items().size()); ++i) {
        if (i < by_compute.items().size()) add(by_compute.items()[i].second);
        if (i < by_rank.size()) add(by_rank[i].mapping);
      }
      // Keep the prefix of candidates whose SDM levels fit the budget (at least one): deterministic.
      std::uint64_t planned = 0;
      std::size_t keep = 0;
      for (; keep < fabric_tiles.size(); ++keep) {
        const std::uint64_t levels = for_each_sdm_level(layer_, hardware_, fabric_tiles[keep], [](const contracts::Mapping&) {});
        if (keep > 0 && planned + levels > options_.joint.budget) break;
        planned += levels;
      }
      fabric_tiles.resize(keep);
    }
    result.joint_fabric_tiles = fabric_tiles.size();
    return fabric_tiles;
  }

  // The SDM levels of `fabric_tiles` and their single-level mappings in the other phase order, into `merged`.
  // The fabric-tile bound: no mapping with this fabric tile (any SDM level, either phase order) has an objective
  // below it — cycles at least the compute bound (CyclesLowerBound), energy at least energy_lower_bound. A fabric
  // tile whose bound is beyond the k-th report of its thread's top-k is skipped whole: the list only takes
  // strictly better reports, so the result stays the exact top-k. The tiles go best bound first, so the lists
  // tighten early; the threads take them in that order (as walk() does).
  void joint_stage(const std::vector<contracts::Mapping>& fabric_tiles, SearchResult& result, Ranking& merged) const {
    const double energy_bound = energy_lower_bound(layer_, hardware_);
    const auto fabric_bound = [&](const contracts::Mapping& tile) {
      return objective_value(cycles_bound_.bounds(tile).compute, energy_bound, objective_);
    };
    std::vector<std::pair<double, contracts::Mapping>> by_bound;
    by_bound.reserve(fabric_tiles.size());
    for (const contracts::Mapping& tile : fabric_tiles) by_bound.emplace_back(fabric_bound(tile), tile);
    std::stable_sort(by_bound.begin(), by_bound.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // Each thread starts from the single-level top-k, so that with exact traffic only mappings that can beat it
    // get their exact counts; only the mappings it adds (SDM levels, the filters-outer phase order) are merged back.
    // Per worker slot, as walk() does (so the counters do not depend on the threads' timing).
    const int slots = worker_count();
    std::vector<Ranking> joint_states(std::size_t(slots), merged);
    std::atomic<std::uint64_t> skipped{0};
    tbb::parallel_for(0, slots, [&](int slot) {
      Ranking& ranking = joint_states[std::size_t(slot)];
      for (std::size_t i = std::size_t(slot); i < by_bound.size(); i += std::size_t(slots)) {
        const auto& [bound, tile] = by_bound[i];
        if (options_.bound && ranking.all.kth() &&
            bound * (1 - 1e-9) > objective_value(*ranking.all.kth(), objective_)) {
          skipped.fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        // The single-level mapping in the other phase order, where that can change its cost.
        if (distinct_phase_orders(layer_, tile).size() > 1) {
          contracts::Mapping filters_outer = tile;
          filters_outer.phase_order = contracts::PhaseOrder::FiltersOuter;
          consider(ranking, filters_outer);
        }
        for_each_sdm_tile(layer_, hardware_, tile, [&](const contracts::Mapping& mapping, const std::vector<contracts::SdmOrder>& orders) {
          evaluate_orders(layer_, hardware_, mapping, distinct_phase_orders(layer_, mapping), orders, bool(options_.exact),
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
        const contracts::Mapping& tile = local.all.items()[i].mapping;
        if (tile.sdm.blocked || tile.phase_order != contracts::kDefaultPhaseOrder)
          merged.all.offer(local.all.items()[i], local.all.exact(i), refiner(merged));
      }
    }
  }

  // The lists' exact reports, the rules' optima and the baseline into `result`.
  void finish(SearchResult& result, Ranking& merged) const {
    merged.all.refine_all(refiner(merged));
    for (auto& list : merged.per_rule) list.refine_all(refiner(merged));
    result.exact_evaluations += merged.exact_evaluations;
    result.best = merged.all.items();
    result.rule_losses_known = rule_losses_;
    if (rule_losses_)
      for (int rule = 0; rule < kNumPruningRules; ++rule)
        if (!merged.per_rule[size_t(rule)].items().empty())
          result.best_under_rule[size_t(rule)] = merged.per_rule[size_t(rule)].items().front();
    if (const auto baseline = contracts::baseline_tile(layer_, hardware_)) {
      result.baseline = evaluate(layer_, hardware_, contracts::single_level_mapping(*baseline));
      if (options_.exact) options_.exact(*result.baseline);
    }
  }

  const contracts::Layer& layer_;
  const contracts::Hardware& hardware_;
  const SearchOptions& options_;
  const TileSpace space_;
  const std::size_t k_;
  const Objective objective_;
  const bool rule_losses_, joint_;
  const std::size_t joint_candidates_;
  const bool deferred_exact_, use_bound_;
  const CyclesLowerBound cycles_bound_;
  std::vector<TileSpace::Prefix> prefixes_;
};

}  // namespace

SearchResult search(const contracts::Layer& layer, const contracts::Hardware& hardware, const SearchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<tbb::global_control> thread_limit;
  if (options.threads > 0) {
    thread_limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                         static_cast<std::size_t>(options.threads));
  }
  SearchResult result = ExhaustiveSearch(layer, hardware, options).run();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace maeri::mapper
