// Exhaustive, multithreaded search of the pruned tile space for the best mappings of one layer
// under an objective (runtime, energy or energy-delay product), with the paper's baseline alongside.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/cost_report.hpp"
#include "spec/hardware.hpp"
#include "spec/layer.hpp"
#include "mapper/tile_space.hpp"

namespace maeri::mapper {

enum class Objective { Runtime, Energy, EnergyDelay };
const char* to_string(Objective objective);
std::optional<Objective> parse_objective(const std::string& text);  // "runtime", "energy", "edp"
double objective_value(const spec::CostReport& report, Objective objective);

// Strict order used to rank mappings: objective, then the other metric, then the tile itself, so
// results never depend on thread scheduling.
bool better(const spec::CostReport& a, const spec::CostReport& b, Objective objective);

struct SearchOptions {
  Objective objective = Objective::Runtime;
  int top_k = 5;
  int threads = 0;                    // 0 = all hardware threads
  int rules_applied = kNumPruningRules;
};

struct SearchResult {
  std::vector<spec::CostReport> best;       // best first, at most top_k
  std::uint64_t evaluated = 0;        // tiles costed
  std::optional<spec::CostReport> baseline; // the paper's (T_R,T_S,1,T_K,1,1,1), if it fits
  double seconds = 0;
};

// Throws SpecError-free std::runtime_error only on internal faults; an empty `best` means no tile fits.
SearchResult search(const spec::Layer& layer, const spec::Hardware& hardware, const SearchOptions& options);

// Improvement of `best` over `baseline` in percent of the baseline (positive = better).
double improvement_percent(double baseline, double best);

}  // namespace maeri::mapper
