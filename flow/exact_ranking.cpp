// The exact ranking of one layer's mappings (see exact_ranking.hpp).
#include "flow/exact_ranking.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>

#include "mapper/model/cost_model.hpp"
#include "mapper/model/timing_bound.hpp"
#include "timing/exact_timing.hpp"
#include "timing/memory_replay.hpp"

namespace maeri::flow {

void set_exact_cycles(contracts::CostReport& report, const ExactTiming& timing, const contracts::Hardware& hardware) {
  timing::set_memory_stall(report, timing.cycles - timing.compute_cycles, hardware);
}

void ExactTimings::time(const std::vector<contracts::Mapping>& mappings) {
  std::vector<contracts::Mapping> missing;
  for (const contracts::Mapping& mapping : mappings)
    if (!timings_.count(mapping) && std::find(missing.begin(), missing.end(), mapping) == missing.end())
      missing.push_back(mapping);
  std::vector<ExactTiming> timed(missing.size());
  tbb::parallel_for(std::size_t(0), missing.size(),
                    [&](std::size_t i) { timed[i] = exact_layer_timing(layer_, hardware_, missing[i]); });
  for (std::size_t i = 0; i < missing.size(); ++i) timings_.emplace(missing[i], Timed{std::move(timed[i])});
}

std::size_t ExactTimings::time_ahead(const std::vector<contracts::CostReport>& candidates, std::size_t first) {
  const std::size_t threads = std::size_t(std::max(1, tbb::this_task_arena::max_concurrency()));
  std::vector<contracts::Mapping> mappings;
  std::int64_t held = 0;
  std::size_t end = first;
  for (; end < candidates.size() && end - first < threads; ++end) {
    const std::int64_t bytes = timing::exact_timing_bytes(layer_, candidates[end].mapping);
    if (!mappings.empty() && bytes > kExactTimingBatchBytes - held) break;
    held += std::min(bytes, kExactTimingBatchBytes);
    mappings.push_back(candidates[end].mapping);
  }
  time(mappings);
  return end;
}

void ExactTimings::refine(contracts::CostReport& report) {
  time({report.mapping});
  Timed& timed = timings_.at(report.mapping);
  if (!timed.charged) {
    timed.charged = true;
    spent_cycles_ += timed.timing.cycles;
    ++used_;
  }
  set_exact_cycles(report, timed.timing, hardware_);
}

ExactRanked rank_exactly(std::vector<contracts::CostReport> candidates, mapper::Objective objective, int top,
                         ExactTimings& timings, bool complete) {
  const std::size_t k = std::size_t(std::max(1, top));
  std::stable_sort(candidates.begin(), candidates.end(), [&](const contracts::CostReport& a, const contracts::CostReport& b) {
    return mapper::better(a, b, objective);  // by the bound's objective first
  });
  ExactRanked ranked;
  // The candidates are taken one by one in the bound's order, each checked against the proof and the budget before
  // it is used; the replays run ahead in batches of as many candidates as threads may time at once, while what they
  // hold fits kExactTimingBatchBytes (timings of candidates never reached are thrown away), so the list is the same
  // however many threads there are and the memory does not grow with them.
  std::size_t next = 0, timed_up_to = 0;
  while (next < candidates.size()) {
    // A candidate's exact report ranks no better than its bound report (cycles at least the bound; energy, DRAM bytes
    // and mapping the same), and every later candidate's bound report ranks no better than this one: once this one
    // cannot beat the top-th exact report, no candidate left can enter the list.
    if (ranked.best.size() >= k && !mapper::better(candidates[next], ranked.best[k - 1], objective)) {
      ranked.proven = true;
      break;
    }
    if (!ranked.best.empty() && timings.spent_cycles() >= kExactTimingBudgetCycles) break;  // not proven
    if (next == timed_up_to) timed_up_to = timings.time_ahead(candidates, next);
    contracts::CostReport report = candidates[next++];
    timings.refine(report);
    ranked.best.insert(std::upper_bound(ranked.best.begin(), ranked.best.end(), report,
                                        [&](const contracts::CostReport& a, const contracts::CostReport& b) {
                                          return mapper::better(a, b, objective);
                                        }),
                       report);
    if (ranked.best.size() > k) ranked.best.pop_back();
    ++ranked.timed;
  }
  if (next == candidates.size()) ranked.proven = complete;
  return ranked;
}

namespace {

// A report beside the list with exact cycles when its replay fits the layer's budget (its bound at most
// kExactTimingBudgetCycles); else — a baseline can run 100x longer than the optimum — with the fluid estimate's
// cycles, as before the exact ranking, rather than the bound the search left in it.
void refine_within_budget(contracts::CostReport& report, ExactTimings& timings, const contracts::Layer& layer,
                          const contracts::Hardware& hardware) {
  if (report.cycles.total <= kExactTimingBudgetCycles) return timings.refine(report);
  const contracts::CostReport fluid = mapper::evaluate(layer, hardware, report.mapping);
  report.cycles = fluid.cycles;
  report.compute_efficiency = fluid.compute_efficiency;
}

// The reports a search returns beside its list: the baseline, the single-level optimum and the best mapping under
// each pruning rule (rule losses compare those two).
void refine_beside(mapper::SearchResult& result, ExactTimings& timings, const contracts::Layer& layer,
                   const contracts::Hardware& hardware) {
  if (result.baseline) refine_within_budget(*result.baseline, timings, layer, hardware);
  if (result.fabric_optimum) refine_within_budget(*result.fabric_optimum, timings, layer, hardware);
  for (auto& best : result.best_under_rule)
    if (best) refine_within_budget(*best, timings, layer, hardware);
}

}  // namespace

mapper::SearchResult search_exactly(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                    mapper::SearchOptions options, mapper::HeuristicMapper* heuristic,
                                    bool time_beside) {
  const int top = std::max(1, options.top_k);
  const bool heuristic_search = heuristic && heuristic->heuristic();
  // Every mapping of a layer whose MACs over the multiplier switches (the fewest cycles any mapping takes) exceed
  // the replay budget runs longer than the budget allows one replay: such a layer is ranked by the fluid estimate,
  // as before the exact ranking, and its list says it was not ranked exactly (exact_ranking.ranked false).
  if (double(layer.macs()) / double(hardware.num_ms) > kExactTimingBudgetCycles)
    return heuristic_search ? heuristic->search(layer, hardware, options) : mapper::search(layer, hardware, options);
  ExactTimings timings(layer, hardware);
  std::uint64_t keep = std::max<std::uint64_t>(kFirstCandidates, 4 * std::uint64_t(top));
  options.rank_by_timing_bound = true;
  double ranking_seconds = 0;
  for (;;) {
    options.top_k = int(keep);
    mapper::SearchResult result =
        heuristic_search ? heuristic->search(layer, hardware, options) : mapper::search(layer, hardware, options);
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t candidates = result.best.size();
    const bool complete = !heuristic_search && candidates < keep;
    ExactRanked ranked = rank_exactly(std::move(result.best), options.objective, top, timings, complete);
    ranking_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!ranked.proven && !heuristic_search && candidates >= keep && keep < kMaxCandidates &&
        timings.spent_cycles() < kExactTimingBudgetCycles) {
      keep *= 4;
      continue;
    }
    result.best = std::move(ranked.best);
    if (time_beside) refine_beside(result, timings, layer, hardware);
    // A heuristic's list is the best by the bound of the mappings it costed: what it never costed is not bounded.
    result.exact_ranking = {true, candidates, timings.count(), ranked.proven && !heuristic_search, ranking_seconds};
    return result;
  }
}

}  // namespace maeri::flow
