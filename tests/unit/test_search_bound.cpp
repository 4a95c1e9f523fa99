// The search's shortcuts against brute force: the cycle lower bounds (mapper::CyclesLowerBound) are never above a
// mapping's compute and total cycles, on random layers of every kind, fabric tiles and SDM levels, with and
// without the model's overheads, resident and streaming SDMs; and a search that skips tiles by that bound and refines the exact traffic only
// where it decides something (runtime objective) returns exactly the brute-force top-k and best tile per pruning
// rule — every tile of the raw space costed with its exact traffic here and sorted with `better` — on 1 and 2
// threads, including a DRAM-bound layer with ties in cycles, with the real exact traffic and with a scrambled
// stand-in that reorders tied tiles. The joint search's fabric-tile bound (cycle and energy lower bounds) leaves its
// top-k unchanged under every objective.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <random>

#include "codegen/exact_traffic.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "mapper/search/search.hpp"
#include "mapper/search/top_k.hpp"
#include "mapper_fixtures.hpp"

using namespace maeri::contracts;
using namespace maeri::mapper;

namespace {

Layer random_layer(std::mt19937& random) {
  const auto pick = [&](std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(random);
  };
  for (;;) {
    const std::int64_t groups = pick(1, 3), R = pick(1, 4), S = pick(1, 4);
    Layer layer = maeri::test::conv_layer(groups * pick(1, 6), groups * pick(1, 6), R, S, pick(R, 12), pick(S, 12),
                                          1, pick(0, 1), pick(1, 2));
    layer.groups = groups;
    layer.stride_x = pick(1, 2);
    layer.stride_y = pick(1, 2);
    layer.dilation_x = pick(1, 2);
    layer.dilation_y = pick(1, 2);
    const std::int64_t span_x = (R - 1) * layer.dilation_x + 1, span_y = (S - 1) * layer.dilation_y + 1;
    if (span_x <= layer.X + 2 * layer.padding_x && span_y <= layer.Y + 2 * layer.padding_y) return layer;
  }
}

Mapping random_tile(const Layer& layer, std::int64_t num_ms, std::mt19937& random, bool with_sdm_level) {
  const auto extents = layer_extents(layer);
  Mapping tile;
  do {
    for (int d = 0; d < kNumTileDims; ++d)
      tile[d] = std::uniform_int_distribution<std::int64_t>(1, extents[size_t(d)])(random);
    // Half the tiles of a grouped layer put a random divisor of its groups side by side.
    tile.tile.groups = 1;
    if (layer.groups > 1 && random() % 2) {
      std::vector<std::int64_t> divisors;
      for (std::int64_t g = 1; g <= layer.groups; ++g)
        if (layer.groups % g == 0) divisors.push_back(g);
      tile.tile.groups = divisors[random() % divisors.size()];
    }
  } while (tile.mapped_ms() > num_ms);
  if (with_sdm_level)
    pick_sdm_level(layer, tile, [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); });
  const auto& phase_orders = distinct_phase_orders(layer, tile);
  tile.phase_order = phase_orders[std::uniform_int_distribution<std::size_t>(0, phase_orders.size() - 1)(random)];
  return tile;
}

// A stand-in for the exact traffic that reorders ties far more than the real one does on small fabrics: the lower
// bound plus a pseudo-random number of DN hops per tile (still at least the bound, as the search assumes).
maeri::contracts::ExactTrafficRefinement scrambled_traffic(const Hardware& hardware) {
  return [&hardware](CostReport& report) {
    std::uint64_t hash = 1469598103934665603ull;
    for (int d = 0; d < kNumTileDims; ++d) hash = (hash ^ std::uint64_t(report.mapping[d])) * 1099511628211ull;
    set_traffic(report, report.counts.dn_traversals + std::int64_t(hash % 1000) * 10000, report.counts.rn_traversals, hardware);
  };
}

