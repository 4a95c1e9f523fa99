// Genetic search (docs/search.md, "Genetic"): a population of P mappings (the warm-start mappings and their
// neighbours, or random ones); each generation breeds P children — a neighbour of the best member (kLocalSearch), or
// parents by binary tournament, uniform crossover (MapSpace::crossover) with probability kCrossover, then a
// neighbour move with probability kMutation — and keeps the best P distinct mappings of parents and children
// ((μ+λ) selection, so the best is never lost).
#include <algorithm>
#include <cmath>
#include <random>

#include "mapper/search/search_method.hpp"

namespace maeri::mapper {
namespace {

constexpr double kCrossover = 0.8;
constexpr double kMutation = 0.5;
// The share of children that are a neighbour of the best member (a memetic, local-search step): crossover and one
// mutation seldom cross the SDM-level changes the best mapping needs (100 runs at 1 000 evaluations on the ten
// layers where `ga` did worst: geometric mean of the medians 1.066 -> 1.019; docs/search.md).
constexpr double kLocalSearch = 0.5;
constexpr double kWarmNeighbours = 0.5;
// The population: budget/25, within these bounds. Warm-started, the smallest: the warm mappings and their
// neighbours already sit in a good region, and a small population converges there in fewer generations (Table II
// at 256 MS: 1.9x -> 7.1x fewer samples than cold to 99.5 %, VGG16 at 512 MS 2.5x -> 5.1x; docs/search.md).
constexpr std::size_t kMinPopulation = 12, kMaxPopulation = 48;

class GeneticSearch : public SearchMethod {
 public:
  GeneticSearch(const MapSpace& space, std::uint64_t seed, std::uint64_t budget, std::vector<contracts::Mapping> warm_start)
      : space_(space), rng_(seed),
        population_size_(warm_start.empty() ? std::clamp(std::size_t(budget / 25), kMinPopulation, kMaxPopulation)
                                            : kMinPopulation),
        warm_(std::move(warm_start)) {}

  contracts::Mapping propose() override {
    if (next_warm_ < warm_.size()) return warm_[next_warm_++];
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    if (population_.size() < population_size_) {
      // Warm-started, half the rest of the first population are neighbours of the warm-start mappings.
      if (!warm_.empty() && unit(rng_) < kWarmNeighbours)
        return space_.neighbour(warm_[std::uniform_int_distribution<std::size_t>(0, warm_.size() - 1)(rng_)], rng_);
      return space_.random(rng_);
    }
    if (unit(rng_) < kLocalSearch) return space_.neighbour(population_.front().first, rng_);
    contracts::Mapping child = select();
    if (unit(rng_) < kCrossover) child = space_.crossover(child, select(), rng_);
    if (unit(rng_) < kMutation) child = space_.neighbour(child, rng_);
    return child;
  }

  void report(const contracts::Mapping& tile, double value) override {
    if (population_.size() < population_size_) {
      add(population_, tile, value);
      if (population_.size() == population_size_) sort_best_first(population_);
      return;
    }
    add(children_, tile, value);
    if (children_.size() < population_size_) return;
    for (const auto& child : children_) add(population_, child.first, child.second);
    children_.clear();
    sort_best_first(population_);
    population_.resize(population_size_);
  }

 private:
  using Member = std::pair<contracts::Mapping, double>;
  static void sort_best_first(std::vector<Member>& members) {
    std::sort(members.begin(), members.end(),
              [](const auto& a, const auto& b) { return a.second != b.second ? a.second < b.second : a.first < b.first; });
  }
  static void add(std::vector<Member>& members, const contracts::Mapping& tile, double value) {
    for (const Member& member : members)
      if (member.first == tile) return;
    members.emplace_back(tile, value);
  }
  const contracts::Mapping& select() {
    const Member& a = population_[std::uniform_int_distribution<std::size_t>(0, population_.size() - 1)(rng_)];
    const Member& b = population_[std::uniform_int_distribution<std::size_t>(0, population_.size() - 1)(rng_)];
    return a.second <= b.second ? a.first : b.first;
  }

  const MapSpace& space_;
  std::mt19937_64 rng_;
  std::size_t population_size_;
  std::vector<contracts::Mapping> warm_;
  std::size_t next_warm_ = 0;
  std::vector<Member> population_, children_;
};

}  // namespace

std::unique_ptr<SearchMethod> make_genetic_search(const MapSpace& space, std::uint64_t seed, std::uint64_t budget,
                                                  std::vector<contracts::Mapping> warm_start) {
  return std::make_unique<GeneticSearch>(space, seed, budget, std::move(warm_start));
}

}  // namespace maeri::mapper
