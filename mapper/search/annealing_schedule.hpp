// The acceptance rule and the restarts shared by simulated annealing and the surrogate search (docs/search.md,
// "Methods"): a worse mapping is accepted with probability exp(-(ln v' - ln v) / T), T falling geometrically from
// a start temperature to kEndTemperature as the search spends its budget (in ln of the objective, so scale-free);
// after kPatience proposals without a new best the walk restarts from one of its elite.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "contracts/tile.hpp"

namespace maeri::mapper {

// Start temperatures: a 1.35x worse mapping is accepted with probability 1/e at first by the surrogate search, a
// 1.1x worse one by simulated annealing (whose restarts from its elite explore instead; measured in docs/search.md).
inline constexpr double kSurrogateStartTemperature = 0.3;
inline constexpr double kAnnealingStartTemperature = 0.1;
inline constexpr double kEndTemperature = 0.003;

// A walk started from warm-start mappings (simulated annealing, the surrogate search) starts this far down its
// schedule: its start is already good, and the hot beginning of the schedule would walk away from it (docs/search.md,
// "Warm start": VGG16 at 512 MS, simulated annealing 3.6x -> 6.0x fewer samples than cold; the surrogate search on
// VGG16 at 256 MS 3.6x -> 9.6x, once its moves could leave a warm start's basin).
inline constexpr double kWarmStartProgress = 0.5;

// Where a walk is in its schedule after `steps` of `budget` proposals: the share spent, or for a warm-started walk
// the rest of the schedule from kWarmStartProgress on.
inline double schedule_progress(std::uint64_t steps, std::uint64_t budget, bool warm) {
  const double spent = double(steps) / double(std::max<std::uint64_t>(1, budget));
  return warm ? kWarmStartProgress + (1 - kWarmStartProgress) * spent : spent;
}

// progress: schedule_progress (clamped to [0, 1]).
inline bool accept_move(double log_new, double log_current, double progress, double start_temperature,
                        std::mt19937_64& rng) {
  if (log_new <= log_current) return true;
  const double temperature =
      start_temperature * std::pow(kEndTemperature / start_temperature, std::clamp(progress, 0.0, 1.0));
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < std::exp(-(log_new - log_current) / temperature);
}

// The best mapping of each of the kSize best fabric tiles costed, and when to restart from one of them: restarting
// from the best alone kept most runs in the first good basin they met.
class EliteRestarts {
 public:
  static constexpr std::size_t kSize = 5;
  static constexpr std::uint64_t kPatience = 100;
  using Scored = std::pair<contracts::Mapping, double>;  // mapping, ln of its objective

  // Records a costed mapping; returns a mapping to restart from when the walk has gone kPatience reports
  // without a new best, nullptr otherwise.
  const Scored* report(const contracts::Mapping& tile, double log_value, std::mt19937_64& rng) {
    const bool improved = elite_.empty() || log_value < elite_.front().second;
    const auto same = std::find_if(elite_.begin(), elite_.end(),
                                   [&](const Scored& member) { return member.first.tile == tile.tile; });
    if (same == elite_.end())
      elite_.emplace_back(tile, log_value);
    else if (log_value < same->second)
      *same = {tile, log_value};
    std::stable_sort(elite_.begin(), elite_.end(), [](const Scored& a, const Scored& b) { return a.second < b.second; });
    if (elite_.size() > kSize) elite_.resize(kSize);
    if (improved) {
      since_best_ = 0;
      return nullptr;
    }
    if (++since_best_ < kPatience) return nullptr;
    since_best_ = 0;
    return &elite_[std::uniform_int_distribution<std::size_t>(0, elite_.size() - 1)(rng)];
  }

 private:
  std::vector<Scored> elite_;  // best first
  std::uint64_t since_best_ = 0;
};

}  // namespace maeri::mapper