// Every tile of the raw space with its exact report, best first (the search's order).
std::vector<CostReport> brute_force(const Layer& layer, const Hardware& hardware, Objective objective,
                                    const maeri::contracts::ExactTrafficRefinement& exact) {
  std::vector<CostReport> all;
  const auto extents = layer_extents(layer);
  Mapping tile;
  std::function<void(int, std::int64_t)> loop = [&](int dim, std::int64_t product) {
    if (dim == kNumTileDims) {
      // T_G: every divisor of the groups that still fits (Eq. 1 counts its VNs).
      for (std::int64_t groups = 1; groups <= layer.groups && product * groups <= hardware.num_ms; ++groups) {
        if (layer.groups % groups) continue;
        tile.tile.groups = groups;
        CostReport report = evaluate_lower_bound(layer, hardware, tile);
        exact(report);
        all.push_back(report);
      }
      return;
    }
    for (std::int64_t t = 1; t <= extents[size_t(dim)] && product * t <= hardware.num_ms; ++t) {
      tile[dim] = t;
      loop(dim + 1, product * t);
    }
  };
  loop(0, 1);
  std::sort(all.begin(), all.end(), [&](const CostReport& a, const CostReport& b) { return better(a, b, objective); });
  return all;
}

void require_same(const CostReport& ours, const CostReport& oracle) {
  INFO(to_string(ours.mapping) << " vs " << to_string(oracle.mapping));
  REQUIRE(ours.mapping == oracle.mapping);
  REQUIRE(ours.cycles.total == oracle.cycles.total);
  REQUIRE(ours.energy_pj.total == oracle.energy_pj.total);
  REQUIRE(ours.counts.dn_traversals == oracle.counts.dn_traversals);
  REQUIRE(ours.counts.rn_traversals == oracle.counts.rn_traversals);
}

}  // namespace

TEST_CASE("cycle bound: never above the compute (and total) cycles of any mapping, fabric tile or two-level",
          "[mapper][search]") {
  std::mt19937 random(2026);
  std::uint64_t tight = 0, checked = 0, memory_bound = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const Layer layer = random_layer(random);
    Hardware hardware = maeri::test::small_hardware(std::int64_t(1) << (3 + trial % 4), 4, 4);
    hardware.dn_bw = std::int64_t(1) << (trial % 3 + 1);
    hardware.rn_bw = std::int64_t(1) << ((trial / 3) % 3 + 1);
    // Large enough for any block, or small enough that many single-level mappings stream from DRAM.
    hardware.sdm_bytes = trial % 4 == 1 ? 256 + 64 * (trial % 9) : std::int64_t(1) << 30;
    hardware.dram_bytes_per_cycle = 1 + trial % 8;
    if (trial % 2) {
      hardware.model.step_overhead = 0.5 * (trial % 5);
      hardware.model.phase_overhead = 3.0 * (trial % 7);
    }
    const Mapping tile = random_tile(layer, hardware.num_ms, random, trial % 3 == 0 && trial % 4 != 1);
    REQUIRE_FALSE(mapping_violation(layer, hardware, tile));
    const CostReport report = evaluate(layer, hardware, tile);
    const CyclesLowerBound::Bounds bounds = CyclesLowerBound(layer, hardware).bounds(tile);
    INFO("K=" << layer.K << " C=" << layer.C << " R=" << layer.R << " S=" << layer.S << " X=" << layer.X
              << " Y=" << layer.Y << " groups " << layer.groups << " dilation " << layer.dilation_x << "x"
              << layer.dilation_y << " stride " << layer.stride_x << "x" << layer.stride_y << " N=" << layer.N
              << "; " << to_string(tile) << " on " << hardware.num_ms << " MS");
    REQUIRE(bounds.compute <= report.cycles.compute());
    REQUIRE(bounds.total <= report.cycles.total);
    // The energy bound leaves out the DN/RN traversals, so it holds with the estimates and the exact counts alike.
    REQUIRE(energy_lower_bound(layer, hardware) <= report.energy_pj.total);
    REQUIRE(report.cycles.compute() <= report.cycles.total);
    ++checked;
    if (bounds.compute >= 0.5 * report.cycles.compute()) ++tight;
    if (bounds.total > bounds.compute) ++memory_bound;
  }
  // Not a correctness condition, but a bound far below the cycles would skip nothing: most are within 2x.
  CHECK(tight * 2 > checked);
  CHECK(memory_bound * 20 > checked);  // the DRAM term is exercised
}

