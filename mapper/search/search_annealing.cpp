// Simulated annealing over the map space (docs/search.md, "Methods"): a neighbour of the current mapping is
// accepted by accept_move() and the walk restarts from its elite (EliteRestarts; both annealing_schedule.hpp). The
// walk starts from the best of the warm-start mappings, or without them from the best of a random sample of
// kInitialShare of the budget (one walk from one random mapping is too often stuck in a poor region).
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "mapper/search/annealing_schedule.hpp"
#include "mapper/search/search_method.hpp"

namespace maeri::mapper {
namespace {

constexpr double kInitialShare = 0.1;

class AnnealingSearch : public SearchMethod {
 public:
  AnnealingSearch(const MapSpace& space, std::uint64_t seed, std::uint64_t budget, std::vector<contracts::Mapping> warm_start)
      : space_(space), rng_(seed), budget_(std::max<std::uint64_t>(1, budget)), warm_(std::move(warm_start)),
        initial_(warm_.empty() ? std::max<std::uint64_t>(1, std::uint64_t(kInitialShare * double(budget_))) : warm_.size()) {}

  contracts::Mapping propose() override {
    if (next_warm_ < warm_.size()) return warm_[next_warm_++];
    if (steps_ < initial_) return space_.random(rng_);
    return space_.neighbour(current_->first, rng_);
  }

  void report(const contracts::Mapping& tile, double value) override {
    const double log_value = std::log(std::max(value, 1e-300));
    ++steps_;
    if (!best_ || log_value < best_->second) best_ = {tile, log_value};
    if (const auto* restart = elite_.report(tile, log_value, rng_)) {
      current_ = *restart;
      return;
    }
    // Warm-start mappings are all costed before the walk starts from the best of them.
    if (steps_ <= initial_) {
      current_ = best_;
      return;
    }
    if (!current_ ||
        accept_move(log_value, current_->second, schedule_progress(steps_, budget_, !warm_.empty()),
                    kAnnealingStartTemperature, rng_))
      current_ = {tile, log_value};
  }

 private:
  using Scored = EliteRestarts::Scored;

  const MapSpace& space_;
  std::mt19937_64 rng_;
  std::uint64_t budget_, steps_ = 0;
  std::vector<contracts::Mapping> warm_;
  std::size_t next_warm_ = 0;
  std::uint64_t initial_;  // proposals before the walk: the warm-start mappings or the random sample
  std::optional<Scored> current_, best_;
  EliteRestarts elite_;
};

}  // namespace

std::unique_ptr<SearchMethod> make_annealing_search(const MapSpace& space, std::uint64_t seed, std::uint64_t budget,
                                                    std::vector<contracts::Mapping> warm_start) {
  return std::make_unique<AnnealingSearch>(space, seed, budget, std::move(warm_start));
}

}  // namespace maeri::mapper
