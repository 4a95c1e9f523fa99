// Random co-simulation regression: random layers (conv with stride 1/2 and padding, FC; and grouped, depthwise,
// dilated, per-axis and GEMM layers) × random legal mappings
// on each Verilated fabric size, every run bit-exact against the reference convolution, compute cycles and every
// activity count exactly as the model predicts, and the model's cycles with DRAM (its memory replay,
// timing/memory_replay.hpp) exactly the co-simulation's with the SDM and DRAM models (in half of the cases a DRAM
// device preset: rows, turnaround, refresh); each regression prints its
// worst cycles-with-DRAM case. Seeded: set MAERI_SEED to reproduce a printed seed.
// Quick set (label rtl): 3 sizes × 17 cases. Long set (label long): 6 sizes × 170 cases. The two-level variant
// gives every mapping a random SDM level (SDM tile from the search's candidates, any of the 120 loop orders) and
// an SDM from just large enough for one block to roomy (docs/mapping.md, "SDM level"): quick 3 sizes × 12 cases,
// long 6 sizes × 120 cases. The filters-outer variants run single-level and two-level mappings in that phase order
// (docs/mapping.md, "Phase order"): quick 2 × 12 cases, long 2 × 120.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>

#include "codegen/exact_traffic.hpp"
#include "codegen/image_program.hpp"
#include "fabric_fixtures.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/search/search.hpp"
#include "../random_layers.hpp"
#include "../unit/mapper_fixtures.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "contracts/dram_presets.hpp"
#include "contracts/sdm_rules.hpp"
#include "sim/fabric_variants.hpp"
#include "sim/layer_runner.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"
#include "util/integer_math.hpp"
#include "testbench/cross_check.hpp"

using namespace maeri;

namespace {

std::uint64_t seed_for(std::uint64_t fallback) {
  const char* text = std::getenv("MAERI_SEED");
  return text ? std::strtoull(text, nullptr, 10) : fallback;
}

// Memory: an SDM from barely above one step's needs (streaming) to roomy (resident), DRAM from starved to
// generous, so that both residency modes and both compute- and DRAM-bound runs occur.
template <class Driver>
void randomise_memory(contracts::Hardware& hardware, std::mt19937_64& rng) {
  const int levels = maeri::util::ceil_log2(Driver::kNumMs);
  const std::int64_t sdm_extra[] = {8, 32, 1024};
  const double dram_rates[] = {2, 4.5, 16, 64};
  const std::int64_t latencies[] = {0, 20, 100};
  hardware.sdm_bytes = ((2 * levels + 3) * Driver::kRnBw + 2 * Driver::kNumMs) * 4 +
                       sdm_extra[rng() % 3] * Driver::kNumMs;
  hardware.dram_bytes_per_cycle = dram_rates[rng() % 4];
  hardware.dram_latency_cycles = latencies[rng() % 3];
  // Half of the cases with a DRAM device (a preset at the spec's clock: banks, rows, turnaround, refreshes), which
  // the co-simulation and the model's replay both run, so the cycles with DRAM stay exact.
  const std::vector<contracts::DramDevice>& presets = contracts::dram_presets();
  const std::size_t device = std::size_t(rng() % (2 * presets.size()));
  hardware.dram_device.reset();
  if (device < presets.size()) hardware.dram_device = presets[device];
}

using tests::random_small_tile;

// What one co-simulated case leaves for the statistics: the model's report, the run with the SDM/DRAM models and
// the cross-check rows.
struct CaseRuns {
  contracts::CostReport model;
  sim::RtlLayerRun with_memory;
  std::vector<testbench::CrossCheckRow> rows;
};

// One case: the image round trip (encode, decode, expand), the RTL with ideal memory and with the SDM/DRAM models,
// both bit-exact against the reference convolution, and the compute cycles and every activity count of the
// cross-check exactly the model's (the model follows the RTL and the SDM); only the cycles with DRAM and the
// memory stalls are estimates.
template <class Driver>
CaseRuns co_simulate_case(Driver& fabric, sim::MemorySystem& memory, const contracts::Layer& layer,
                          const contracts::Hardware& hardware, const contracts::Mapping& tile, std::uint64_t tensor_seed) {
  INFO(contracts::shape_text(layer) << " tile " << contracts::to_string(tile) << " on " << Driver::kNumMs << " MS; SDM "
                               << hardware.sdm_bytes << " B, DRAM " << hardware.dram_bytes_per_cycle
                               << " B/cycle, latency " << hardware.dram_latency_cycles);
  const codegen::LayerProgram program = codegen::expand_image(
      codegen::decode_image(codegen::encode_image(codegen::build_image(codegen::plan_layer(layer, hardware, tile),
                                                                       hardware)),
                            "case"),
      "case");
  const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, tensor_seed);
  const std::vector<std::int64_t> reference = codegen::reference_convolution(layer, tensors, hardware.acc_width);
  const sim::RtlLayerRun rtl = sim::LayerRunner<Driver>(fabric).run(program, tensors);
  REQUIRE(rtl.output == reference);
  CaseRuns runs;
  runs.with_memory = sim::LayerRunner<Driver>(fabric).run(
      program, tensors, memory, timing::plan_memory(program, hardware, tensors),
      sim::dram_timing_of(hardware));
  REQUIRE(runs.with_memory.output == reference);
  runs.model = mapper::evaluate(layer, hardware, tile);
  codegen::refine_with_exact_traffic(runs.model, layer, hardware);
  timing::refine_with_memory_replay(runs.model, program, tensors, hardware);
  runs.rows = testbench::cross_check(runs.model, {&rtl, &runs.with_memory}, hardware);
  for (const auto& row : runs.rows) {
    INFO(row.metric << ": model " << row.model << ", co-simulation " << row.rtl);
    CHECK(row.error() == 0.0);
  }
  return runs;
}

