// The functional model (codegen/functional_model) executes a layer program switch by switch; its output must
// equal a plain convolution bit-exactly for random layers and random legal mappings (non-power-of-two VN
// sizes, folded R/S/C, T_N/T_X'/T_Y' > 1, stride 2, padding, FC layers, narrow accumulators that wrap), and
// its activity counts must equal the analytical model's where both count the same thing.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "codegen/exact_traffic.hpp"
#include "codegen/functional_model.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "mapper_fixtures.hpp"
#include "tests/random_layers.hpp"
#include "util/integer_math.hpp"

using namespace maeri;
using maeri::test::conv_layer;
using maeri::test::small_hardware;

namespace {

// A random legal tile: each T_d uniform in 1..extent, resampled until Eq. 1 holds.
contracts::Mapping random_tile(const contracts::Layer& layer, const contracts::Hardware& hardware, std::mt19937_64& rng) {
  const auto extents = contracts::layer_extents(layer);
  for (;;) {
    contracts::Mapping tile;
    for (int d = 0; d < contracts::kNumTileDims; ++d) tile[d] = 1 + std::int64_t(rng() % uint64_t(extents[size_t(d)]));
    // Shrink the largest dimensions until the tile fits, so big tiles are common.
    while (tile.mapped_ms() > hardware.num_ms) {
      int largest = 0;
      for (int d = 1; d < contracts::kNumTileDims; ++d)
        if (tile[d] > tile[largest]) largest = d;
      tile[largest] -= 1 + std::int64_t(rng() % uint64_t(tile[largest]));
      if (tile[largest] < 1) tile[largest] = 1;
    }
    if (!contracts::mapping_violation(layer, hardware, tile)) return tile;
  }
}

}  // namespace

TEST_CASE("functional model: hand-worked 2x2 conv matches the model's counts and the reference", "[codegen][functional]") {
  // The layer and tile of the hand-worked cost-model test (test_cost_model.cpp): 64 multiplications,
  // 4 steps x 4 VNs x 3 = 48 RN additions, 16 VN results, 8 accumulations, 2 weight phases, 4 steps.
  const contracts::Layer layer = conv_layer(2, 2, 2, 2, 3, 3);
  const contracts::Hardware hardware = small_hardware(16, 4, 2);
  contracts::Mapping tile;
  tile.tile.size = {2, 2, 1, 2, 1, 2, 1};
  std::mt19937_64 rng(1);
  const auto tensors = codegen::random_tensors(layer, 16, rng());
  const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, tile);
  CHECK(program.forwarding);
  CHECK(program.configurations.size() == 1);
  const auto result = codegen::execute_layer(program, hardware, tensors);
  CHECK(result.output == codegen::reference_convolution(layer, tensors, 32));
  CHECK(result.activity.multiplications == 64);
  CHECK(result.activity.additions == 48);
  CHECK(result.activity.vn_results == 16);
  CHECK(result.activity.accumulation_additions == 8);
  CHECK(result.activity.weight_phases == 2);
  CHECK(result.activity.fires == 4);
  // Second column of each phase: 2 (T_K) x 2 (T_X') VNs x 2 switches with s = 0 take the forwarded operand.
  CHECK(result.activity.mn_forwards == 2 * 4 * 2);
}

namespace {

// Random hardware for one case: 8…64 MS, bandwidths 1…8, 8- or 16-bit data, 20- (wrapping) or 32-bit sums.
contracts::Hardware random_small_hardware(std::mt19937_64& rng) {
  const int num_ms = 8 << (rng() % 4);  // 8 … 64
  contracts::Hardware hardware = small_hardware(num_ms, 1 << (rng() % 4), 1 << (rng() % 4));
  hardware.dn_bw = std::min<std::int64_t>(hardware.dn_bw, num_ms);
  hardware.rn_bw = std::min<std::int64_t>(hardware.rn_bw, num_ms);
  hardware.data_width = (rng() % 2) ? 16 : 8;
  hardware.acc_width = (rng() % 3 == 0) ? 20 : 32;  // 20 bits: sums wrap
  return hardware;
}

// Executes the layer under the tile, checks the output against the reference convolution bit-exactly and every
// count the analytical model and codegen's exact traffic share with the execution. Returns the program.
codegen::LayerProgram check_execution_against_models(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                                     const contracts::Mapping& tile, std::mt19937_64& rng) {
  INFO(contracts::shape_text(layer) << " tile " << contracts::to_string(tile) << " on " << hardware.num_ms << " MS");
  const auto tensors = codegen::random_tensors(layer, hardware.data_width, rng());
  const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, tile);
  const auto result = codegen::execute_layer(program, hardware, tensors);
  REQUIRE(result.output == codegen::reference_convolution(layer, tensors, hardware.acc_width));