TEST_CASE("joint search: skipping fabric tiles by their bound leaves the top-k of every objective unchanged",
          "[mapper][search][sdm]") {
  // The same joint search with and without the fabric-tile bound (SearchOptions::bound), on random layers and SDM
  // sizes, estimates and exact traffic, 1 and 2 threads: the lists must be identical, and the bound must bite.
  std::mt19937 random(17);
  std::uint64_t skipped = 0, searched = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const Layer layer = random_layer(random);
    Hardware hardware = maeri::test::small_hardware(std::int64_t(8) << (trial % 3), 4, 4);
    hardware.sdm_bytes = trial % 2 ? 512 + 128 * (trial % 5) : std::int64_t(1) << 20;
    hardware.dram_bytes_per_cycle = 1 + trial % 4;
    const Objective objective = std::array{Objective::Runtime, Objective::Energy, Objective::EnergyDelay}[trial % 3];
    const maeri::contracts::ExactTrafficRefinement exact = trial % 4 == 3 ? maeri::codegen::exact_traffic_for(layer, hardware) : maeri::contracts::ExactTrafficRefinement{};
    SearchOptions options(objective, 1 + trial % 3, 1 + trial % 2, {}, exact);
    options.joint.enabled = true;
    options.joint.budget = std::uint64_t(1) << 40;
    const SearchResult bounded = search(layer, hardware, options);
    options.bound = false;
    const SearchResult full = search(layer, hardware, options);
    INFO("trial " << trial << ": K=" << layer.K << " C=" << layer.C << " R=" << layer.R << " S=" << layer.S
                  << " X=" << layer.X << " on " << hardware.num_ms << " MS, objective " << to_string(objective));
    REQUIRE(bounded.joint_exhaustive);
    CHECK(full.joint_bounded_tiles == 0);
    REQUIRE(bounded.best.size() == full.best.size());
    for (std::size_t i = 0; i < full.best.size(); ++i) require_same(bounded.best[i], full.best[i]);
    skipped += bounded.joint_bounded_tiles;
    searched += bounded.joint_fabric_tiles;
  }
  CHECK(skipped * 4 > searched);  // a quarter of the fabric tiles or more never get their SDM levels searched
}

