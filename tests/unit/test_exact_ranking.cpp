// `maeri map`'s ranking by exact cycles with DRAM (flow/exact_ranking.hpp): the bound it prunes with never exceeds
// the exact cycles (random layers, mappings, SDMs, DRAM channels, fractional model parameters); on tiny's fc layer,
// where the fluid estimate's tie-break puts a slower mapping first, the list is the order that independent replays
// give; the list does not depend on the threads. The expected cycles come from timing/'s replay called here directly
// (program → memory plan → replay with ideal memory and with DRAM), not through flow/.
#include <catch2/catch.hpp>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "codegen/exact_traffic.hpp"
#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/sdm_budget.hpp"
#include "contracts/spec_loader.hpp"
#include "flow/exact_ranking.hpp"
#include "flow/layer_mappings.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/model/timing_bound.hpp"
#include "timing/exact_timing.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"
#include "../random_layers.hpp"
#include "mapper_fixtures.hpp"
#include "random_mappings.hpp"

using namespace maeri;

namespace {

// The exact cycles with DRAM of one mapping, as the cross-check computes them: the report's compute cycles plus what
// the replay with DRAM takes beyond the replay with ideal memory.
double replayed_cycles(const contracts::Layer& layer, const contracts::Hardware& hardware, const contracts::Mapping& mapping,
                       double compute) {
  const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
  const timing::MemoryPlan plan = timing::plan_memory(program, hardware, codegen::random_tensors(layer, hardware.data_width, 7));
  const timing::MemoryReplay replay = timing::replay_memory(
      program, plan, hardware, hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency,
      std::uint64_t(hardware.dram_latency_cycles));
  return compute + (double(replay.cycles) - double(timing::replay_compute(program, plan, hardware)));
}

contracts::Layer random_plain_layer(std::mt19937_64& rng) {
  const auto pick = [&rng](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(rng() % std::uint64_t(hi - lo + 1)); };
  contracts::Layer layer = test::conv_layer(pick(1, 12), pick(1, 12), pick(1, 3), pick(1, 3), 0, 0, pick(1, 2),
                                            pick(0, 1), pick(1, 2));
  layer.X = layer.R + pick(0, 7);
  layer.Y = layer.S + pick(0, 7);
  return layer;
}

std::string config(const std::string& relative) { return std::string(MAERI_SOURCE_DIR) + "/configs/" + relative; }

contracts::Layer tiny_layer(const std::string& name) {
  const contracts::Network network = contracts::load_workload(config("workloads/tiny.yaml"));
  return *std::find_if(network.layers.begin(), network.layers.end(),
                       [&](const contracts::Layer& layer) { return layer.name == name; });
}

}  // namespace

TEST_CASE("exact ranking: the timing bound never exceeds the exact cycles with DRAM", "[ranking]") {
  std::mt19937_64 rng(45);
  std::mt19937 pick_rng(45);
  int timed = 0, streaming = 0, channel_bound = 0, latency_bound = 0, fractional = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t num_ms = 8 << (rng() % 4);
    contracts::Hardware hardware = test::small_hardware(num_ms, std::min<std::int64_t>(num_ms, 1 << (rng() % 4)),
                                                        std::min<std::int64_t>(num_ms, 1 << (rng() % 4)));
    hardware.config_bw = 16 << (rng() % 4);
    hardware.sdm_bytes = std::int64_t(256) << (rng() % 7);
    hardware.dram_bytes_per_cycle = double(1 + rng() % 16) / double(1 + rng() % 4);
    hardware.dram_latency_cycles = std::int64_t(rng() % (trial % 2 ? 40 : 300));
    hardware.model.dram_efficiency = 0.5 + 0.5 * double(rng() % 2);
    if (trial % 3 == 0) {  // calibrated, non-integer parameters: the bound's rounding slack
      hardware.model.dn_level_latency = 0.7 + 0.1 * double(rng() % 8);
      hardware.model.collect_latency = 1.5 + 0.25 * double(rng() % 4);
      hardware.model.config_words_per_cycle = 0.75 + 0.25 * double(rng() % 4);
      hardware.model.step_overhead = 0.1 * double(rng() % 3);
      ++fractional;
    }
    const contracts::Layer layer = trial % 3 == 1 ? test::random_layer_of_new_kind(rng) : random_plain_layer(rng);
    contracts::Mapping mapping = test::random_mapping(layer, num_ms, pick_rng);
    if (rng() % 2) mapping.sdm = contracts::SdmLevel{};  // single-level: streams when the SDM cannot hold a slice
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " mapping " << contracts::to_string(mapping)
                  << " on " << num_ms << " MS, SDM " << hardware.sdm_bytes << " B, DRAM " << hardware.dram_bytes_per_cycle
                  << " B/cycle × " << hardware.model.dram_efficiency);
    if (contracts::mapping_violation(layer, hardware, mapping)) continue;  // e.g. an SDM level the SDM cannot hold
    const contracts::CostReport report = mapper::evaluate(layer, hardware, mapping);
    double exact = 0;
    try {
      exact = replayed_cycles(layer, hardware, mapping, report.cycles.compute());
    } catch (const std::invalid_argument&) {
      continue;  // one event's data does not fit the stream buffer: the co-simulation refuses it too
    }
    ++timed;
    const double bound = mapper::exact_cycles_lower_bound(report, hardware);
    CHECK(bound <= exact);
    streaming += !mapping.sdm.blocked && !contracts::sdm_budget(layer, hardware, mapping).resident;
    channel_bound += bound > report.cycles.compute();
    const double bandwidth = hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency;
    latency_bound += bound > report.cycles.compute() && bound > 1 + std::ceil(double(report.counts.dram_bytes) / bandwidth);
  }
  CHECK(timed > 200);
  CHECK(streaming > 30);       // the SDM streams: partial sums and refetched inputs through DRAM
  CHECK(channel_bound > 30);   // the channel's terms, not the compute cycles, are the bound
  CHECK(latency_bound > 20);   // of those, the last read's latency term
  CHECK(fractional >= 100);
}

