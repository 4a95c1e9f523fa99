// `maeri sweep`'s parts: grid files and --set ranges (values written out by hand), expansion order, applying a
// point to a base spec, the area estimate (by hand for a small instance), the Pareto front against a brute-force
// dominance filter, and a design point's totals: without fusion against independent searches of each layer (exact
// traffic, as map); with fusion `maeri map`'s decision, no worse under the objective than every layer alone.
#include <catch2/catch.hpp>

#include <random>
#include <yaml-cpp/yaml.h>

#include "codegen/exact_traffic.hpp"
#include "flow/design_sweep.hpp"
#include "flow/exact_ranking.hpp"
#include "mapper/model/report_json.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/strict_yaml.hpp"
#include "contracts/sweep_grid.hpp"
#include "temp_file.hpp"

using namespace maeri;
using maeri::test::TempFile;

namespace {
std::string config(const std::string& relative) { return std::string(MAERI_SOURCE_DIR) + "/configs/" + relative; }
using Values = std::vector<std::string>;
}  // namespace

TEST_CASE("sweep: --set lists and ranges expand to the values written out by hand", "[sweep]") {
  CHECK(contracts::parse_sweep_setting("dn_bw=8,16,64").values == Values{"8", "16", "64"});
  CHECK(contracts::parse_sweep_setting("num_ms=64:1024:x2").values == Values{"64", "128", "256", "512", "1024"});
  CHECK(contracts::parse_sweep_setting("num_ms=64:1000:x2").values == Values{"64", "128", "256", "512"});
  CHECK(contracts::parse_sweep_setting("dram.latency_cycles=50:200:+50").values == Values{"50", "100", "150", "200"});
  CHECK(contracts::parse_sweep_setting("dram.bytes_per_cycle=0.5:2:x2").values == Values{"0.5", "1", "2"});
  CHECK(contracts::parse_sweep_setting("sdm.capacity_kib=128").field == "sdm.capacity_kib");
  for (const char* bad : {"dn_bw", "=8", "dn_bw=", "dn_bw=8,,16", "dn_bw=8:64", "dn_bw=8:64:*2", "dn_bw=64:8:x2",
                          "dn_bw=8:64:x1", "dn_bw=0:64:x2", "dn_bw=8:64:+0", "dn_bw=a:64:x2"}) {
    INFO(bad);
    CHECK_THROWS_AS(contracts::parse_sweep_setting(bad), maeri::util::InputError);
  }
  CHECK_THROWS_WITH(contracts::parse_sweep_setting("dn_bw=1:1e9:+1"), Catch::Contains("kMaxSweepAxisValues"));
}

TEST_CASE("grid files: lists and ranges; errors name the line and field", "[sweep]") {
  const TempFile grid_file(
      "kind: sweep\n"
      "grid:\n"
      "  num_ms: {from: 64, to: 256, times: 2}\n"
      "  sdm.capacity_kib: [64, 256]\n");
  const contracts::SweepGrid grid = contracts::load_sweep_grid(grid_file.path());
  REQUIRE(grid.axes.size() == 2);
  CHECK(grid.axes[0].field == "num_ms");
  CHECK(grid.axes[0].values == Values{"64", "128", "256"});
  CHECK(grid.axes[1].values == Values{"64", "256"});

  const TempFile both("kind: sweep\ngrid:\n  dn_bw: {from: 8, to: 64, times: 2, step: 8}\n");
  CHECK_THROWS_WITH(contracts::load_sweep_grid(both.path()), Catch::Contains(":3:") && Catch::Contains("either `times`"));
  const TempFile scalar("kind: sweep\ngrid:\n  dn_bw: 8\n");
  CHECK_THROWS_WITH(contracts::load_sweep_grid(scalar.path()), Catch::Contains("grid.dn_bw") && Catch::Contains("expected a list"));
  const TempFile empty("kind: sweep\ngrid: {}\n");
  CHECK_THROWS_WITH(contracts::load_sweep_grid(empty.path()), Catch::Contains("non-empty map"));
  const TempFile name("kind: sweep\ngrid:\n  name: [a, b]\n");
  CHECK_THROWS_WITH(contracts::load_sweep_grid(name.path()), Catch::Contains("cannot be swept"));
  const TempFile twice("kind: sweep\ngrid:\n  dn_bw: [8]\n  dn_bw: [16]\n");
  CHECK_THROWS_AS(contracts::load_sweep_grid(twice.path()), maeri::util::InputError);
  const TempFile extra("kind: sweep\ngrid:\n  dn_bw: [8]\nbase: x\n");
  CHECK_THROWS_WITH(contracts::load_sweep_grid(extra.path()), Catch::Contains("base"));
}