template <class Driver>
void regression(int cases, std::uint64_t default_seed, bool two_level = false,
                bool filters_outer = false) {
  const std::uint64_t seed = seed_for(default_seed);
  std::cout << (filters_outer ? "filters-outer " : "") << (two_level ? "two-level regression on " : "regression on ")
            << Driver::kNumMs << " MS: " << cases
            << " cases, seed " << seed
            << " (MAERI_SEED=" << seed << " reproduces it)\n";
  std::mt19937_64 rng(seed);
  contracts::Hardware hardware = tests::fabric_hardware<Driver>("regression");
  hardware.energy_pj = {0.8, 0.1, 0.15, 0.05, 0.3, 0.05, 5, 5, 160};
  Driver fabric(50000);
  sim::MemorySystem memory;
  fabric.attach(memory);
  double sum_error = 0, max_error = 0, sum_total_error = 0, max_total_error = 0;
  std::string worst_case = "none";
  int counted = 0, memory_runs = 0, order_matters = 0;
  for (int trial = 0; trial < cases; ++trial) {
    contracts::Layer layer;
    layer.name = "random" + std::to_string(trial);
    if (rng() % 5 == 0) {
      layer.type = contracts::LayerType::FullyConnected;
      layer.K = 1 + std::int64_t(rng() % 24);
      layer.C = 1 + std::int64_t(rng() % 64);
    } else {
      layer.R = 1 + std::int64_t(rng() % 3);
      layer.S = 1 + std::int64_t(rng() % 3);
      layer.X = layer.R + std::int64_t(rng() % 6);
      layer.Y = layer.S + std::int64_t(rng() % 6);
      layer.K = 1 + std::int64_t(rng() % 6);
      layer.C = 1 + std::int64_t(rng() % 6);
      layer.stride_x = layer.stride_y = 1 + std::int64_t(rng() % 2);
      layer.padding_x = layer.padding_y = std::int64_t(rng() % 2);
      layer.N = 1 + std::int64_t(rng() % 2);
    }
    contracts::Mapping tile = random_small_tile(layer, hardware, rng);
    INFO("seed " << seed << " case " << trial << ": N=" << layer.N << " K=" << layer.K << " C=" << layer.C
                 << " R=" << layer.R << " S=" << layer.S << " X=" << layer.X << " Y=" << layer.Y << " stride "
                 << layer.stride_x << " pad " << layer.padding_x << " tile " << contracts::to_string(tile));
    const std::uint64_t tensor_seed = rng();
    randomise_memory<Driver>(hardware, rng);
    if (two_level) {
      mapper::pick_sdm_level(layer, tile, [&](std::size_t n) { return rng() % n; });
      // Filters-outer: prefer an SDM level whose blocks have several folds and filter tiles (a few draws).
      for (int draw = 0; filters_outer && draw < 8 && !contracts::phase_order_matters(layer, tile); ++draw)
        mapper::pick_sdm_level(layer, tile, [&](std::size_t n) { return rng() % n; });
      const std::int64_t sdm_extra[] = {8, 32, 1024};
      hardware.sdm_bytes = std::max(hardware.sdm_bytes,
                                    contracts::sdm_working_set(layer, hardware, tile).total() + sdm_extra[rng() % 3] * 4);
    }
    if (filters_outer) {
      tile.phase_order = contracts::PhaseOrder::FiltersOuter;
      order_matters += contracts::phase_order_matters(layer, tile);
    }
    INFO("SDM " << hardware.sdm_bytes << " B, DRAM " << hardware.dram_bytes_per_cycle << " B/cycle, latency "
                << hardware.dram_latency_cycles << ", device "
                << (hardware.dram_device ? hardware.dram_device->preset : std::string("none")) << "; mapping "
                << contracts::to_string(tile));
    const CaseRuns runs = co_simulate_case(fabric, memory, layer, hardware, tile, tensor_seed);
    const sim::RtlLayerRun& with_memory = runs.with_memory;
    const contracts::CostReport& model = runs.model;
    ++memory_runs;
    for (const auto& row : runs.rows) {
      const double error = std::fabs(row.error_percent());
      if (row.metric == testbench::kTotalCycles) {
        sum_total_error += error;
        if (error > max_total_error) {
          max_total_error = error;
          const timing::MemoryRun& run = *with_memory.memory;
          worst_case = fmt::format(
              "case {} (K={} C={} R={} S={} X={} Y={} N={} stride {} pad {}, tile {}, SDM {} B {}, DRAM {} B/cycle "
              "latency {}): model {:.0f} (compute {:.0f}), co-simulation {} (stalls: data {}, output {}, drain {})",
              trial, layer.K, layer.C, layer.R, layer.S, layer.X, layer.Y, layer.N, layer.stride_x, layer.padding_x,
              contracts::to_string(tile), hardware.sdm_bytes,
              two_level ? "two-level" : run.resident ? "resident" : "streaming",
              hardware.dram_bytes_per_cycle, hardware.dram_latency_cycles, model.cycles.total,
              model.cycles.compute(), with_memory.cycles, run.data_stall_cycles,
              run.output_stall_cycles, run.drain_cycles);
        }
      }
      if (row.metric == testbench::kTotalCycles || row.metric == testbench::kMemoryStallCycles) continue;
      sum_error += error;
      max_error = std::max(max_error, error);
      ++counted;
    }
  }
  const double mean_total_error = sum_total_error / std::max(memory_runs, 1);
  std::cout << "regression on " << Driver::kNumMs << " MS: cross-check error over " << counted
            << " exact metric values: mean " << sum_error / std::max(counted, 1) << " %, max " << max_error
            << " %; cycles with DRAM over " << memory_runs << " runs: mean " << mean_total_error << " %, max "
            << max_total_error << " %\n"
            << "  largest cycles-with-DRAM error: " << worst_case << "\n";
  INFO("cycles with DRAM, seed " << seed << ": mean error " << mean_total_error
                                 << " %, max " << max_total_error << " %; largest: " << worst_case);
  CHECK(max_total_error == 0);  // every case also checked it above; this names the seed and the worst case
  if (filters_outer) {  // a case where the order does not matter plays the folds-outer program
    std::cout << "  the phase order changes the program in " << order_matters << " of " << cases << " cases\n";
    CHECK(order_matters * 3 >= cases);
  }
}