TEST_CASE("exact ranking: ideal-memory cycles of the exact model equal the model's compute cycles", "[ranking]") {
  // What makes the bound's first term sound with the nominal parameters (docs/model.md, "Which model decides what");
  // the replay tests check it on 400 more random cases (tests/rtl/test_memory_replay.cpp).
  const contracts::Hardware hardware = contracts::load_hardware(config("hardware/maeri-64.yaml"));
  for (const std::string name : {"conv1", "conv2", "conv3_1x1", "fc"}) {
    const contracts::Layer layer = tiny_layer(name);
    for (const contracts::CostReport& report : flow::best_mappings(layer, hardware, mapper::Objective::Runtime, 8).best) {
      INFO(name << " " << contracts::to_string(report.mapping));
      CHECK(flow::exact_layer_timing(layer, hardware, report.mapping).compute_cycles == report.cycles.compute());
    }
  }
}

TEST_CASE("exact ranking: tiny's fc, where the fluid tie-break picks a slower mapping, ranked by independent replays",
          "[ranking]") {
  const contracts::Hardware hardware = contracts::load_hardware(config("hardware/maeri-64.yaml"));
  const contracts::Layer layer = tiny_layer("fc");
  const int top = 8;
  // The fluid ranking as `maeri map` had it: its #1 ties the fastest in the estimate and is slower on the replay.
  mapper::SearchOptions fluid_options =
      mapper::map_search_options(mapper::Objective::Runtime, 256, codegen::exact_traffic_for(layer, hardware));
  const std::vector<contracts::CostReport> fluid = mapper::search(layer, hardware, fluid_options).best;
  const auto exact_of = [&](const contracts::CostReport& report) {
    return replayed_cycles(layer, hardware, report.mapping, report.cycles.compute());
  };
  double fastest_of_fluid_top = exact_of(fluid.front());
  for (int i = 1; i < top; ++i) fastest_of_fluid_top = std::min(fastest_of_fluid_top, exact_of(fluid[std::size_t(i)]));
  REQUIRE(exact_of(fluid.front()) > fastest_of_fluid_top);  // the case the exact ranking is for

  const mapper::SearchResult ranked = flow::best_mappings(layer, hardware, mapper::Objective::Runtime, top);
  REQUIRE(ranked.best.size() == std::size_t(top));
  CHECK(ranked.exact_ranking.proven);
  // Expected: the reports' own cycles replaced by independent replays, ordered by objective, cycles, energy, DRAM
  // bytes, mapping.
  std::vector<contracts::CostReport> expected;
  for (contracts::CostReport report : ranked.best) {
    const double cycles = exact_of(report);
    CHECK(report.cycles.total == cycles);
    timing::set_memory_stall(report, cycles - report.cycles.compute(), hardware);
    expected.push_back(report);
  }
  std::stable_sort(expected.begin(), expected.end(), [](const contracts::CostReport& a, const contracts::CostReport& b) {
    if (a.cycles.total != b.cycles.total) return a.cycles.total < b.cycles.total;
    if (a.energy_pj.total != b.energy_pj.total) return a.energy_pj.total < b.energy_pj.total;
    if (a.counts.dram_bytes != b.counts.dram_bytes) return a.counts.dram_bytes < b.counts.dram_bytes;
    return a.mapping < b.mapping;
  });
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("#" << i + 1);
    CHECK(ranked.best[i].mapping == expected[i].mapping);
  }
  // Nothing among the fluid estimate's 256 best is exactly faster than the list's last, unless it is in the list.
  CHECK(ranked.best.front().cycles.total <= fastest_of_fluid_top);
  int beaten = 0;
  for (const contracts::CostReport& report : fluid) {
    const bool listed = std::any_of(ranked.best.begin(), ranked.best.end(),
                                    [&](const contracts::CostReport& kept) { return kept.mapping == report.mapping; });
    if (!listed && exact_of(report) < ranked.best.back().cycles.total) ++beaten;
  }
  CHECK(beaten == 0);
}