  // Counts the analytical model must agree with exactly, every count both models count (both count what the fabric
  // does: idle VNs of ragged N/X'/Y' steps still multiply, and each change of phase shape is a reconfiguration),
  // with the DN and RN traversals from codegen's exact traffic.
  mapper::TrafficLowerBounds bounds;
  const contracts::CostReport model = mapper::evaluate(layer, hardware, tile, &bounds);
  contracts::CostReport exact_model = model;
  codegen::refine_with_exact_traffic(exact_model, layer, hardware);
#define MAERI_SHARED_COUNT(name, label, meaning) CHECK(result.activity.name == exact_model.counts.name);
  MAERI_FABRIC_COUNTS(MAERI_SHARED_COUNT)
  MAERI_PROGRAM_COUNTS(MAERI_SHARED_COUNT)
#undef MAERI_SHARED_COUNT
  CHECK(result.activity.stream_cycles == std::int64_t(model.cycles.streaming));
  CHECK(result.activity.weight_cycles == std::int64_t(model.cycles.weight_load));
  // DN and RN traversals depend on the placement and the ART; the analytical model estimates them during the
  // search (with provable lower bounds, which must not exceed the execution's counts), codegen's
  // exact_traffic() counts them per phase shape and kind of step and must equal the execution.
  CHECK(bounds.dn_traversals <= result.activity.dn_traversals);
  CHECK(bounds.rn_traversals <= result.activity.rn_traversals);
  const codegen::ExactTraffic exact = codegen::exact_traffic(layer, hardware, tile);
  CHECK(result.activity.dn_elements == exact.dn_elements);
  CHECK(result.activity.dn_elements == model.counts.sdm_input_reads + model.counts.sdm_weight_reads);
  CHECK(result.activity.dn_traversals == exact.dn_traversals);
  CHECK(result.activity.rn_traversals == exact.rn_traversals);
  CHECK(result.activity.results == exact.results);
  return program;
}

// A random SDM level for the tile (SDM tile from the search's candidates, any of the 120 orders: docs/mapping.md),
// with an SDM large enough for it.
void add_random_sdm_level(const contracts::Layer& layer, contracts::Hardware& hardware, contracts::Mapping& tile, std::mt19937_64& rng) {
  hardware.sdm_bytes = std::int64_t(1) << 30;
  mapper::pick_sdm_level(layer, tile, [&](std::size_t n) { return rng() % n; });
}

// 300 random layers and mappings; with `two_level` each mapping gets a random SDM level; with `phase_orders` a
// random phase order (contracts/phase_order.hpp).
void check_random_mappings(std::uint64_t seed, bool two_level, bool phase_orders = false) {
  std::mt19937_64 rng(seed);
  int with_folds = 0, with_replicas = 0, with_stride2 = 0, fc = 0, odd_vn = 0, forwarding = 0, filters_outer = 0;
  for (int trial = 0; trial < 300; ++trial) {
    INFO("trial " << trial);
    contracts::Hardware hardware = random_small_hardware(rng);
    contracts::Layer layer;
    if (rng() % 6 == 0) {  // fully connected: a convolution with R = S = X = Y = 1
      layer = conv_layer(1 + int(rng() % 24), 1 + int(rng() % 40), 1, 1, 1, 1, 1, 0, 1 + int(rng() % 3));
      layer.type = contracts::LayerType::FullyConnected;
      ++fc;
    } else {
      const int r = 1 + int(rng() % 3), s = 1 + int(rng() % 3), padding = int(rng() % 2);
      layer = conv_layer(1 + int(rng() % 5), 1 + int(rng() % 5), r, s, r + int(rng() % 6), s + int(rng() % 6),
                         1 + int(rng() % 2), padding, 1 + int(rng() % 2));
    }
    contracts::Mapping tile = random_tile(layer, hardware, rng);
    if (two_level) add_random_sdm_level(layer, hardware, tile, rng);
    if (phase_orders) tile.phase_order = contracts::kPhaseOrders[rng() % contracts::kPhaseOrders.size()];
    const codegen::LayerProgram program = check_execution_against_models(layer, hardware, tile, rng);
    filters_outer += contracts::effective_phase_order(layer, tile) == contracts::PhaseOrder::FiltersOuter;
    with_folds += tile.vn_size() < layer.R * layer.S * layer.C;
    with_replicas += tile[contracts::kDimN] * tile[contracts::kDimX] * tile[contracts::kDimY] > 1;
    with_stride2 += layer.stride_x == 2;
    odd_vn += tile.vn_size() % 2 == 1 && tile.vn_size() > 1;
    forwarding += program.forwarding;
  }
  // The random space must actually cover reduction folds, weight replicas and stride 2 (docs/config-image.md).
  CHECK(with_folds > 30);
  CHECK(with_replicas > 30);
  CHECK(with_stride2 > 30);
  CHECK(fc > 20);
  CHECK(odd_vn > 30);
  CHECK(forwarding > 10);
  if (phase_orders) CHECK(filters_outer > 30);  // where the order changes the program
}