using Fabric8 = sim::FabricDriverFor<8>;
using Fabric16 = sim::FabricDriverFor<16>;
using Fabric32 = sim::FabricDriverFor<32>;
using Fabric64 = sim::FabricDriverFor<64>;
using Fabric128 = sim::FabricDriverFor<128>;
using Fabric256 = sim::FabricDriverFor<256>;

}  // namespace

// Every case's cycles with DRAM are exact since the model replays the memory plan (docs/model.md, "Memory timing").
// Before, with the fluid estimate, the default seeds measured mean / max errors of 1.4-3.3 % / 9.7-14.6 % (quick)
// and 1.6-5.0 % / 17-79 % (long), worst on starved channels with an SDM holding one channel slice at a time.
TEST_CASE("regression: random layers and mappings on 16 MS", "[rtl][regression]") {
  regression<Fabric16>(17, 16);
}
TEST_CASE("regression: random layers and mappings on 32 MS", "[rtl][regression]") {
  regression<Fabric32>(17, 32);
}
TEST_CASE("regression: random layers and mappings on 64 MS", "[rtl][regression]") {
  regression<Fabric64>(17, 64);
}

TEST_CASE("long regression: 170 random cases on 8 MS", "[long]") {
  regression<Fabric8>(170, 1008);
}
TEST_CASE("long regression: 170 random cases on 16 MS", "[long]") {
  regression<Fabric16>(170, 1016);
}
TEST_CASE("long regression: 170 random cases on 32 MS", "[long]") {
  regression<Fabric32>(170, 1032);
}
TEST_CASE("long regression: 170 random cases on 64 MS", "[long]") {
  regression<Fabric64>(170, 1064);
}
TEST_CASE("long regression: 170 random cases on 128 MS", "[long]") {
  regression<Fabric128>(170, 1128);
}
TEST_CASE("long regression: 170 random cases on 256 MS", "[long]") {
  regression<Fabric256>(170, 1256);
}

