// Exhaustive search: the tile space is split into (T_R, T_S, T_C, T_K) prefixes that TBB spreads over
// threads; each thread keeps its own top-k (and best tile per pruning rule), merged at the end with the
// deterministic order `better`. With exact traffic, only the tiles the lower bounds cannot rule out get the exact
// counts (see search()).
#include "mapper/search.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>

#include "mapper/cost_model.hpp"

namespace maeri::mapper {
namespace {

// A bounded best-first list; k is small (tens), so sorted insertion is cheapest.
class TopK {
 public:
  TopK(std::size_t k, Objective objective) : k_(k), objective_(objective) {}
  bool would_accept(const spec::CostReport& report) const {
    return items_.size() < k_ || better(report, items_.back(), objective_);
  }
  void offer(const spec::CostReport& report) {
    if (!would_accept(report)) return;
    auto at = std::upper_bound(items_.begin(), items_.end(), report,
                               [this](const spec::CostReport& a, const spec::CostReport& b) { return better(a, b, objective_); });
    items_.insert(at, report);
    if (items_.size() > k_) items_.pop_back();
  }
  const std::vector<spec::CostReport>& items() const { return items_; }

 private:
  std::size_t k_;
  Objective objective_;
  std::vector<spec::CostReport> items_;
};

}  // namespace

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

double objective_value(const spec::CostReport& report, Objective objective) {
  switch (objective) {
    case Objective::Runtime: return report.cycles.total;
    case Objective::Energy: return report.energy_pj.total;
    case Objective::EnergyDelay: return report.edp();
  }
  return 0;
}

bool better(const spec::CostReport& a, const spec::CostReport& b, Objective objective) {
  const double primary_a = objective_value(a, objective), primary_b = objective_value(b, objective);
  if (primary_a != primary_b) return primary_a < primary_b;
  const Objective secondary = objective == Objective::Runtime ? Objective::Energy : Objective::Runtime;
  const double secondary_a = objective_value(a, secondary), secondary_b = objective_value(b, secondary);
  if (secondary_a != secondary_b) return secondary_a < secondary_b;
  return a.tile.size < b.tile.size;
}

double improvement_percent(double baseline, double best) {
  return baseline > 0 ? 100.0 * (baseline - best) / baseline : 0.0;
}

double loss_percent(const spec::CostReport& optimum, const spec::CostReport& constrained, Objective objective) {
  const double best = objective_value(optimum, objective), other = objective_value(constrained, objective);
  return best > 0 ? 100.0 * (other - best) / best : 0.0;
}

namespace {

// The lists one pass keeps: the top-k of the space and, when rule losses are wanted, the best tile under each
// rule alone.
struct Ranking {
  Ranking(std::size_t k, Objective objective) : all(k, objective) {
    for (auto& list : per_rule) list = TopK(1, objective);
  }
  TopK all;
  std::array<TopK, kNumPruningRules> per_rule{TopK(1, Objective::Runtime), TopK(1, Objective::Runtime),
                                              TopK(1, Objective::Runtime), TopK(1, Objective::Runtime)};
  std::uint64_t evaluated = 0, exact_evaluations = 0;
};

// Calls visit(tile) for every tile of the space, spread over threads; `make` builds each thread's state.
template <typename State, typename Make, typename Visit>
tbb::enumerable_thread_specific<State> walk(const TileSpace& space, const std::vector<TileSpace::Prefix>& prefixes,
                                            Make&& make, Visit&& visit) {
  tbb::enumerable_thread_specific<State> states(make);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, prefixes.size(), 1),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      State& state = states.local();
                      for (std::size_t i = range.begin(); i != range.end(); ++i)
                        space.enumerate_outputs_inline(prefixes[i], [&](const spec::Tile& tile) { visit(state, tile); });
                    });
  return states;
}

// Whether a tile whose report is at best `lower` can still enter `list` of k exact reports.
bool may_enter(const spec::CostReport& lower, const TopK& list, std::size_t k, Objective objective) {
  return list.items().size() < k || !better(list.items().back(), lower, objective);
}

}  // namespace