TEST_CASE("grid expansion: last axis fastest, labels name every field; empty and huge grids refused", "[sweep]") {
  contracts::SweepGrid grid;
  contracts::add_axis(grid, {"num_ms", {"64", "128"}}, "test");
  contracts::add_axis(grid, {"dn_bw", {"8", "16", "32"}}, "test");
  const auto points = contracts::expand_grid(grid, "test");
  REQUIRE(points.size() == 6);
  CHECK(points[0].label == "num_ms=64 dn_bw=8");
  CHECK(points[2].label == "num_ms=64 dn_bw=32");
  CHECK(points[3].label == "num_ms=128 dn_bw=8");
  CHECK(points[5].values == Values{"128", "32"});
  CHECK_THROWS_AS(contracts::add_axis(grid, {"dn_bw", {"4"}}, "test"), maeri::util::InputError);
  CHECK_THROWS_WITH(contracts::expand_grid(contracts::SweepGrid{}, "test"), Catch::Contains("empty grid"));
  contracts::SweepGrid huge;
  for (const char* field : {"a", "b", "c"}) contracts::add_axis(huge, {field, Values(100, "1")}, "test");
  CHECK_THROWS_WITH(contracts::expand_grid(huge, "test"), Catch::Contains("kMaxSweepPoints"));
}

TEST_CASE("applying a point replaces the fields (nested too) and renames the spec", "[sweep]") {
  const YAML::Node base = contracts::load_yaml_file(config("hardware/maeri-64.yaml"));
  contracts::SweepGrid grid;
  contracts::add_axis(grid, {"dn_bw", {"8"}}, "test");
  contracts::add_axis(grid, {"sdm.capacity_kib", {"32"}}, "test");
  const auto points = contracts::expand_grid(grid, "test");
  const YAML::Node document = contracts::apply_point(base, grid, points[0]);
  CHECK(document["dn_bw"].as<int>() == 8);
  CHECK(document["sdm"]["capacity_kib"].as<int>() == 32);
  CHECK(document["name"].as<std::string>() == "maeri-64[dn_bw=8 sdm.capacity_kib=32]");
  CHECK(base["dn_bw"].as<int>() == 16);  // the base is not modified
  contracts::SweepGrid into_scalar;
  contracts::add_axis(into_scalar, {"num_ms.x", {"1"}}, "test");
  CHECK_THROWS_WITH(contracts::apply_point(base, into_scalar, contracts::expand_grid(into_scalar, "test")[0]),
                    Catch::Contains("'num_ms' is not a map"));
}

TEST_CASE("area estimate of an 8-MS instance, by hand", "[sweep]") {
  contracts::Hardware hardware;
  hardware.num_ms = 8;
  hardware.dn_bw = 2;
  hardware.sdm_bytes = 4 * 1024;
  CHECK_FALSE(contracts::estimated_area_um2(hardware).has_value());
  hardware.area_um2 = contracts::AreaTable{100, 10, 1, 1000};
  // 8 MS · 100 + 7 AS · 10 + DN lanes (level 0: 1 switch × min(2, 8) = 2; level 1: 2 × min(2, 4) = 4;
  // level 2: 4 × min(2, 2) = 8 → 14) · 1 + 4 KiB · 1000 = 800 + 70 + 14 + 4000.
  CHECK(*contracts::estimated_area_um2(hardware) == 4884.0);
}

TEST_CASE("Pareto front equals a brute-force dominance filter", "[sweep]") {
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::pair<double, double>> points(1 + random() % 40);
    for (auto& [x, y] : points) {
      x = static_cast<double>(random() % 12);  // small ranges: ties and duplicates happen
      y = static_cast<double>(random() % 12);
    }
    std::vector<std::size_t> expected;
    for (std::size_t i = 0; i < points.size(); ++i) {
      bool dominated = false;
      for (const auto& other : points)
        dominated = dominated || (other.first <= points[i].first && other.second <= points[i].second && other != points[i]);
      if (!dominated) expected.push_back(i);
    }
    std::vector<std::size_t> front = flow::pareto_front(points);
    std::sort(front.begin(), front.end());
    CHECK(front == expected);
  }
}