TEST_CASE("search with the cycle bound and deferred exact traffic equals brute force: top-k and rule bests",
          "[mapper][search]") {
  struct Case {
    Layer layer;
    std::int64_t num_ms;
  };
  Layer grouped = maeri::test::conv_layer(6, 6, 3, 3, 7, 7, 1, 1);
  grouped.groups = 3;
  Layer dram_bound = maeri::test::fc_layer(24, 40);  // resident and 1 B/cycle: DRAM-bound, many ties in cycles
  const Case cases[] = {{maeri::test::conv_layer(6, 5, 3, 3, 9, 8, 1, 1), 32},
                        {maeri::test::conv_layer(8, 7, 1, 1, 6, 6), 16},
                        {grouped, 16},
                        {dram_bound, 32},
                        {maeri::test::conv_layer(4, 3, 5, 5, 9, 9, 2, 2, 2), 32}};
  for (const Case& c : cases) {
    Hardware hardware = maeri::test::small_hardware(c.num_ms, 4, 8);
    if (c.layer.type == LayerType::FullyConnected) {
      hardware.sdm_bytes = 1 << 20;
      hardware.dram_bytes_per_cycle = 1;
    }
    for (const bool scrambled : {false, true}) {
    const maeri::contracts::ExactTrafficRefinement exact =
        scrambled ? scrambled_traffic(hardware) : maeri::codegen::exact_traffic_for(c.layer, hardware);
    const std::vector<CostReport> oracle = brute_force(c.layer, hardware, Objective::Runtime, exact);
    INFO("layer K=" << c.layer.K << " C=" << c.layer.C << " R=" << c.layer.R << " on " << c.num_ms << " MS");
    // In the DRAM-bound case the 6th and 7th best tie in cycles (2111 each, seen in the oracle), so energy decides
    // which one is 6th and the refinement must get it right.
    if (c.layer.type == LayerType::FullyConnected) CHECK(oracle[5].cycles.total == oracle[6].cycles.total);
    INFO((scrambled ? "scrambled" : "exact") << " traffic");
    for (const int threads : {1, 2}) {
      SearchOptions options(Objective::Runtime, 6, threads, {}, exact);
      const SearchResult result = search(c.layer, hardware, options);
      // Compute-bound: the bound bites (deterministic on one thread; with two, how full each thread's lists are
      // when it meets a tile depends on scheduling).
      if (c.layer.type != LayerType::FullyConnected && threads == 1) CHECK(result.bounded > 0);
      CHECK(result.evaluated == oracle.size());
      REQUIRE(result.best.size() == 6);
      for (std::size_t i = 0; i < 6; ++i) require_same(result.best[i], oracle[i]);
      for (int rule = 0; rule < kNumPruningRules; ++rule) {
        const auto first = std::find_if(oracle.begin(), oracle.end(), [&](const CostReport& report) {
          return satisfies(c.layer, hardware, report.mapping, kPruningRules[rule]);
        });
        REQUIRE(first != oracle.end());
        REQUIRE(result.best_under_rule[size_t(rule)].has_value());
        require_same(*result.best_under_rule[size_t(rule)], *first);
      }
    }
    }
  }
}

TEST_CASE("deferred top-k: random offer orders with many ties in cycles give the exact top-k", "[mapper][search]") {
  // Reports with cycles from a small set (ties everywhere), a lower-bound energy and an exact energy at least that
  // large; offered in random orders, some already exact. The oracle sorts the exact reports.
  std::mt19937 random(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t k = 1 + trial % 6;
    const int count = 1 + int(random() % 40);
    std::vector<CostReport> lower(static_cast<std::size_t>(count)), exact;
    for (int i = 0; i < count; ++i) {
      CostReport& report = lower[size_t(i)];
      report.mapping[kDimK] = i + 1;  // distinct tiles: the last tie-break
      report.cycles.total = double(100 + random() % 4);
      report.energy_pj.total = double(random() % 50);
      CostReport refined = report;
      refined.energy_pj.total += double(random() % 50);
      exact.push_back(refined);
    }
    std::uint64_t refinements = 0;
    const auto refine = [&](CostReport& report) {
      ++refinements;
      report = exact[size_t(report.mapping[kDimK] - 1)];
    };
    TopK list(k, Objective::Runtime, true);
    for (int i = 0; i < count; ++i) {
      const bool already_exact = random() % 4 == 0;
      list.offer(already_exact ? exact[size_t(i)] : lower[size_t(i)], already_exact, refine);
    }
    list.refine_all(refine);
    CHECK(refinements <= std::uint64_t(count));  // no report is refined twice
    std::sort(exact.begin(), exact.end(),
              [](const CostReport& a, const CostReport& b) { return better(a, b, Objective::Runtime); });
    INFO("trial " << trial << ", k = " << k << ", " << count << " reports");
    REQUIRE(list.items().size() == std::min<std::size_t>(k, exact.size()));
    for (std::size_t i = 0; i < list.items().size(); ++i) {
      REQUIRE(list.items()[i].mapping == exact[i].mapping);
      REQUIRE(list.items()[i].energy_pj.total == exact[i].energy_pj.total);
    }
  }
}