// 300 random layers of the new kinds (grouped, depthwise, dilated, per-axis stride and padding, GEMM); with
// `two_level` each mapping gets a random SDM level (whose K and C blocks tile one group's filters and channels).
void check_new_kinds(std::uint64_t seed, bool two_level) {
  std::mt19937_64 rng(seed);
  int grouped = 0, depthwise = 0, dilated = 0, per_axis = 0, gemm = 0, forwarding = 0, ragged_groups = 0;
  for (int trial = 0; trial < 300; ++trial) {
    INFO("trial " << trial);
    contracts::Hardware hardware = random_small_hardware(rng);
    const contracts::Layer layer = test::random_layer_of_new_kind(rng);
    REQUIRE_FALSE(contracts::shape_violation(layer));
    contracts::Mapping tile = random_tile(layer, hardware, rng);
    if (two_level) add_random_sdm_level(layer, hardware, tile, rng);
    const codegen::LayerProgram program = check_execution_against_models(layer, hardware, tile, rng);
    grouped += layer.groups > 1;
    depthwise += layer.groups > 1 && layer.groups == layer.C;
    dilated += layer.dilation_x > 1 || layer.dilation_y > 1;
    per_axis += layer.stride_x != layer.stride_y || layer.padding_x != layer.padding_y;
    gemm += layer.type == contracts::LayerType::Gemm;
    forwarding += program.forwarding;
    ragged_groups += layer.groups > 1 && program.configurations.size() > 1;
  }
  CHECK(grouped > 100);
  CHECK(depthwise > 30);
  CHECK(dilated > 100);
  CHECK(per_axis > 100);
  CHECK(gemm > 30);
  CHECK(forwarding > 5);
  CHECK(ragged_groups > 10);
}

// A random grouped layer (not a GEMM) and a random tile with T_G groups side by side: T_G a random divisor of the
// groups, the other sizes random under Eq. 1 for the switches T_G leaves each group.
std::pair<contracts::Layer, contracts::Mapping> random_side_by_side(const contracts::Hardware& hardware,
                                                                    std::mt19937_64& rng) {
  const test::GroupedCase grouped = test::random_grouped_case(hardware.num_ms, 1, rng);
  contracts::Hardware per_group = hardware;
  per_group.num_ms = grouped.switches_per_group;
  contracts::Mapping tile = random_tile(grouped.layer, per_group, rng);
  tile.tile.groups = grouped.side_by_side;
  return {grouped.layer, tile};
}

// 300 random grouped layers (depthwise among them, dilated, strided) under tiles with T_G > 1 mostly: the
// execution equals the reference and every count the models share (check_execution_against_models).
void check_groups_side_by_side(std::uint64_t seed, bool two_level) {
  std::mt19937_64 rng(seed);
  int side_by_side = 0, depthwise = 0, dilated = 0, strided = 0, forwarding = 0, ragged = 0;
  for (int trial = 0; trial < 300; ++trial) {
    INFO("trial " << trial);
    contracts::Hardware hardware = random_small_hardware(rng);
    auto [layer, tile] = random_side_by_side(hardware, rng);
    REQUIRE_FALSE(contracts::mapping_violation(layer, hardware, tile));
    if (two_level) add_random_sdm_level(layer, hardware, tile, rng);
    const codegen::LayerProgram program = check_execution_against_models(layer, hardware, tile, rng);
    const bool grouped_steps = tile.groups_per_step() > 1;
    side_by_side += grouped_steps;
    depthwise += grouped_steps && layer.groups == layer.C;
    dilated += grouped_steps && (layer.dilation_x > 1 || layer.dilation_y > 1);
    strided += grouped_steps && (layer.stride_x > 1 || layer.stride_y > 1);
    forwarding += grouped_steps && program.forwarding;
    ragged += grouped_steps && program.configurations.size() > 1;
  }
  CHECK(side_by_side > 150);
  CHECK(depthwise > 30);
  CHECK(dilated > 50);
  CHECK(strided > 50);
  CHECK(forwarding > 2);
  CHECK(ragged > 10);
}

}  // namespace

