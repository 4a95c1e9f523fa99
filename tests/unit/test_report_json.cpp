// The JSON of a CostReport (mapper/model/report_json), on the reports `maeri map` writes: the cycle parts it holds
// add up to the model's total (docs/model.md, "Cycles": every part of the total is in the JSON), the reader gives
// back the report the writer was given, every activity count is written under its one name, and the CSV's header
// and rows have the same columns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "codegen/exact_traffic.hpp"
#include "contracts/spec_loader.hpp"
#include "importer/network_loader.hpp"
#include "mapper/mapspace/tile_space.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/model/report_json.hpp"
#include "mapper/search/search.hpp"
#include "mapper_fixtures.hpp"

using namespace maeri;

namespace {

std::string config(const std::string& relative) { return std::string(MAERI_SOURCE_DIR) + "/configs/" + relative; }

// The best mappings `maeri map` reports for every layer of the workload: the search with exact traffic, under each
// objective, in the joint space and in the fabric tiles alone.
std::vector<contracts::CostReport> map_reports(const contracts::Hardware& hardware, const std::string& workload,
                                               int top) {
  std::vector<contracts::CostReport> reports;
  for (const contracts::Layer& layer : importer::load_network(workload).layers)
    for (const mapper::Objective objective :
         {mapper::Objective::Runtime, mapper::Objective::Energy, mapper::Objective::EnergyDelay})
      for (const bool two_level : {true, false}) {
        const mapper::SearchResult found = mapper::search(
            layer, hardware,
            mapper::map_search_options(objective, top, codegen::exact_traffic_for(layer, hardware), two_level));
        reports.insert(reports.end(), found.best.begin(), found.best.end());
      }
  return reports;
}

// Every fabric tile of a small layer on a fabric with one output lane, each costed as `map --tile` does: the many
// VNs of large filter tiles hold fires back, which the next phase's weights overlap.
std::vector<contracts::CostReport> every_tile_reports() {
  const contracts::Hardware hardware = test::small_hardware(16, 2, 1);
  const contracts::Layer layer = test::conv_layer(4, 3, 3, 3, 6, 6);
  const mapper::TileSpace space(layer, hardware);
  std::vector<contracts::CostReport> reports;
  for (const mapper::TileSpace::Prefix& prefix : space.prefixes())
    space.enumerate_outputs(prefix, [&](const contracts::Mapping& tile) {
      reports.push_back(mapper::evaluate(layer, hardware, tile));
      codegen::refine_with_exact_traffic(reports.back(), layer, hardware);
    });
  return reports;
}

// The shipped tiny network on maeri-64, a layer on a fabric whose SDM is too small to keep it resident (so the
// memory stall and the SDM level's extra phases and configurations show up), and every tile of a small layer.
std::vector<contracts::CostReport> reports_under_test() {
  std::vector<contracts::CostReport> reports =
      map_reports(contracts::load_hardware(config("hardware/maeri-64.yaml")), config("workloads/tiny.yaml"), 4);
  contracts::Hardware tight = test::small_hardware(32, 4, 2);
  tight.sdm_bytes = 256;
  const contracts::Layer layer = test::conv_layer(12, 6, 3, 3, 10, 10);
  for (const mapper::Objective objective : {mapper::Objective::Runtime, mapper::Objective::Energy}) {
    const mapper::SearchResult found = mapper::search(
        layer, tight, mapper::map_search_options(objective, 8, codegen::exact_traffic_for(layer, tight)));
    reports.insert(reports.end(), found.best.begin(), found.best.end());
  }
  const std::vector<contracts::CostReport> every_tile = every_tile_reports();
  reports.insert(reports.end(), every_tile.begin(), every_tile.end());
  return reports;
}

}  // namespace

TEST_CASE("report JSON: the cycle parts of map's reports add up to the model's total", "[report][json]") {
  const std::vector<contracts::CostReport> reports = reports_under_test();
  REQUIRE(reports.size() >= 50);
  // Coverage: every part that can be non-zero is, in some report.
  int overlapping = 0, stalled = 0, reconfigured = 0;
  for (const contracts::CostReport& report : reports) {
    INFO(contracts::to_string(report.mapping));
    const nlohmann::json cycles = mapper::to_json(report).at("cycles");
    double parts = 0;
    int part_count = 0;
    for (const auto& [part, value] : cycles.items())
      if (part != "total") parts += value.get<double>(), ++part_count;
    CHECK(part_count == 7);  // docs/model.md: streaming, weight_load, phase_overlap, fill_drain, control_overhead,
                             // reconfiguration, memory_stall
    CHECK(parts == Approx(report.cycles.total).epsilon(1e-12));
    CHECK(cycles.at("total").get<double>() == report.cycles.total);
    overlapping += report.cycles.phase_overlap != 0;
    stalled += report.cycles.memory_stall > 0;
    reconfigured += report.counts.configurations > 1;
  }
  CHECK(overlapping > 0);
  CHECK(stalled > 0);
  CHECK(reconfigured > 0);
}

