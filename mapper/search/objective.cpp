// The objectives and the ranking rule (see objective.hpp).
#include "mapper/search/objective.hpp"

#include "contracts/mapping_file.hpp"

namespace maeri::mapper {

const char* to_string(Objective objective) { return contracts::kObjectiveNames.at(std::size_t(objective)).c_str(); }

std::optional<Objective> parse_objective(const std::string& text) {
  for (std::size_t i = 0; i < contracts::kObjectiveNames.size(); ++i)
    if (text == contracts::kObjectiveNames[i]) return Objective(i);
  return std::nullopt;
}

double improvement_percent(double baseline, double best) {
  return baseline > 0 ? 100.0 * (baseline - best) / baseline : 0.0;
}

double loss_percent(const contracts::CostReport& optimum, const contracts::CostReport& constrained, Objective objective) {
  const double best = objective_value(optimum, objective), other = objective_value(constrained, objective);
  return best > 0 ? 100.0 * (other - best) / best : 0.0;
}

}  // namespace maeri::mapper