TEST_CASE("functional model equals the reference convolution on 300 random layers and mappings",
          "[codegen][functional]") {
  check_random_mappings(20261122, false);
}

TEST_CASE("functional model equals the reference convolution on 300 random two-level mappings",
          "[codegen][functional][sdm]") {
  check_random_mappings(20261123, true);
}

TEST_CASE("functional model equals the reference convolution on 300 random mappings in either phase order",
          "[codegen][functional][phase-order]") {
  check_random_mappings(20261124, false, true);
  check_random_mappings(20261125, true, true);
}

TEST_CASE("functional model equals the reference on 300 random grouped, depthwise, dilated, per-axis and GEMM layers",
          "[codegen][functional]") {
  check_new_kinds(20261123, false);
}

TEST_CASE("functional model equals the reference on 300 random two-level mappings of the new layer kinds",
          "[codegen][functional][sdm]") {
  check_new_kinds(20261124, true);
}

TEST_CASE("functional model equals the reference on 300 random grouped layers with T_G groups side by side",
          "[codegen][functional][groups]") {
  check_groups_side_by_side(20261126, false);
}

TEST_CASE("functional model equals the reference on 300 random two-level mappings with T_G groups side by side",
          "[codegen][functional][groups][sdm]") {
  check_groups_side_by_side(20261127, true);
}

// The search's refinement (codegen::exact_traffic_for: one per layer, each fabric tile's shapes counted once and
// shared by every SDM tile and order of it, which weigh them) against codegen::exact_traffic computed afresh
// for each mapping (checked against the functional model's execution above): the same DN and RN traversals and
// energy for every SDM level of a fabric tile, asked in any order, including tiles that share the Y' blocks and
// differ elsewhere.
TEST_CASE("exact traffic: the search's shared refinement equals exact_traffic on every SDM level", "[codegen][traffic]") {
  std::mt19937_64 rng(4510);
  int shared = 0, y_blocks_differ = 0;
  for (int trial = 0; trial < 80; ++trial) {
    INFO("trial " << trial);
    contracts::Hardware hardware = random_small_hardware(rng);
    const int r = 1 + int(rng() % 3), s = 1 + int(rng() % 3);
    const contracts::Layer layer = conv_layer(1 + int(rng() % 5), 1 + int(rng() % 5), r, s, r + int(rng() % 8),
                                              s + int(rng() % 8), 1 + int(rng() % 2), int(rng() % 2), 1 + int(rng() % 2));
    const contracts::Mapping fabric = random_tile(layer, hardware, rng);
    std::vector<contracts::Mapping> mappings{fabric};
    for (int level = 0; level < 8; ++level) {
      contracts::Mapping mapping = fabric;
      add_random_sdm_level(layer, hardware, mapping, rng);
      mappings.push_back(mapping);
    }
    const contracts::ExactTrafficRefinement refine = codegen::exact_traffic_for(layer, hardware);
    std::set<std::int64_t> y_blocks;
    for (int pass = 0; pass < 2; ++pass)
      for (const contracts::Mapping& mapping : mappings) {
        INFO(contracts::to_string(mapping));
        contracts::CostReport cached = mapper::evaluate(layer, hardware, mapping);
        contracts::CostReport fresh = cached;
        refine(cached);
        codegen::refine_with_exact_traffic(fresh, layer, hardware);
        const codegen::ExactTraffic exact = codegen::exact_traffic(layer, hardware, mapping);
        REQUIRE(cached.counts.dn_traversals == exact.dn_traversals);
        REQUIRE(cached.counts.rn_traversals == exact.rn_traversals);
        REQUIRE(cached.counts.dn_traversals == fresh.counts.dn_traversals);
        REQUIRE(cached.counts.rn_traversals == fresh.counts.rn_traversals);
        REQUIRE(cached.energy_pj.total == fresh.energy_pj.total);
        if (pass == 0 && mapping.sdm.blocked)
          y_blocks.insert(util::ceil_div(layer.output_y(), mapping.sdm.block[contracts::kSdmY]));
      }
    shared += mappings.size() > y_blocks.size() + 1;
    y_blocks_differ += y_blocks.size() > 1;
  }
  CHECK(shared > 60);           // SDM levels of one fabric tile with the same Y' blocks: answered from the cache
  CHECK(y_blocks_differ > 20);  // and with different ones: the same shapes, weighed differently
}
