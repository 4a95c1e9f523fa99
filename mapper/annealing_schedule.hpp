// The acceptance rule shared by simulated annealing and the surrogate search (docs/search.md, "Simulated
// annealing"): a worse mapping is accepted with probability exp(-(ln v' - ln v) / T), T falling geometrically from
// a start temperature to kEndTemperature as the search spends its budget (in ln of the objective, so scale-free).
#pragma once

#include <algorithm>
#include <cmath>
#include <random>

namespace maeri::mapper {

// Start temperatures: a 1.35x worse mapping is accepted with probability 1/e at first by the surrogate search, a
// 1.1x worse one by simulated annealing (whose restarts from its elite explore instead; measured in docs/search.md).
inline constexpr double kSurrogateStartTemperature = 0.3;
inline constexpr double kAnnealingStartTemperature = 0.1;
inline constexpr double kEndTemperature = 0.003;

// progress: the fraction of the budget spent (clamped to [0, 1]).
inline bool accept_move(double log_new, double log_current, double progress, double start_temperature,
                        std::mt19937_64& rng) {
  if (log_new <= log_current) return true;
  const double temperature =
      start_temperature * std::pow(kEndTemperature / start_temperature, std::clamp(progress, 0.0, 1.0));
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < std::exp(-(log_new - log_current) / temperature);
}

}  // namespace maeri::mapper
