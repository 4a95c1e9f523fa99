// Exhaustive, multithreaded search of a layer's tile space (the raw Eq. 1 space unless pruning rules are
// chosen) for the best mappings under an objective (runtime, energy or energy-delay product), with the paper's
// baseline alongside and, for the raw space, the best tile each pruning rule alone would have left.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "mapper/mapspace/tile_space.hpp"
#include "mapper/search/objective.hpp"

namespace maeri::mapper {

// The SDM level of the two-level map space (docs/mapping.md, "Search of the joint space"): when enabled (as in
// map_search_options: what the commands search by default), the
// search covers fabric tiles × SDM tiles × SDM loop orders × phase orders. Exhaustive when the joint space (before the capacity
// rule) has at most `budget` mappings; otherwise the SDM levels of the best fabric tiles by compute cycles (ideal
// memory: what the SDM level cannot improve much) and by the single-level ranking, `candidates` of each, are
// searched exhaustively in that order until `budget` mappings have been costed.
struct JointSearch {
  bool enabled = false;
  std::uint64_t budget = 1'000'000;
  int candidates = 8;
};

struct SearchOptions {
  SearchOptions(Objective objective_ = Objective::Runtime, int top_k_ = 5, int threads_ = 0, RuleSet prune_ = {},
                contracts::ExactTrafficRefinement exact_ = {})
      : objective(objective_), top_k(top_k_), threads(threads_), prune(prune_), exact(std::move(exact_)) {}
  Objective objective = Objective::Runtime;
  int top_k = 5;
  int threads = 0;      // 0 = all hardware threads
  RuleSet prune;        // pruning rules narrowing the space; empty = the raw Eq. 1 space
  // When set, tiles are ranked by the exact traffic: every tile is costed with the lower bounds of its
  // traversal counts, and exactly those that the bounds cannot rule out get the exact counts (docs/model.md,
  // "Exact traffic"), so the result is the exact top-k of the model with exact traffic. When empty, tiles are
  // ranked by the model's estimates (what `maeri bench` measures).
  contracts::ExactTrafficRefinement exact;
  JointSearch joint;
  // With the runtime objective, skip the tiles whose cycle lower bound (mapper::CyclesLowerBound) cannot enter any
  // list they could enter; in the joint stage, under every objective, skip the fabric tiles none of whose SDM levels
  // could enter the top-k (cycle and energy lower bounds): the result is the same, fewer tiles are costed. Off only
  // to measure the model's speed, and in the tests that check the bounds against a search without them.
  bool bound = true;
  // Rank by exact_cycles_lower_bound (mapper/model/timing_bound.hpp) instead of the fluid estimate: every report the
  // search keeps then carries that bound as its cycles with DRAM, and the kept list is the top-k of the space by the
  // bound — the candidates flow's exact ranking times, in that order (flow/exact_ranking.hpp). The baseline keeps its
  // fluid estimate.
  bool rank_by_timing_bound = false;
};

// The search the user-facing commands run (`maeri map`, `codegen --workload`, `verify`, `sweep`, the Python
// module): the joint space unless `two_level` is false, ranked with `exact` (the exact traffic, as `map` ranks).
// One home, so a mapping `map` prints is the one the others pick. Calibration and the model's tests search the
// fabric tiles alone on purpose (SearchOptions' default).
SearchOptions map_search_options(Objective objective, int top_k, contracts::ExactTrafficRefinement exact, bool two_level = true);

struct SearchResult {
  std::vector<contracts::CostReport> best;       // best first, at most top_k
  std::uint64_t evaluated = 0;              // tiles searched: costed, or ruled out by the cycle bound
  std::uint64_t bounded = 0;                // of those, ruled out by the cycle bound without being costed
  std::uint64_t exact_evaluations = 0;      // tiles whose exact traffic was computed
  std::optional<contracts::CostReport> baseline; // the paper's (T_R,T_S,1,T_K,1,1,1), if it fits
  // Searching the raw space only: per pruning rule (kPruningRules order), the best tile that satisfies it,
  // i.e. the optimum of the space that rule alone leaves; nullopt if the rule alone empties the space.
  std::array<std::optional<contracts::CostReport>, kNumPruningRules> best_under_rule;
  bool rule_losses_known = false;           // best_under_rule was computed (raw space searched)
  // The best single-level mapping (fabric tile alone): what the pruning rules' losses are measured against.
  std::optional<contracts::CostReport> fabric_optimum;
  // Joint search (options.joint): the joint space's size before the capacity rule (fabric tiles × SDM tiles ×
  // 120 orders × 2 phase orders), the mappings costed, the fabric tiles whose SDM level was searched, and whether that was all.
  std::uint64_t joint_space = 0, joint_evaluated = 0, joint_fabric_tiles = 0;
  // Of the joint_fabric_tiles, those skipped whole by the fabric-tile bound (search.cpp): none of their mappings
  // could enter the top-k.
  std::uint64_t joint_bounded_tiles = 0;
  bool joint_exhaustive = false;
  double joint_seconds = 0;  // of the SDM-level stage (after the fabric tiles' pass)
  double seconds = 0;
  // Filled by flow's exact ranking (flow/exact_ranking.hpp), when `best` is ranked by exact cycles with DRAM: the
  // candidates the search kept in the order of their bound, those the replay timed, and whether the bound proved the
  // list (false: the candidates ran out first — a budget cut the kept list, or a heuristic search's list).
  struct ExactRanking {
    bool ranked = false;
    std::uint64_t candidates = 0, timed = 0;
    bool proven = false;
    double seconds = 0;
  } exact_ranking;
};

// Throws std::runtime_error only on internal faults; an empty `best` means no tile fits (the chosen rules
// empty the space: unmappable_reason() says why).
SearchResult search(const contracts::Layer& layer, const contracts::Hardware& hardware, const SearchOptions& options);

}  // namespace maeri::mapper
