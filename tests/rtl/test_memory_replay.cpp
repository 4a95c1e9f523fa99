// The model's memory replay (timing/memory_replay.hpp) without the RTL: with ideal memory it must take exactly the
// cycles of the model's closed-form "Cycles" section (docs/model.md) — an independent derivation, summed over
// phase shapes and runs rather than played event by event — on random layers (plain, grouped, depthwise, dilated,
// GEMM), random legal mappings (single- and two-level, either phase order), random bandwidths, config bus widths
// and integer pipeline latencies. With DRAM it can only add cycles, never fewer than the DRAM needs to move every
// byte, and it moves exactly the model's DRAM bytes. (The co-simulation regressions check it against the RTL.)
#include <catch2/catch.hpp>

#include <random>

#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/sdm_rules.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "mapper/model/cost_model.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"
#include "../random_layers.hpp"
#include "../unit/mapper_fixtures.hpp"

using namespace maeri;

namespace {

contracts::Layer random_plain_layer(std::mt19937_64& rng) {
  contracts::Layer layer;
  layer.name = "random";
  layer.R = 1 + std::int64_t(rng() % 3);
  layer.S = 1 + std::int64_t(rng() % 3);
  layer.X = layer.R + std::int64_t(rng() % 6);
  layer.Y = layer.S + std::int64_t(rng() % 6);
  layer.K = 1 + std::int64_t(rng() % 9);
  layer.C = 1 + std::int64_t(rng() % 9);
  layer.N = 1 + std::int64_t(rng() % 2);
  layer.stride_x = layer.stride_y = 1 + std::int64_t(rng() % 2);
  layer.padding_x = layer.padding_y = std::int64_t(rng() % 2);
  return layer;
}


}  // namespace

TEST_CASE("memory replay: with ideal memory, exactly the model's compute cycles", "[sim][replay]") {
  std::mt19937_64 rng(2026);
  int two_level = 0, filters_outer = 0, grouped = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::int64_t num_ms = 8 << (rng() % 4);
    contracts::Hardware hardware = test::small_hardware(num_ms, std::min<std::int64_t>(num_ms, 1 << (rng() % 4)),
                                                        std::min<std::int64_t>(num_ms, 1 << (rng() % 4)));
    hardware.config_bw = 16 << (rng() % 4);
    hardware.model.dn_level_latency = double(1 + rng() % 2);
    hardware.model.rn_level_latency = double(1 + rng() % 2);
    hardware.model.collect_latency = double(2 + rng() % 2);
    hardware.sdm_bytes = std::int64_t(1) << 30;
    const contracts::Layer layer = trial % 3 == 0 ? test::random_layer_of_new_kind(rng) : random_plain_layer(rng);
    contracts::Mapping tile = test::random_small_tile(layer, hardware, rng);
    if (rng() % 3 == 0 && layer.groups == 1) {
      mapper::pick_sdm_level(layer, tile, [&](std::size_t n) { return rng() % n; });
      ++two_level;
    }
    if (rng() % 2) tile.phase_order = contracts::PhaseOrder::FiltersOuter;
    filters_outer += contracts::effective_phase_order(layer, tile) == contracts::PhaseOrder::FiltersOuter;
    grouped += layer.groups > 1;
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " mapping " << contracts::to_string(tile) << " on "
                  << num_ms << " MS, dn_bw " << hardware.dn_bw << ", rn_bw " << hardware.rn_bw << ", config_bw "
                  << hardware.config_bw);
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, tile);
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, rng());
    const timing::MemoryPlan plan = timing::plan_memory(program, hardware, tensors);
    const contracts::CostReport model = mapper::evaluate(layer, hardware, tile);
    const std::uint64_t compute = timing::replay_compute(program, plan, hardware);
    REQUIRE(double(compute) == model.cycles.compute());

    const double bandwidth = hardware.dram_bytes_per_cycle;
    const timing::MemoryReplay replay = timing::replay_memory(program, plan, hardware, bandwidth, 10);
    const std::uint64_t bytes = replay.memory.dram.bytes_read + replay.memory.dram.bytes_written;
    CHECK(std::int64_t(bytes) == model.counts.dram_bytes);
    CHECK(replay.cycles >= compute);
    CHECK(double(replay.cycles) >= double(bytes) / bandwidth);
  }
  CHECK(two_level > 40);
  CHECK(filters_outer > 40);
  CHECK(grouped > 20);
}
