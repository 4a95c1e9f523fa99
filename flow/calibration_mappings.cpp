// The mappings a calibration co-simulates (see calibration_mappings.hpp).
#include "flow/calibration_mappings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <set>

#include "mapper/mapspace/tile_space.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/search/search.hpp"

namespace maeri::flow {

std::vector<std::pair<contracts::Mapping, std::string>> calibration_mappings(const contracts::Layer& layer,
                                                                         const contracts::Hardware& hardware, int top,
                                                                         int spread, std::uint64_t seed,
                                                                         double max_cycles) {
  std::vector<std::pair<contracts::Mapping, std::string>> tiles;
  std::set<std::string> chosen;
  // The cases come from the space the mRNA pruning rules leave when it has tiles (the case set the parameter
  // selection is validated on, tests/rtl/test_calibration.cpp), else from the raw Eq. 1 space.
  const mapper::RuleSet rules = mapper::TileSpace(layer, hardware, mapper::RuleSet::all()).count() > 0
                                    ? mapper::RuleSet::all()
                                    : mapper::RuleSet();
  const mapper::SearchResult best = mapper::search(layer, hardware, {mapper::Objective::Runtime, top, 0, rules});
  for (size_t i = 0; i < best.best.size(); ++i) {
    tiles.push_back({best.best[i].mapping, fmt::format("top {}", i + 1)});
    chosen.insert(contracts::to_string(best.best[i].mapping));
  }
  // Reservoir sample of the remaining tiles that co-simulate in reasonable time.
  std::mt19937_64 rng(seed);
  std::vector<contracts::CostReport> reservoir;  // each sampled tile with its model report (the tile is in it)
  std::uint64_t eligible = 0;
  const mapper::TileSpace space(layer, hardware, rules);
  for (const auto& prefix : space.prefixes())
    space.enumerate_outputs(prefix, [&](const contracts::Mapping& tile) {
      if (chosen.count(contracts::to_string(tile))) return;
      const contracts::CostReport report = mapper::evaluate(layer, hardware, tile);
      if (report.cycles.compute() > max_cycles) return;
      ++eligible;
      if (int(reservoir.size()) < spread) {
        reservoir.push_back(report);
      } else {
        const std::uint64_t slot = rng() % eligible;
        if (slot < std::uint64_t(spread)) reservoir[slot] = report;
      }
    });
  std::sort(reservoir.begin(), reservoir.end(), [](const contracts::CostReport& a, const contracts::CostReport& b) {
    return a.cycles.total < b.cycles.total;
  });
  for (const contracts::CostReport& report : reservoir) tiles.push_back({report.mapping, "spread"});
  return tiles;
}

}  // namespace maeri::flow