TEST_CASE("a design point's totals without fusion are the sums of independent best-mapping searches", "[sweep]") {
  const contracts::Network network = contracts::load_workload(config("workloads/tiny.yaml"));
  for (const char* file : {"hardware/maeri-64.yaml", "hardware/maeri-256.yaml"}) {
    flow::DesignPoint point;
    point.hardware = contracts::load_hardware(config(file));
    flow::PointMapping how{mapper::Objective::EnergyDelay, codegen::exact_traffic_for, true, true, {}};
    how.fusion = false;
    flow::evaluate_design_point(point, network, how);
    REQUIRE_FALSE(point.error);
    CHECK(point.fused_groups() == 0);
    double cycles = 0, energy = 0;
    std::int64_t macs = 0;
    for (const contracts::Layer& layer : network.layers) {
      // As `maeri map` searches by default (the joint space), on one thread.
      mapper::SearchOptions options = mapper::map_search_options(mapper::Objective::EnergyDelay, 1,
                                                                 codegen::exact_traffic_for(layer, point.hardware));
      options.threads = 1;
      const auto result = flow::search_exactly(layer, point.hardware, options);  // ranked by exact cycles, as map does
      cycles += result.best.front().cycles.total;
      energy += result.best.front().energy_pj.total;
      macs += layer.macs();
    }
    CHECK(point.cycles == cycles);
    CHECK(point.energy_pj == energy);
    CHECK(point.utilisation == static_cast<double>(macs) / (static_cast<double>(point.hardware.num_ms) * cycles));
    CHECK(point.area_um2 == contracts::estimated_area_um2(point.hardware));
  }
}

TEST_CASE("a design point is map's decision: its fused groups, no worse than every layer alone", "[sweep]") {
  const contracts::Network network = contracts::load_workload(config("workloads/tiny.yaml"));
  for (const mapper::Objective objective : {mapper::Objective::Runtime, mapper::Objective::Energy}) {
    flow::DesignPoint fused, alone;
    fused.hardware = alone.hardware = contracts::load_hardware(config("hardware/maeri-64.yaml"));
    flow::evaluate_design_point(fused, network, {objective, codegen::exact_traffic_for, true, true, {}});
    flow::PointMapping how{objective, codegen::exact_traffic_for, true, true, {}};
    how.fusion = false;
    flow::evaluate_design_point(alone, network, how);
    REQUIRE_FALSE(fused.error);
    // `maeri map` of tiny on maeri-64 forms one fused group under both objectives (its summary's "fusion:" line).
    REQUIRE(fused.decision.fused_groups.size() == 1);
    CHECK(fused.fused_groups() == 1);
    const contracts::FusedGroupEntry& group = fused.decision.fused_groups.front();
    for (std::size_t l = 0; l < network.layers.size(); ++l) {
      const bool member = std::count(group.layers.begin(), group.layers.end(), network.layers[l].name) == 1;
      CHECK(fused.groups[l] == (member ? group.name : std::string()));
      CHECK(fused.chosen[l].mapping == fused.decision.layers[l].mapping);
    }
    double cycles = 0, energy = 0;
    for (const contracts::CostReport& report : fused.chosen) {
      cycles += report.cycles.total;
      energy += report.energy_pj.total;
    }
    CHECK(fused.cycles == Approx(cycles).epsilon(1e-12));  // the totals are the members' costs in their roles
    CHECK(fused.energy_pj == Approx(energy).epsilon(1e-12));
    if (objective == mapper::Objective::Runtime) CHECK(fused.cycles <= alone.cycles);
    else CHECK(fused.energy_pj <= alone.energy_pj);
    CHECK(fused.dram_bytes < alone.dram_bytes);  // the fc's input stays in the SDM
  }
}

TEST_CASE("a design point's results cross a process boundary as JSON bit for bit", "[sweep]") {
  const contracts::Network network = contracts::load_workload(config("workloads/tiny.yaml"));
  flow::DesignPoint point;
  point.hardware = contracts::load_hardware(config("hardware/maeri-64.yaml"));
  flow::evaluate_design_point(point, network, {mapper::Objective::Runtime, codegen::exact_traffic_for, true, true, {}});
  REQUIRE(point.fused_groups() == 1);
  const nlohmann::json sent = flow::design_point_results_to_json(point);
  flow::DesignPoint received;
  flow::design_point_results_from_json(received, nlohmann::json::parse(sent.dump()));
  CHECK(received.cycles == point.cycles);
  CHECK(received.energy_pj == point.energy_pj);
  CHECK(received.utilisation == point.utilisation);
  CHECK(received.dram_bytes == point.dram_bytes);
  CHECK(received.area_um2 == point.area_um2);
  CHECK(received.groups == point.groups);
  REQUIRE(received.chosen.size() == point.chosen.size());
  for (std::size_t l = 0; l < point.chosen.size(); ++l) {
    CHECK(received.chosen[l].mapping == point.chosen[l].mapping);
    CHECK(mapper::to_json(received.chosen[l]) == mapper::to_json(point.chosen[l]));  // every field to_json writes
  }
  CHECK(flow::design_point_results_to_json(received) == sent);
}
