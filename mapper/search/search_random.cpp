// Random search: the warm-start mappings, then independent random mappings of the space (MapSpace::random).
#include <random>

#include "mapper/search/search_method.hpp"

namespace maeri::mapper {
namespace {

class RandomSearch : public SearchMethod {
 public:
  RandomSearch(const MapSpace& space, std::uint64_t seed, std::vector<contracts::Mapping> warm_start)
      : space_(space), rng_(seed), warm_(std::move(warm_start)) {}
  contracts::Mapping propose() override { return next_warm_ < warm_.size() ? warm_[next_warm_++] : space_.random(rng_); }
  void report(const contracts::Mapping&, double) override {}

 private:
  const MapSpace& space_;
  std::mt19937_64 rng_;
  std::vector<contracts::Mapping> warm_;
  std::size_t next_warm_ = 0;
};

}  // namespace

std::unique_ptr<SearchMethod> make_random_search(const MapSpace& space, std::uint64_t seed,
                                                 std::vector<contracts::Mapping> warm_start) {
  return std::make_unique<RandomSearch>(space, seed, std::move(warm_start));
}

}  // namespace maeri::mapper