namespace {

// The layer kinds real networks add (grouped, depthwise, dilated, per-axis stride and padding, GEMM): random
// layers and tiles on one fabric, SDM and DRAM drawn as in the regression above, each bit-exact and with every
// exact metric (SDM and DRAM counts included, and the cycles with DRAM) equal to the model's.
template <class Driver>
void new_kinds_regression(int cases, std::uint64_t default_seed) {
  const std::uint64_t seed = seed_for(default_seed);
  std::cout << "layer kinds on " << Driver::kNumMs << " MS: " << cases << " cases, seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  contracts::Hardware hardware = tests::fabric_hardware<Driver>("layer-kinds");
  Driver fabric(50000);
  sim::MemorySystem memory;
  fabric.attach(memory);
  int grouped = 0, dilated = 0, gemm = 0;
  for (int trial = 0; trial < cases; ++trial) {
    INFO("seed " << seed << " case " << trial);
    const contracts::Layer layer = test::random_layer_of_new_kind(rng);
    const contracts::Mapping tile = random_small_tile(layer, hardware, rng);
    randomise_memory<Driver>(hardware, rng);
    co_simulate_case(fabric, memory, layer, hardware, tile, rng());
    grouped += layer.groups > 1;
    dilated += layer.dilation_x > 1 || layer.dilation_y > 1;
    gemm += layer.type == contracts::LayerType::Gemm;
  }
  CHECK(grouped > 0);
  CHECK(dilated > 0);
  CHECK(gemm > 0);
}

// Grouped layers (depthwise among them, dilated, per-axis strides) with T_G groups side by side: T_G a random divisor
// of the groups, the other tile sizes random under Eq. 1 for the switches T_G leaves each group; every third case
// with a random SDM level whose blocks span the group tile. Bit-exact, compute cycles and every count equal to the
// model's, and the cycles with DRAM too (co_simulate_case).
template <class Driver>
void groups_side_by_side_regression(int cases, std::uint64_t default_seed) {
  const std::uint64_t seed = seed_for(default_seed);
  std::cout << "groups side by side on " << Driver::kNumMs << " MS: " << cases << " cases, seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  contracts::Hardware hardware = tests::fabric_hardware<Driver>("groups-side-by-side");
  Driver fabric(50000);
  sim::MemorySystem memory;
  fabric.attach(memory);
  int side_by_side = 0, depthwise = 0, two_level = 0;
  for (int trial = 0; trial < cases; ++trial) {
    INFO("seed " << seed << " case " << trial);
    const test::GroupedCase grouped = test::random_grouped_case(hardware.num_ms, 2, rng);
    const contracts::Layer& layer = grouped.layer;
    contracts::Hardware per_group = hardware;
    per_group.num_ms = grouped.switches_per_group;
    contracts::Mapping tile = random_small_tile(layer, per_group, rng);
    tile.tile.groups = grouped.side_by_side;
    randomise_memory<Driver>(hardware, rng);
    if (trial % 3 == 2) {
      mapper::pick_sdm_level(layer, tile, [&](std::size_t n) { return rng() % n; });
      hardware.sdm_bytes = std::max(hardware.sdm_bytes, contracts::sdm_working_set(layer, hardware, tile).total() + 64);
      ++two_level;
    }
    INFO(contracts::shape_text(layer) << " tile " << contracts::to_string(tile));
    REQUIRE_FALSE(contracts::mapping_violation(layer, hardware, tile));
    co_simulate_case(fabric, memory, layer, hardware, tile, rng());
    ++side_by_side;
    depthwise += layer.groups == layer.C;
  }
  CHECK(side_by_side == cases);
  CHECK(depthwise > 0);
  CHECK(two_level > 0);
}

contracts::Layer named(const char* name, contracts::Layer layer) {
  layer.name = name;
  return layer;
}

}  // namespace

