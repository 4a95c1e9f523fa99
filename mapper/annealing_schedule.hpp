// The acceptance rule shared by simulated annealing and the surrogate search (docs/search.md, "Simulated
// annealing"): a worse mapping is accepted with probability exp(-(ln v' - ln v) / T), T falling geometrically from
// kStartTemperature to kEndTemperature as the search spends its budget (in ln of the objective, so scale-free).
#pragma once

#include <algorithm>
#include <cmath>
#include <random>

namespace maeri::mapper {

inline constexpr double kStartTemperature = 0.3;  // a 1.35x worse mapping is accepted with probability 1/e at first
inline constexpr double kEndTemperature = 0.003;

// progress: the fraction of the budget spent (clamped to [0, 1]).
inline bool accept_move(double log_new, double log_current, double progress, std::mt19937_64& rng) {
  if (log_new <= log_current) return true;
  const double temperature =
      kStartTemperature * std::pow(kEndTemperature / kStartTemperature, std::clamp(progress, 0.0, 1.0));
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < std::exp(-(log_new - log_current) / temperature);
}

}  // namespace maeri::mapper
