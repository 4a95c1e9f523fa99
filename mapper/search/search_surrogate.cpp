// Mind Mappings-style search (Hegde et al., ASPLOS 2021; docs/search.md, "Surrogate search"): gradient steps on the
// surrogate in the continuous relaxation of the mapping, each step's point projected to the nearest legal mapping
// (MapSpace::project); every kInjectionPeriod-th proposal is a random mapping (the paper's injection), and the
// costed mappings are accepted as in simulated annealing (accept_move, EliteRestarts). The projected mapping competes with a few
// neighbours of the current mapping on the surrogate's prediction, so a step that projects back onto a mapping
// already costed still moves the search without spending budget on it.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <set>

#include "mapper/search/annealing_schedule.hpp"
#include "mapper/search/search_method.hpp"
#include "mapper/search/surrogate_model.hpp"

namespace maeri::mapper {
namespace {

constexpr std::uint64_t kInjectionPeriod = 10;  // the paper's injection interval
constexpr int kGradientSteps = 8;               // steps tried until the projection leaves the current mapping
constexpr double kStepSize = 0.5;               // in log2 units along the largest gradient component
constexpr int kScreenedNeighbours = 8;
constexpr std::uint64_t kUnscreenedPeriod = 3;  // every third proposal a neighbour the surrogate did not screen

class SurrogateSearch : public SearchMethod {
 public:
  SurrogateSearch(const MapSpace& space, const SurrogateModel& model, std::uint64_t seed, std::uint64_t budget,
                  std::vector<contracts::Mapping> warm_start)
      : space_(space), model_(model), rng_(seed), budget_(std::max<std::uint64_t>(1, budget)),
        warm_(std::move(warm_start)) {}

  contracts::Mapping propose() override {
    if (next_warm_ < warm_.size()) return warm_[next_warm_++];
    if (!current_) return space_.random(rng_);
    if (++iteration_ % kInjectionPeriod == 0) return space_.random(rng_);
    if (iteration_ % kUnscreenedPeriod == 0) return space_.neighbour(current_->first, rng_);
    std::vector<contracts::Mapping> candidates;
    for (int step = 0; step < kGradientSteps; ++step) {
      RelaxedMapping gradient{};
      model_.predict_with_gradient(space_.layer(), space_.hardware(), point_, gradient);
      double largest = 0;
      for (double g : gradient) largest = std::max(largest, std::abs(g));
      if (largest == 0) break;
      for (int j = 0; j < kRelaxedSize; ++j) point_[size_t(j)] -= kStepSize * gradient[size_t(j)] / largest;
      const contracts::Mapping projected = space_.project(point_);
      if (!costed_.count(projected)) {
        candidates.push_back(projected);
        break;
      }
    }
    for (int i = 0; i < kScreenedNeighbours; ++i) {
      const contracts::Mapping next = space_.neighbour(current_->first, rng_);
      if (!costed_.count(next)) candidates.push_back(next);
    }
    if (candidates.empty()) return space_.random(rng_);
    Eigen::MatrixXd features(Eigen::Index(surrogate_feature_names().size()), Eigen::Index(candidates.size()));
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      const std::vector<double> f = surrogate_features(space_.layer(), space_.hardware(), space_.relax(candidates[c]));
      for (std::size_t i = 0; i < f.size(); ++i) features(Eigen::Index(i), Eigen::Index(c)) = f[i];
    }
    const Eigen::VectorXd predicted = model_.predict_batch(features);
    Eigen::Index best = 0;
    predicted.minCoeff(&best);
    return candidates[size_t(best)];
  }

  void report(const contracts::Mapping& tile, double value) override {
    costed_.insert(tile);
    const double log_value = std::log(std::max(value, 1e-300));
    ++steps_;
    const auto* restart = elite_.report(tile, log_value, rng_);
    if (steps_ <= warm_.size()) {  // the warm-start mappings are all costed; the walk starts from their best
      if (!current_ || log_value < current_->second) current_ = {tile, log_value};
      point_ = space_.relax(current_->first);
      return;
    }
    if (restart) {
      current_ = *restart;
      point_ = space_.relax(current_->first);
      return;
    }
    if (!current_ || accept_move(log_value, current_->second, schedule_progress(steps_, budget_, !warm_.empty()),
                                 kSurrogateStartTemperature, rng_)) {
      current_ = {tile, log_value};
      point_ = space_.relax(tile);
    }
  }

 private:
  const MapSpace& space_;
  const SurrogateModel& model_;
  std::mt19937_64 rng_;
  std::uint64_t budget_, steps_ = 0, iteration_ = 0;
  std::vector<contracts::Mapping> warm_;
  std::size_t next_warm_ = 0;
  std::optional<std::pair<contracts::Mapping, double>> current_;
  RelaxedMapping point_{};
  std::set<contracts::Mapping> costed_;
  EliteRestarts elite_;
};

}  // namespace

std::unique_ptr<SearchMethod> make_surrogate_search(const MapSpace& space, const SurrogateModel& model,
                                                    std::uint64_t seed, std::uint64_t budget,
                                                    std::vector<contracts::Mapping> warm_start) {
  return std::make_unique<SurrogateSearch>(space, model, seed, budget, std::move(warm_start));
}

}  // namespace maeri::mapper