SearchResult search(const spec::Layer& layer, const spec::Hardware& hardware, const SearchOptions& options) {
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
  const auto make = [&] { return Ranking(k, objective); };
  // Offers a report to the lists it may enter (`admit` decides per list: all = -1, rule index otherwise).
  const auto offer = [&](Ranking& ranking, const spec::CostReport& report, const auto& admit) {
    if (admit(-1)) ranking.all.offer(report);
    if (!rule_losses) return;
    for (int rule = 0; rule < kNumPruningRules; ++rule)
      if (admit(rule)) ranking.per_rule[size_t(rule)].offer(report);
  };
  const auto rule_holds = [&](const spec::Tile& tile, int rule) {
    return rule < 0 || satisfies(layer, hardware, tile, kPruningRules[rule]);
  };

  SearchResult result;
  Ranking merged(k, objective);
  if (!options.exact) {
    // Rank by the model's estimates: one pass.
    auto states = walk<Ranking>(space, space.prefixes(), make, [&](Ranking& ranking, const spec::Tile& tile) {
      const spec::CostReport report = evaluate(layer, hardware, tile);
      ++ranking.evaluated;
      offer(ranking, report, [&](int rule) { return rule_holds(tile, rule); });
    });
    for (const Ranking& local : states) {
      result.evaluated += local.evaluated;
      for (const auto& report : local.all.items()) merged.all.offer(report);
      for (int rule = 0; rule < kNumPruningRules; ++rule)
        for (const auto& report : local.per_rule[size_t(rule)].items()) merged.per_rule[size_t(rule)].offer(report);
    }
  } else {
    // Rank by exact traffic (docs/model.md, "Exact traffic"): every tile is costed with the lower bounds of its
    // traversal counts (`lower`); only a tile whose lower-bound report could still enter one of the thread's
    // lists (ahead of the k-th exact report already there) gets its exact report. Energy only grows with the
    // traversal counts and cycles do not depend on them, so a tile left out is behind k exact reports of its
    // list: the merged lists are the exact top-k. Prefixes that map many multiplier switches come first, so
    // good tiles fill the lists early and few tiles need the exact counts.
    std::vector<TileSpace::Prefix> prefixes = space.prefixes();
    std::stable_sort(prefixes.begin(), prefixes.end(), [](const TileSpace::Prefix& a, const TileSpace::Prefix& b) {
      return a.r * a.s * a.c * a.k > b.r * b.s * b.c * b.k;
    });
    auto states = walk<Ranking>(space, prefixes, make, [&](Ranking& ranking, const spec::Tile& tile) {
      const spec::CostReport lower = evaluate_lower_bound(layer, hardware, tile);
      ++ranking.evaluated;
      const auto candidate = [&](int rule) {
        if (!rule_holds(tile, rule)) return false;
        if (rule < 0) return may_enter(lower, ranking.all, k, objective);
        return may_enter(lower, ranking.per_rule[size_t(rule)], 1, objective);
      };
      bool any = candidate(-1);
      for (int rule = 0; rule < kNumPruningRules && rule_losses && !any; ++rule) any = candidate(rule);
      if (!any) return;
      spec::CostReport report = lower;  // exact() replaces the traversal counts and the energy
      options.exact(report);
      ++ranking.exact_evaluations;
      offer(ranking, report, [&](int rule) { return rule_holds(tile, rule); });
    });
    for (const Ranking& local : states) {
      result.evaluated += local.evaluated;
      result.exact_evaluations += local.exact_evaluations;
      for (const auto& report : local.all.items()) merged.all.offer(report);
      for (int rule = 0; rule < kNumPruningRules; ++rule)
        for (const auto& report : local.per_rule[size_t(rule)].items()) merged.per_rule[size_t(rule)].offer(report);
    }
  }

  result.best = merged.all.items();
  result.rule_losses_known = rule_losses;
  if (rule_losses)
    for (int rule = 0; rule < kNumPruningRules; ++rule)
      if (!merged.per_rule[size_t(rule)].items().empty())
        result.best_under_rule[size_t(rule)] = merged.per_rule[size_t(rule)].items().front();
  if (const auto baseline = spec::baseline_tile(layer, hardware)) {
    result.baseline = evaluate(layer, hardware, *baseline);
    if (options.exact) options.exact(*result.baseline);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace maeri::mapper