TEST_CASE("co-simulation: depthwise 3x3 (C = 32), grouped, dilated and GEMM layers under the mapper's best and "
          "random tiles on 64 MS", "[rtl][layer-kinds]") {
  const contracts::Hardware hardware = tests::fabric_hardware<Fabric64>("layer-kinds");
  Fabric64 fabric(50000);
  sim::MemorySystem memory;
  fabric.attach(memory);
  // MobileNetV2's depthwise shape at a small resolution: 32 channels, 3×3, stride 1, padding 1 (groups = C = K).
  contracts::Layer depthwise = named("depthwise", test::conv_layer(32, 32, 3, 3, 8, 8));
  depthwise.padding_x = depthwise.padding_y = 1;
  depthwise.groups = 32;
  // Grouped (4 groups of 2 channels and 3 filters), stride 2 along X only, dilation 2 along Y only.
  contracts::Layer grouped = named("grouped", test::conv_layer(12, 8, 3, 3, 9, 8));
  grouped.groups = 4;
  grouped.stride_x = 2;
  grouped.dilation_y = 2;
  grouped.padding_x = 1;
  grouped.padding_y = 2;
  // AlexNet's two towers in miniature: groups = 2 with a 5×5 filter.
  contracts::Layer towers = named("towers", test::conv_layer(8, 6, 5, 5, 7, 7));
  towers.groups = 2;
  towers.padding_x = towers.padding_y = 2;
  // A dilated 3×3 ("atrous", dilation 2, padding 2 keeps the size).
  contracts::Layer dilated = named("dilated", test::conv_layer(4, 3, 3, 3, 9, 9));
  dilated.dilation_x = dilated.dilation_y = 2;
  dilated.padding_x = dilated.padding_y = 2;
  // Attention scores of two heads: 2 × (6×8 by 8×5) as the 1×1 convolution N = 2, K = 5, C = 8, X = 6.
  const contracts::Layer gemm = named("scores", test::gemm_layer(6, 8, 5, 2));
  std::mt19937_64 rng(64);
  for (const contracts::Layer& layer : {depthwise, grouped, towers, dilated, gemm}) {
    INFO(layer.name);
    REQUIRE_FALSE(contracts::shape_violation(layer));
    const mapper::SearchResult found = mapper::search(layer, hardware, mapper::SearchOptions(mapper::Objective::Runtime, 1, 1));
    REQUIRE_FALSE(found.best.empty());
    co_simulate_case(fabric, memory, layer, hardware, found.best.front().mapping, rng());
    for (int trial = 0; trial < 3; ++trial) co_simulate_case(fabric, memory, layer, hardware, random_small_tile(layer, hardware, rng), rng());
  }
}

