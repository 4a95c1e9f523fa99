// The default search (raw Eq. 1 space, ranked with exact DN/RN traffic) against an independent brute-force
// oracle written here: seven nested loops over every tile with 1 <= T_d <= dim_d and Eq. 1, each costed by the
// model. A tile whose report with the traversal lower bounds is already no better than our best cannot beat
// it (the bounds are checked against the functional model's execution in test_functional_model.cpp and
// against the exact counts below); every other tile gets its exact report, which must not beat ours either.
// Also: never worse than the mRNA paper's heuristic candidates — the baseline (R, S, 1, T_K, 1, 1, 1) and its
// T_C/T_K scalings (R, S, T_C, T_K, 1, 1, 1) — and the per-rule loss on a hand-computed layer. The joint
// (two-level) search's oracle, over fabric tiles × SDM tiles × all 120 orders, is in test_sdm_level.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <dirent.h>

#include "codegen/exact_traffic.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/search/rule_loss.hpp"
#include "mapper/search/search.hpp"
#include "mapper_fixtures.hpp"
#include "contracts/spec_loader.hpp"

using namespace maeri::contracts;
using namespace maeri::mapper;

namespace {

const Objective kObjectives[] = {Objective::Runtime, Objective::Energy, Objective::EnergyDelay};

maeri::contracts::ExactTrafficRefinement exact_for(const Layer& layer, const Hardware& hardware) {
  return maeri::codegen::exact_traffic_for(layer, hardware);
}

CostReport exact_report(const Layer& layer, const Hardware& hardware, const Mapping& tile) {
  CostReport report = evaluate(layer, hardware, tile);
  maeri::codegen::refine_with_exact_traffic(report, layer, hardware);
  return report;
}

std::vector<std::string> yaml_files(const std::string& folder) {
  std::vector<std::string> files;
  if (DIR* dir = opendir(folder.c_str())) {
    while (const dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.size() > 5 && name.substr(name.size() - 5) == ".yaml") files.push_back(folder + "/" + name);
    }
    closedir(dir);
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct OracleStats {
  std::uint64_t tiles = 0, exact = 0;
};

// Checks our best tile per objective against every tile of the raw space (brute force) and against the
// heuristic candidates.
OracleStats check_layer(const Layer& layer, const Hardware& hardware) {
  const auto exact = exact_for(layer, hardware);
  CostReport ours[3];
  for (int o = 0; o < 3; ++o) {
    const SearchResult result = search(layer, hardware, {kObjectives[o], 1, 0, {}, exact});
    REQUIRE(result.best.size() == 1);
    ours[o] = result.best.front();
    // What is reported is what was ranked: the report equals the exact report of its tile.
    const CostReport again = exact_report(layer, hardware, ours[o].mapping);
    CHECK(again.counts.dn_traversals == ours[o].counts.dn_traversals);
    CHECK(again.counts.rn_traversals == ours[o].counts.rn_traversals);
    CHECK(again.energy_pj.total == ours[o].energy_pj.total);
  }
  OracleStats stats;
  const auto check_tile = [&](const Mapping& tile) {
    ++stats.tiles;
    TrafficLowerBounds bounds;
    const CostReport estimate = evaluate(layer, hardware, tile, &bounds);
    const CostReport lower = evaluate_lower_bound(layer, hardware, tile);  // what the search ranks
    CHECK(lower.counts.dn_traversals == bounds.dn_traversals);
    CHECK(lower.counts.rn_traversals == bounds.rn_traversals);
    CHECK(lower.cycles.total == estimate.cycles.total);
    bool exact_done = false;
    CostReport exact_tile;
    for (int o = 0; o < 3; ++o) {
      if (!better(lower, ours[o], kObjectives[o])) continue;  // cannot beat ours, whatever its exact traffic
      if (!exact_done) {
        exact_tile = estimate;
        exact(exact_tile);
        exact_done = true;
        ++stats.exact;
        CHECK(bounds.dn_traversals <= exact_tile.counts.dn_traversals);
        CHECK(bounds.rn_traversals <= exact_tile.counts.rn_traversals);
      }
      INFO(layer.name << " on " << hardware.name << ", objective " << to_string(kObjectives[o]) << ": oracle tile "
                      << to_string(tile) << " vs ours " << to_string(ours[o].mapping));
      CHECK_FALSE(better(exact_tile, ours[o], kObjectives[o]));
    }
  };
  // T_G: every divisor of the groups (the group edge rule, docs/mapping.md "Groups in one step"), its VNs counted
  // in Eq. 1 as the T_K·T_N·T_X'·T_Y' VNs of each group.
  for (std::int64_t g = 1; g <= layer.groups; ++g) {
    if (layer.groups % g != 0) continue;
    const std::int64_t M = hardware.num_ms / g;
    for (std::int64_t r = 1; r <= std::min(layer.R, M); ++r)
      for (std::int64_t s = 1; r * s <= M && s <= layer.S; ++s)
        for (std::int64_t c = 1; r * s * c <= M && c <= layer.group_channels(); ++c)
          for (std::int64_t k = 1; r * s * c * k <= M && k <= layer.group_filters(); ++k)
            for (std::int64_t n = 1; r * s * c * k * n <= M && n <= layer.N; ++n)
              for (std::int64_t x = 1; r * s * c * k * n * x <= M && x <= layer.output_x(); ++x)
                for (std::int64_t y = 1; r * s * c * k * n * x * y <= M && y <= layer.output_y(); ++y) {
                  Mapping tile;
                  tile.tile.size = {r, s, c, k, n, x, y};
                  tile.tile.groups = g;
                  check_tile(tile);
                }
  }
  const std::int64_t M = hardware.num_ms;
  // The paper's heuristic candidates, by their own definition (they are in the raw space too).
  if (layer.R * layer.S <= M) {
    for (std::int64_t c = 1; c <= layer.group_channels() && layer.R * layer.S * c <= M; ++c)
      for (std::int64_t k = 1; k <= layer.group_filters() && layer.R * layer.S * c * k <= M; ++k) {
        const CostReport candidate = exact_report(layer, hardware, Mapping{{layer.R, layer.S, c, k, 1, 1, 1}, {}});
        for (int o = 0; o < 3; ++o) CHECK_FALSE(better(candidate, ours[o], kObjectives[o]));
      }
  }
  return stats;
}

int check_workloads(bool all_layers, const std::vector<std::int64_t>& fabrics) {
  const std::string configs = std::string(MAERI_SOURCE_DIR) + "/configs/";
  REQUIRE(yaml_files(configs + "hardware").size() >= 4);
  REQUIRE(yaml_files(configs + "workloads").size() >= 9);
  int layers_checked = 0;
  for (const std::string& hardware_file : yaml_files(configs + "hardware")) {
    const Hardware hardware = load_hardware(hardware_file);
    if (std::find(fabrics.begin(), fabrics.end(), hardware.num_ms) == fabrics.end()) continue;
    for (const std::string& workload_file : yaml_files(configs + "workloads")) {
      const Network network = load_workload(workload_file);
      for (std::size_t i = 0; i < network.layers.size(); ++i) {
        // The representative subset: each workload's first and last layer (a conv and, mostly, an FC).
        if (!all_layers && i != 0 && i + 1 != network.layers.size()) continue;
        INFO(network.name << "." << network.layers[i].name << " on " << hardware.name);
        const OracleStats stats = check_layer(network.layers[i], hardware);
        CHECK(stats.tiles == TileSpace(network.layers[i], hardware).count());  // the oracle saw the whole space
        ++layers_checked;
      }
    }
  }
  return layers_checked;
}

}  // namespace

TEST_CASE("search = exact optimum of the raw space: brute-force oracle and the paper's heuristics, 64 and 256 MS",
          "[mapper][search][oracle]") {
  CHECK(check_workloads(false, {64, 256}) == 68);  // 2 fabrics x 17 workloads x (first, last layer)
}

TEST_CASE("search = exact optimum: every layer of every shipped workload on every shipped fabric", "[long]") {
  CHECK(check_workloads(true, {64, 256, 512, 1024}) > 500);
}

TEST_CASE("search with exact traffic on a small layer equals the exact optimum over every tile", "[mapper][search]") {
  // Small enough to cost every tile exactly: the oracle needs no lower bounds here.
  const Layer layer = maeri::test::conv_layer(6, 5, 3, 3, 7, 6, 1, 1);
  const Hardware hardware = maeri::test::small_hardware(32, 4, 8);
  for (const Objective objective : kObjectives) {
    const SearchResult result = search(layer, hardware, {objective, 3, 2, {}, exact_for(layer, hardware)});
    std::vector<CostReport> all;
    const TileSpace space(layer, hardware);
    for (const auto& prefix : space.prefixes())
      space.enumerate_outputs(prefix, [&](const Mapping& tile) { all.push_back(exact_report(layer, hardware, tile)); });
    std::sort(all.begin(), all.end(), [&](const CostReport& a, const CostReport& b) { return better(a, b, objective); });
    REQUIRE(result.best.size() == 3);
    for (int i = 0; i < 3; ++i) CHECK(result.best[size_t(i)].mapping == all[size_t(i)].mapping);
    // Each rule's best: the exact optimum over the tiles that satisfy it.
    for (int rule = 0; rule < kNumPruningRules; ++rule) {
      const auto first = std::find_if(all.begin(), all.end(), [&](const CostReport& report) {
        return satisfies(layer, hardware, report.mapping, kPruningRules[rule]);
      });
      REQUIRE(result.best_under_rule[size_t(rule)].has_value());
      CHECK(result.best_under_rule[size_t(rule)]->mapping == first->mapping);
    }
  }
}

TEST_CASE("per-rule loss on an FC layer with a prime channel count, worked by hand", "[mapper][search]") {
  // FC layer K = 2, C = 1031 (prime) on 16 MS. Raw space: T_C·T_K <= 16 with T_K <= 2 (all other tiles are 1 by
  // the bounds): 16 + 8 = 24 tiles.
  //  - edge-divisibility alone: T_C must divide 1031, so T_C = 1 (T_C = 1031 breaks Eq. 1): T_K in {1, 2}, 2 tiles;
  //    its loss is whatever the model says T_C = 1 costs over the raw optimum, checked as that percentage.
  //  - inference-batch and reduced-convolution alone remove nothing here (N = 1; an FC layer's R, S, X', Y' are
  //    already 1): 24 tiles, the raw optimum, 0 % loss.
  //  - partial-sum-bound alone needs ceil(1031 / T_C) <= 16, i.e. T_C >= 65 > 16: it empties the space.
  const Layer layer = maeri::test::fc_layer(2, 1031);
  const Hardware hardware = maeri::test::small_hardware(16, 4, 4);
  CHECK(TileSpace(layer, hardware).count() == 24);
  const SearchResult result = search(layer, hardware, {Objective::Runtime, 1, 1, {}, exact_for(layer, hardware)});
  REQUIRE(result.best.size() == 1);
  const auto losses = rule_losses(result, layer, hardware, Objective::Runtime);
  REQUIRE(losses.size() == 4);
  CHECK(losses[0].rule == PruningRule::EdgeDivisibility);
  CHECK(losses[0].tiles_left == 2);
  REQUIRE(losses[0].best.has_value());
  CHECK(losses[0].best->mapping[kDimC] == 1);
  const double raw_cycles = result.best.front().cycles.total;
  CHECK(losses[0].loss_percent == Approx(100.0 * (losses[0].best->cycles.total - raw_cycles) / raw_cycles));
  CHECK(losses[0].loss_percent > 0);  // T_C = 1 needs 1031 weight phases; the optimum far fewer
  for (const int rule : {1, 2}) {
    CHECK(losses[size_t(rule)].tiles_left == 24);
    REQUIRE(losses[size_t(rule)].best.has_value());
    CHECK(losses[size_t(rule)].best->mapping == result.best.front().mapping);
    CHECK(losses[size_t(rule)].loss_percent == 0);
  }
  CHECK(losses[3].tiles_left == 0);
  CHECK_FALSE(losses[3].best.has_value());
  const std::string text = format_rule_losses(losses, Objective::Runtime);
  CHECK_THAT(text, Catch::Contains("partial-sum-bound") && Catch::Contains("empties the space"));
  // The layer is unmappable only with that rule chosen, and the error names it.
  const RuleSet rule = RuleSet::only(PruningRule::PartialSumBound);
  CHECK(search(layer, hardware, {Objective::Runtime, 1, 1, rule, exact_for(layer, hardware)}).best.empty());
  REQUIRE(unmappable_reason(layer, hardware, rule).has_value());
  CHECK_THAT(*unmappable_reason(layer, hardware, rule), Catch::Contains("'partial-sum-bound'"));
  CHECK_FALSE(unmappable_reason(layer, hardware).has_value());
}
