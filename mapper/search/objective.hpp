// What a search minimises (runtime, energy or their product) and the one ranking rule every search, list and driver
// orders mappings by (`better`): the objective, then the other metric, then the mapping itself, so a ranking never
// depends on thread scheduling or on the order mappings were met.
#pragma once

#include <optional>
#include <string>

#include "contracts/cost_report.hpp"

namespace maeri::mapper {

// In the order of their names, contracts::kObjectiveNames (contracts/mapping_file.hpp).
enum class Objective { Runtime, Energy, EnergyDelay };
const char* to_string(Objective objective);
std::optional<Objective> parse_objective(const std::string& text);  // "runtime", "energy", "edp"
// The objective of `cycles` and `energy_pj` (the one place they combine: runtime, energy, or their product), also
// for bounds and minima that are not reports.
inline double objective_value(double cycles, double energy_pj, Objective objective) {
  switch (objective) {
    case Objective::Runtime: return cycles;
    case Objective::Energy: return energy_pj;
    case Objective::EnergyDelay: return cycles * energy_pj;
  }
  return 0;
}
inline double objective_value(const contracts::CostReport& report, Objective objective) {
  return objective_value(report.cycles.total, report.energy_pj.total, objective);
}

// The metric that breaks ties in the objective: energy for runtime, runtime otherwise.
inline Objective tie_breaking_objective(Objective objective) {
  return objective == Objective::Runtime ? Objective::Energy : Objective::Runtime;
}

// Strict order used to rank mappings: objective, then cycles, then energy (for EDP both; otherwise the other metric,
// tie_breaking_objective), then DRAM bytes, then the mapping itself, so results never depend on thread scheduling.
// `maeri map` ranks by it with exact cycles with DRAM (flow/exact_ranking.hpp). Inline: the exhaustive search calls
// it for every tile that may enter a list.
inline bool better(const contracts::CostReport& a, const contracts::CostReport& b, Objective objective) {
  const double primary_a = objective_value(a, objective), primary_b = objective_value(b, objective);
  if (primary_a != primary_b) return primary_a < primary_b;
  if (a.cycles.total != b.cycles.total) return a.cycles.total < b.cycles.total;
  if (a.energy_pj.total != b.energy_pj.total) return a.energy_pj.total < b.energy_pj.total;
  if (a.counts.dram_bytes != b.counts.dram_bytes) return a.counts.dram_bytes < b.counts.dram_bytes;
  return a.mapping < b.mapping;
}

// Improvement of `best` over `baseline` in percent of the baseline (positive = better).
double improvement_percent(double baseline, double best);

// How much worse (in percent of the optimum's objective) `constrained` is than `optimum`; 0 when equal.
double loss_percent(const contracts::CostReport& optimum, const contracts::CostReport& constrained, Objective objective);

}  // namespace maeri::mapper