TEST_CASE("regression: random grouped, depthwise, dilated, per-axis and GEMM layers on 16 MS", "[rtl][regression]") {
  new_kinds_regression<Fabric16>(17, 2016);
}
TEST_CASE("regression: random grouped, depthwise, dilated, per-axis and GEMM layers on 64 MS", "[rtl][regression]") {
  new_kinds_regression<Fabric64>(17, 2064);
}
TEST_CASE("long regression: 170 random grouped, depthwise, dilated, per-axis and GEMM layers on 32 MS", "[long]") {
  new_kinds_regression<Fabric32>(170, 3032);
}
TEST_CASE("regression: random grouped layers with T_G groups side by side on 16 MS", "[rtl][regression][groups]") {
  groups_side_by_side_regression<Fabric16>(12, 2116);
}
TEST_CASE("regression: random grouped layers with T_G groups side by side on 32 MS", "[rtl][regression][groups]") {
  groups_side_by_side_regression<Fabric32>(12, 2132);
}
TEST_CASE("regression: random grouped layers with T_G groups side by side on 64 MS", "[rtl][regression][groups]") {
  groups_side_by_side_regression<Fabric64>(12, 2164);
}
TEST_CASE("long regression: 120 random grouped layers with T_G groups side by side on 8 MS", "[long]") {
  groups_side_by_side_regression<Fabric8>(120, 3108);
}
TEST_CASE("long regression: 120 random grouped layers with T_G groups side by side on 128 MS", "[long]") {
  groups_side_by_side_regression<Fabric128>(120, 3228);
}

// Two-level mappings: compute cycles, cycles with DRAM and every count (SDM and DRAM included) exact (the fluid
// estimate this replaced: mean 1.9-2.5 %, max 11.7-14.3 % on the quick seeds).
TEST_CASE("regression: random two-level mappings on 16 MS", "[rtl][regression][sdm]") {
  regression<Fabric16>(12, 2016, true);
}
TEST_CASE("regression: random two-level mappings on 32 MS", "[rtl][regression][sdm]") {
  regression<Fabric32>(12, 2032, true);
}
TEST_CASE("regression: random two-level mappings on 64 MS", "[rtl][regression][sdm]") {
  regression<Fabric64>(12, 2064, true);
}
// Filters-outer mappings (docs/mapping.md, "Phase order"), single-level and two-level: everything exact as above.
TEST_CASE("regression: random filters-outer mappings on 16 MS", "[rtl][regression][phase-order]") {
  regression<Fabric16>(12, 4016, false, true);
}
TEST_CASE("regression: random filters-outer two-level mappings on 32 MS", "[rtl][regression][phase-order]") {
  regression<Fabric32>(12, 4032, true, true);
}
TEST_CASE("long regression: 120 random filters-outer mappings on 64 MS", "[long]") {
  regression<Fabric64>(120, 5064, false, true);
}
TEST_CASE("long regression: 120 random filters-outer two-level mappings on 128 MS", "[long]") {
  regression<Fabric128>(120, 5128, true, true);
}
TEST_CASE("long regression: 120 random two-level mappings on 8 MS", "[long]") {
  regression<Fabric8>(120, 3008, true);
}
TEST_CASE("long regression: 120 random two-level mappings on 16 MS", "[long]") {
  regression<Fabric16>(120, 3016, true);
}
TEST_CASE("long regression: 120 random two-level mappings on 32 MS", "[long]") {
  regression<Fabric32>(120, 3032, true);
}
TEST_CASE("long regression: 120 random two-level mappings on 64 MS", "[long]") {
  regression<Fabric64>(120, 3064, true);
}
TEST_CASE("long regression: 120 random two-level mappings on 128 MS", "[long]") {
  regression<Fabric128>(120, 3128, true);
}
TEST_CASE("long regression: 120 random two-level mappings on 256 MS", "[long]") {
  regression<Fabric256>(120, 3256, true);
}
