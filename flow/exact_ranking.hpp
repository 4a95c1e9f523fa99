// `maeri map`'s ranking of one layer by the exact model (docs/model.md, "Which model decides what"): the search
// orders the mappings by a proven lower bound on their exact cycles with DRAM (mapper/model/timing_bound.hpp) and
// keeps the first of them; the replay (exact_timing_adapter.hpp) times them in that order until the next bound
// exceeds the top-th exact objective found, so every mapping left untimed provably ranks behind the list. The list
// is then ordered by mapper::better on exact cycles: objective, cycles, energy, DRAM bytes, mapping.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "flow/exact_timing_adapter.hpp"
#include "mapper/search/heuristic_mapper.hpp"
#include "mapper/search/search.hpp"

namespace maeri::flow {

// The search keeps kFirstCandidates (or 4 × top, if more) candidates by the bound and, when the exact ranking runs
// through them without the bound proving the list, searches again keeping 4 × as many, up to kMaxCandidates; then
// SearchResult::exact_ranking.proven is false and `maeri map` says so.
inline constexpr std::uint64_t kFirstCandidates = 64;
inline constexpr std::uint64_t kMaxCandidates = 4096;
// What one layer's ranking may spend on replays, in the exact cycles of the mappings it times (the replay's work
// grows with them; about 0.15 s of one core at real size): a deterministic cap, so that `maeri map` of a real network
// stays within seconds. Past it the list holds the mappings timed so far, ranked exactly, the first batch always
// timed, and SearchResult::exact_ranking.proven is false (map says so).
inline constexpr double kExactTimingBudgetCycles = 2.5e6;
// What the mappings timed at once may hold (timing::exact_timing_bytes, summed): a batch takes as many candidates as
// threads only while they fit, at least one, so the ranking's memory does not grow with the machine's cores.
inline constexpr std::int64_t kExactTimingBatchBytes = std::int64_t(512) << 20;

// `report` with its cycles with DRAM from the exact model: compute + (replay with DRAM − replay with ideal memory), as
// the cross-check refines a report (timing::set_memory_stall); with the nominal parameters, the replay's cycles.
void set_exact_cycles(contracts::CostReport& report, const ExactTiming& timing, const contracts::Hardware& hardware);

// The exact timings of one layer's mappings, each computed once (several threads time a batch at once). What the
// budget counts is charged when a timing is used (refine), in the callers' order, not when a thread computed it: a
// batch may time candidates the ranking then never reaches, and how many that is depends on the machine's threads,
// so the list, the counts and the decision must not.
class ExactTimings {
 public:
  ExactTimings(const contracts::Layer& layer, const contracts::Hardware& hardware) : layer_(layer), hardware_(hardware) {}
  // Times the mappings not timed yet, in parallel.
  void time(const std::vector<contracts::Mapping>& mappings);
  // Times the candidates from `first` on, ahead of their use: as many as threads may time at once while their
  // estimated memory (timing::exact_timing_bytes) fits kExactTimingBatchBytes, at least one. Returns the end of
  // what it timed.
  std::size_t time_ahead(const std::vector<contracts::CostReport>& candidates, std::size_t first);
  // `report` with its exact cycles (timed now if needed), charged to the budget the first time.
  void refine(contracts::CostReport& report);
  // The mappings used so far (each counted once).
  std::uint64_t count() const { return used_; }
  // The exact cycles of every mapping used so far (what kExactTimingBudgetCycles caps).
  double spent_cycles() const { return spent_cycles_; }

 private:
  struct Timed {
    ExactTiming timing;
    bool charged = false;
  };
  const contracts::Layer& layer_;
  const contracts::Hardware& hardware_;
  std::map<contracts::Mapping, Timed> timings_;
  std::uint64_t used_ = 0;
  double spent_cycles_ = 0;
};

struct ExactRanked {
  std::vector<contracts::CostReport> best;  // at most `top`, best first, with exact cycles
  std::uint64_t timed = 0;                  // candidates timed
  bool proven = false;                      // every candidate left untimed ranks behind `best`
};

// Ranks `candidates` (reports whose cycles with DRAM are their exact_cycles_lower_bound, in any order) by exact
// cycles. `complete`: the candidates are every mapping that could rank (a search whose kept list was not full), so
// running out of them also proves the list.
ExactRanked rank_exactly(std::vector<contracts::CostReport> candidates, mapper::Objective objective, int top,
                         ExactTimings& timings, bool complete);

// The layer's best `options.top_k` mappings ranked by exact cycles: the exhaustive search by the bound (or
// `heuristic`'s search, when heuristic(), whose kept list is then ranked), the exact ranking, and the baseline, the
// single-level optimum and the rules' optima with their exact cycles too (`time_beside`; false leaves those three
// reports with the fluid estimate, for callers that use only the list). SearchResult::exact_ranking says how.
mapper::SearchResult search_exactly(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                    mapper::SearchOptions options, mapper::HeuristicMapper* heuristic = nullptr,
                                    bool time_beside = true);

}  // namespace maeri::flow