TEST_CASE("report JSON: the reader gives back the report the writer was given", "[report][json]") {
  for (const contracts::CostReport& report : reports_under_test()) {
    INFO(contracts::to_string(report.mapping));
    const nlohmann::json json = mapper::to_json(report);
    const contracts::CostReport back = mapper::cost_report_from_json(json);
    CHECK(mapper::to_json(back) == json);
    CHECK(back.mapping.tile.size == report.mapping.tile.size);
    CHECK(back.mapping.sdm.blocked == report.mapping.sdm.blocked);
    CHECK(back.mapping.sdm.block == report.mapping.sdm.block);
    CHECK(back.mapping.sdm.order == report.mapping.sdm.order);
    CHECK(back.mapping.phase_order == report.mapping.phase_order);
    CHECK(back.vn_size == report.vn_size);
    CHECK(back.vn_count == report.vn_count);
    CHECK(back.idle_ms == report.idle_ms);
    CHECK(back.reduction_folds == report.reduction_folds);
    CHECK(back.dn_limited_steps == report.dn_limited_steps);
    CHECK(back.rn_limited_steps == report.rn_limited_steps);
    CHECK(back.uses_forwarding == report.uses_forwarding);
    CHECK(back.sdm_resident == report.sdm_resident);
    CHECK(back.compulsory_dram_bytes == report.compulsory_dram_bytes);
    CHECK(back.peak_utilisation == report.peak_utilisation);
    CHECK(back.average_utilisation == report.average_utilisation);
    CHECK(back.compute_efficiency == report.compute_efficiency);
    CHECK(back.cycles.streaming == report.cycles.streaming);
    CHECK(back.cycles.weight_load == report.cycles.weight_load);
    CHECK(back.cycles.phase_overlap == report.cycles.phase_overlap);
    CHECK(back.cycles.fill_drain == report.cycles.fill_drain);
    CHECK(back.cycles.control_overhead == report.cycles.control_overhead);
    CHECK(back.cycles.reconfiguration == report.cycles.reconfiguration);
    CHECK(back.cycles.memory_stall == report.cycles.memory_stall);
    CHECK(back.cycles.total == report.cycles.total);
    for (const contracts::ActivityCountInfo& count : contracts::kActivityCounts) {
      INFO(count.name);
      CHECK(back.counts.*count.field == report.counts.*count.field);
    }
    CHECK(back.energy_pj.multiply == report.energy_pj.multiply);
    CHECK(back.energy_pj.add == report.energy_pj.add);
    CHECK(back.energy_pj.dn == report.energy_pj.dn);
    CHECK(back.energy_pj.mn == report.energy_pj.mn);
    CHECK(back.energy_pj.rn == report.energy_pj.rn);
    CHECK(back.energy_pj.sdm == report.energy_pj.sdm);
    CHECK(back.energy_pj.dram == report.energy_pj.dram);
    CHECK(back.energy_pj.total == report.energy_pj.total);
  }
}

TEST_CASE("report JSON: every activity count under its one name, and the CSV's header and rows agree", "[report][json]") {
  const contracts::CostReport report = reports_under_test().front();
  const nlohmann::json counts = mapper::to_json(report).at("counts");
  CHECK(counts.size() == std::size(contracts::kActivityCounts));
  for (const contracts::ActivityCountInfo& count : contracts::kActivityCounts) {
    INFO(count.name);
    CHECK(counts.at(count.name).get<std::int64_t>() == report.counts.*count.field);
  }
  const auto columns = [](const std::string& line) { return std::count(line.begin(), line.end(), ',') + 1; };
  CHECK(columns(mapper::csv_header()) == columns(mapper::csv_row(report)));
  CHECK_THAT(mapper::csv_header(), Catch::Contains("additions,accumulation_additions,dn_traversals,"));
  // A table with a grouped layer has T_G right after the tile's sizes; a table without keeps its columns.
  CHECK_THAT(mapper::csv_header(), Catch::StartsWith("T_R,T_S,T_C,T_K,T_N,T_X,T_Y,vn_size,"));
  CHECK_THAT(mapper::csv_header(true), Catch::StartsWith("T_R,T_S,T_C,T_K,T_N,T_X,T_Y,T_G,vn_size,"));
  contracts::CostReport grouped = report;
  grouped.mapping.tile.groups = 16;
  CHECK(columns(mapper::csv_header(true)) == columns(mapper::csv_row(grouped, true)));
  const auto fields = [](const std::string& line) {
    std::vector<std::string> list(1);
    for (const char c : line) {
      if (c == ',')
        list.emplace_back();
      else
        list.back().push_back(c);
    }
    return list;
  };
  std::vector<std::string> with_groups = fields(mapper::csv_row(grouped, true));
  CHECK(with_groups[contracts::kNumTileDims] == "16");
  with_groups.erase(with_groups.begin() + contracts::kNumTileDims);
  CHECK(with_groups == fields(mapper::csv_row(grouped)));
}
