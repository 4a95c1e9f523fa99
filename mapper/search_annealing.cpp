// Simulated annealing over the map space (docs/search.md, "Simulated annealing"): a neighbour of the current
// mapping is accepted by accept_move() (annealing_schedule.hpp); after kPatience proposals without a new best the
// walk restarts from one of its elite, the best mappings of the kElite best fabric tiles found (restarting from the
// best alone kept most runs in the first good basin they met). The walk starts from the best of the warm-start
// mappings, or without them from the best of a random sample of kInitialShare of the budget (one walk from one
// random mapping is too often stuck in a poor region).
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "mapper/annealing_schedule.hpp"
#include "mapper/search_method.hpp"

namespace maeri::mapper {
namespace {

constexpr std::uint64_t kPatience = 100;
constexpr std::size_t kElite = 5;
constexpr double kInitialShare = 0.1;

class AnnealingSearch : public SearchMethod {
 public:
  AnnealingSearch(const MapSpace& space, std::uint64_t seed, std::uint64_t budget, std::vector<spec::Tile> warm_start)
      : space_(space), rng_(seed), budget_(std::max<std::uint64_t>(1, budget)), warm_(std::move(warm_start)),
        initial_(warm_.empty() ? std::max<std::uint64_t>(1, std::uint64_t(kInitialShare * double(budget_))) : warm_.size()) {}

  spec::Tile propose() override {
    if (next_warm_ < warm_.size()) return warm_[next_warm_++];
    if (steps_ < initial_) return space_.random(rng_);
    return space_.neighbour(current_->first, rng_);
  }

  void report(const spec::Tile& tile, double value) override {
    const double log_value = std::log(std::max(value, 1e-300));
    ++steps_;
    remember(tile, log_value);
    if (!best_ || log_value < best_->second) {
      best_ = {tile, log_value};
      since_best_ = 0;
    } else if (++since_best_ >= kPatience) {
      current_ = elite_[std::uniform_int_distribution<std::size_t>(0, elite_.size() - 1)(rng_)];
      since_best_ = 0;
      return;
    }
    // Warm-start mappings are all costed before the walk starts from the best of them.
    if (steps_ <= initial_) {
      current_ = best_;
      return;
    }
    if (!current_ ||
        accept_move(log_value, current_->second, double(steps_) / double(budget_), kAnnealingStartTemperature, rng_))
      current_ = {tile, log_value};
  }

 private:
  using Scored = std::pair<spec::Tile, double>;
  // Keeps elite_ the best mapping of each of the kElite best fabric tiles, best first.
  void remember(const spec::Tile& tile, double log_value) {
    const auto same = std::find_if(elite_.begin(), elite_.end(),
                                   [&](const Scored& member) { return member.first.size == tile.size; });
    if (same == elite_.end())
      elite_.emplace_back(tile, log_value);
    else if (log_value < same->second)
      *same = {tile, log_value};
    std::stable_sort(elite_.begin(), elite_.end(), [](const Scored& a, const Scored& b) { return a.second < b.second; });
    if (elite_.size() > kElite) elite_.resize(kElite);
  }

  const MapSpace& space_;
  std::mt19937_64 rng_;
  std::uint64_t budget_, steps_ = 0, since_best_ = 0;
  std::vector<spec::Tile> warm_;
  std::size_t next_warm_ = 0;
  std::uint64_t initial_;  // proposals before the walk: the warm-start mappings or the random sample
  std::optional<Scored> current_, best_;
  std::vector<Scored> elite_;
};

}  // namespace

std::unique_ptr<SearchMethod> make_annealing_search(const MapSpace& space, std::uint64_t seed, std::uint64_t budget,
                                                    std::vector<spec::Tile> warm_start) {
  return std::make_unique<AnnealingSearch>(space, seed, budget, std::move(warm_start));
}

}  // namespace maeri::mapper