TEST_CASE("exact ranking: the list does not depend on the number of threads", "[ranking]") {
  const contracts::Hardware hardware = contracts::load_hardware(config("hardware/maeri-64.yaml"));
  const contracts::Layer layer = tiny_layer("conv2");
  const auto ranked_with = [&](int threads) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
    return flow::best_mappings(layer, hardware, mapper::Objective::EnergyDelay, 8).best;
  };
  const std::vector<contracts::CostReport> one = ranked_with(1), two = ranked_with(2), again = ranked_with(2);
  REQUIRE(one.size() == two.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    CHECK(one[i].mapping == two[i].mapping);
    CHECK(one[i].cycles.total == two[i].cycles.total);
    CHECK(two[i].mapping == again[i].mapping);
  }
}

TEST_CASE("exact ranking: a list the replay budget ends is the same however many threads time ahead", "[ranking]") {
  // ResNet-50's res2a_branch2b (3x3, 64 -> 64 at 56x56) on 64 MS: every mapping runs ~1.8 M cycles, so the budget
  // (flow::kExactTimingBudgetCycles, 2.5 M) ends the ranking after the second candidate in the bound's order. The
  // replays run ahead in batches of the arena's concurrency: with 1 thread two are timed, with 4 a batch of four.
  // What the budget counts is charged in the candidates' order, so both must use exactly the first two.
  const contracts::Hardware hardware = contracts::load_hardware(config("hardware/maeri-64.yaml"));
  contracts::Layer layer;
  layer.name = "res2a_branch2b";
  layer.K = layer.C = 64;
  layer.R = layer.S = 3;
  layer.X = layer.Y = 56;
  layer.padding_x = layer.padding_y = 1;
  const auto ranked_in = [&](int threads) {
    tbb::task_arena arena(threads);
    mapper::SearchResult result;
    arena.execute([&] { result = flow::best_mappings(layer, hardware, mapper::Objective::Runtime, 4); });
    return result;
  };
  const mapper::SearchResult one = ranked_in(1), four = ranked_in(4);
  REQUIRE_FALSE(one.exact_ranking.proven);  // the budget, not the bound, ended it
  CHECK(one.exact_ranking.timed == 2);      // ceil(2.5 M / ~1.8 M per candidate)
  CHECK(four.exact_ranking.timed == one.exact_ranking.timed);
  REQUIRE(one.best.size() == four.best.size());
  for (std::size_t i = 0; i < one.best.size(); ++i) {
    CHECK(one.best[i].mapping == four.best[i].mapping);
    CHECK(one.best[i].cycles.total == four.best[i].cycles.total);
  }
}

TEST_CASE("exact ranking: the memory estimate of a timing covers the program and the plan it builds", "[ranking]") {
  // timing::exact_timing_bytes bounds what a batch of timings may hold (flow::kExactTimingBatchBytes). It is computed
  // from the mapping alone (codegen::planned_work); the expected floor here is what is really built: the program's
  // phases and step origins and the plan's events, counted from the vectors themselves.
  std::mt19937_64 rng(4512);
  std::mt19937 pick_rng(4512);
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t num_ms = 8 << (rng() % 4);
    const contracts::Hardware hardware = test::small_hardware(num_ms, std::min<std::int64_t>(num_ms, 4), std::min<std::int64_t>(num_ms, 4));
    const contracts::Layer layer = trial % 2 ? test::random_layer_of_new_kind(rng) : random_plain_layer(rng);
    contracts::Mapping mapping = test::random_mapping(layer, num_ms, pick_rng);
    if (rng() % 2) mapping.sdm = contracts::SdmLevel{};
    if (contracts::mapping_violation(layer, hardware, mapping)) continue;
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
    const timing::MemoryPlan plan = timing::plan_memory(program, hardware);
    std::size_t built = program.phases.size() * sizeof(codegen::WeightPhase) + plan.events.size() * sizeof(timing::MemoryEvent);
    for (const codegen::WeightPhase& phase : program.phases) built += phase.steps.size() * sizeof(codegen::StepOrigin);
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " mapping " << contracts::to_string(mapping));
    CHECK(timing::exact_timing_bytes(layer, mapping) >= std::int64_t(built));
    ++checked;
  }
  CHECK(checked > 100);
}
