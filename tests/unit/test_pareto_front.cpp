// The fused search's two ways to a Pareto set (mapper/search/pareto_front.hpp): keep_pareto, the join's batch by
// sorting, keeps exactly what offering the items one at a time to offer_pareto keeps — the same items, in the same
// order, the same count dropped — on random batches of four criteria with many ties and duplicates.
#include <catch2/catch.hpp>

#include <array>
#include <random>

#include "mapper/search/pareto_front.hpp"

namespace {

struct Item {
  double cycles = 0, energy = 0;
  std::int64_t peak = 0, pinned = 0;
  int id = 0;  // the position it was made at: which of equal items is kept
};

bool dominates(const Item& a, const Item& b) {
  return a.cycles <= b.cycles && a.energy <= b.energy && a.peak <= b.peak && a.pinned <= b.pinned;
}

}  // namespace

TEST_CASE("keep_pareto keeps what offer_pareto keeps, in the same order", "[fusion]") {
  std::mt19937_64 rng(4242);
  std::uint64_t kept_total = 0, dropped_total = 0;
  maeri::mapper::ParetoScratch<4> scratch;
  for (int trial = 0; trial < 400; ++trial) {
    const int span = 1 + int(rng() % 6);  // small ranges: ties and duplicates are common
    const std::size_t count = std::size_t(rng() % 300);
    std::vector<Item> items;
    for (std::size_t k = 0; k < count; ++k)
      items.push_back(Item{double(rng() % span), 0.5 * double(rng() % span), std::int64_t(rng() % span),
                           std::int64_t(rng() % 2 ? 0 : rng() % span), int(k)});
    std::vector<Item> one_at_a_time;
    std::uint64_t pruned = 0;
    for (const Item& item : items) maeri::mapper::offer_pareto(one_at_a_time, item, dominates, pruned);
    std::vector<Item> batch;
    const std::uint64_t dropped = maeri::mapper::keep_pareto(
        items,
        [](const Item& item) {
          return std::array<double, 4>{item.cycles, item.energy, double(item.peak), double(item.pinned)};
        },
        batch, scratch);
    INFO("trial " << trial << ", " << count << " items");
    REQUIRE(batch.size() == one_at_a_time.size());
    for (std::size_t k = 0; k < batch.size(); ++k) CHECK(batch[k].id == one_at_a_time[k].id);
    CHECK(dropped == pruned);
    kept_total += batch.size();
    dropped_total += dropped;
  }
  CHECK(kept_total > 500);
  CHECK(dropped_total > 10000);
}
