// The phase order of a mapping (docs/mapping.md, "Phase order"; contracts/phase_order.hpp) on layers small enough to
// work by hand: which phases the program plays in which order, the configurations each order needs (ragged K
// favours filters-outer, ragged C folds-outer), the single-level residency rule of each order and the DRAM bytes
// that follow, the image that carries the order (format version 5) and the search that covers both orders.
#include <catch2/catch.hpp>

#include <functional>
#include <optional>
#include <vector>

#include "codegen/image_program.hpp"
#include "image_bytes.hpp"
#include "mapper/model/cost_model.hpp"
#include "contracts/sdm_budget.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "mapper/search/search.hpp"
#include "mapper_fixtures.hpp"

using namespace maeri;
using namespace maeri::contracts;

namespace {

Mapping fabric_tile(std::array<std::int64_t, kNumTileDims> size, PhaseOrder order) {
  Mapping tile;
  tile.tile.size = size;
  tile.phase_order = order;
  return tile;
}

// (c0, k0) of every weight phase of the planned program, in program order.
std::vector<std::pair<int, int>> phase_origins(const Layer& layer, const Hardware& hardware, const Mapping& tile) {
  std::vector<std::pair<int, int>> origins;
  for (const codegen::WeightPhase& phase : codegen::plan_layer(layer, hardware, tile, codegen::PlanDetail::PhasesOnly).phases)
    origins.push_back({phase.c0, phase.k0});
  return origins;
}

}  // namespace

TEST_CASE("phase order: text form and when it matters", "[phase-order]") {
  CHECK(std::string(phase_order_text(PhaseOrder::FoldsOuter)) == "folds-outer");
  CHECK(parse_phase_order("filters-outer") == PhaseOrder::FiltersOuter);
  CHECK_FALSE(parse_phase_order("k-outer"));
  CHECK(kDefaultPhaseOrder == PhaseOrder::FoldsOuter);
  const Layer layer = test::conv_layer(5, 4, 1, 1, 4, 4);
  // Two folds (C = 4 by 2) and three filter tiles (K = 5 by 2): the orders differ.
  CHECK(phase_order_matters(layer, fabric_tile({1, 1, 2, 2, 1, 1, 1}, PhaseOrder::FiltersOuter)));
  // One fold (T_C = C) or one filter tile (T_K = K): one loop runs once, both orders play the same phases.
  CHECK_FALSE(phase_order_matters(layer, fabric_tile({1, 1, 4, 2, 1, 1, 1}, PhaseOrder::FiltersOuter)));
  CHECK_FALSE(phase_order_matters(layer, fabric_tile({1, 1, 2, 5, 1, 1, 1}, PhaseOrder::FiltersOuter)));
  CHECK(effective_phase_order(layer, fabric_tile({1, 1, 2, 5, 1, 1, 1}, PhaseOrder::FiltersOuter)) ==
        PhaseOrder::FoldsOuter);
  // With an SDM level it is the block's folds and filter tiles that count: B_K = T_K leaves one per block.
  Mapping blocked = fabric_tile({1, 1, 2, 2, 1, 1, 1}, PhaseOrder::FiltersOuter);
  blocked.sdm.blocked = true;
  blocked.sdm.block = {2, 4, 1, 4, 4};
  CHECK_FALSE(phase_order_matters(layer, blocked));
  blocked.sdm.block = {4, 4, 1, 4, 4};
  CHECK(phase_order_matters(layer, blocked));
  CHECK(to_string(blocked).find("phase order filters-outer") != std::string::npos);
}

TEST_CASE("phase order: ragged K needs fewer configurations filters-outer, ragged C folds-outer", "[phase-order]") {
  const Hardware hardware = test::small_hardware(16, 4, 4);
  // K = 5 by T_K = 2: filter tiles at 0, 2 (full) and 4 (edge, 1 filter); C = 4 by T_C = 2: folds at 0, 2.
  const Layer ragged_k = test::conv_layer(5, 4, 1, 1, 4, 4);
  const Mapping folds_k = fabric_tile({1, 1, 2, 2, 1, 1, 1}, PhaseOrder::FoldsOuter);
  const Mapping filters_k = fabric_tile({1, 1, 2, 2, 1, 1, 1}, PhaseOrder::FiltersOuter);
  CHECK(phase_origins(ragged_k, hardware, folds_k) ==
        std::vector<std::pair<int, int>>{{0, 0}, {0, 2}, {0, 4}, {2, 0}, {2, 2}, {2, 4}});
  CHECK(phase_origins(ragged_k, hardware, filters_k) ==
        std::vector<std::pair<int, int>>{{0, 0}, {2, 0}, {0, 2}, {2, 2}, {0, 4}, {2, 4}});
  // Folds outer: full, full, edge in each fold -> 2 runs per fold, 4 configurations. Filters outer: the four
  // full-K phases in one run, then the two edge phases: 2.
  const CostReport a = mapper::evaluate(ragged_k, hardware, folds_k), b = mapper::evaluate(ragged_k, hardware, filters_k);
  CHECK(a.counts.configurations == 4);
  CHECK(b.counts.configurations == 2);
  // The same phases and steps: every count of the fabric is the same, only what the configurations cost moves.
  CHECK(a.counts.weight_phases == 6);
  CHECK(b.counts.weight_phases == 6);
  CHECK(a.counts.fires == b.counts.fires);
  CHECK(a.counts.multiplications == b.counts.multiplications);
  CHECK(a.counts.sdm_input_reads == b.counts.sdm_input_reads);
  CHECK(a.cycles.streaming == b.cycles.streaming);
  CHECK(a.cycles.weight_load == b.cycles.weight_load);
  CHECK(a.cycles.reconfiguration == 2 * b.cycles.reconfiguration);

  // C = 5 by T_C = 2: folds at 0, 2 (full) and 4 (edge); K = 4 by 2: two full filter tiles. Folds outer: the four
  // full-C phases in one run, the two edge ones in another: 2. Filters outer: full, full, edge per filter tile: 4.
  const Layer ragged_c = test::conv_layer(4, 5, 1, 1, 4, 4);
  CHECK(mapper::evaluate(ragged_c, hardware, fabric_tile({1, 1, 2, 2, 1, 1, 1}, PhaseOrder::FoldsOuter)).counts.configurations == 2);
  CHECK(mapper::evaluate(ragged_c, hardware, fabric_tile({1, 1, 2, 2, 1, 1, 1}, PhaseOrder::FiltersOuter)).counts.configurations == 4);
}

TEST_CASE("phase order: single-level residency — partial sums of all outputs, or one slice of inputs",
          "[phase-order]") {
  // K = 16, C = 2, 3x3 on 6x6 (X' = Y' = 4), fabric tile (3,3,1,2,1,1,1): 2 folds (C), 8 filter tiles; 16-bit
  // data, 32-bit sums; 32 MS, rn_bw 8: staging (13 cycles·8 lanes + 2·2 VNs)·4 B = 432 B.
  Hardware hardware = test::small_hardware(32, 8, 8);
  const Layer layer = test::conv_layer(16, 2, 3, 3, 6, 6);
  const Mapping folds = fabric_tile({3, 3, 1, 2, 1, 1, 1}, PhaseOrder::FoldsOuter);
  const Mapping filters = fabric_tile({3, 3, 1, 2, 1, 1, 1}, PhaseOrder::FiltersOuter);
  // Folds outer: every output's partial sum (16·16·4 = 1024 B) + one channel's 6·6 inputs (72 B) + one phase's
  // weights (2·9·2 = 36 B) = 1132 B. Filters outer: two filter tiles' sums (2·2·16·4 = 256 B, less than the
  // staging 432 B) + both channels' inputs (144 B) + 36 B = 612 B.
  CHECK(contracts::sdm_budget(layer, hardware, folds).resident_bytes == 1132);
  CHECK(contracts::sdm_budget(layer, hardware, filters).resident_bytes == 612);
  hardware.sdm_bytes = 1000;
  const CostReport a = mapper::evaluate(layer, hardware, folds), b = mapper::evaluate(layer, hardware, filters);
  CHECK_FALSE(a.sdm_resident);
  CHECK(b.sdm_resident);
  // Filters outer, resident: compulsory — 2·36 inputs and 16·2·9 weights at 2 B, 256 outputs at 4 B = 1744 B.
  CHECK(b.compulsory_dram_bytes == 1744);
  CHECK(b.counts.dram_bytes == 1744);
  // Folds outer, streaming: 16 phases of 4 Y' rows, each row one full window (9 inputs) and three forwarded steps
  // (3 new inputs): 16·4·18 = 1152 input reads, 288 weights, 256 partial sums read back and 512 results written:
  // (1152 + 288)·2 + (256 + 512)·4 = 5952 B.
  CHECK(a.counts.sdm_input_reads == 1152);
  CHECK(a.counts.dram_bytes == 5952);
  // Where the order does not matter (one filter tile) filters-outer is costed as folds-outer.
  const Mapping one_tile = fabric_tile({3, 3, 1, 16, 1, 1, 1}, PhaseOrder::FiltersOuter);
  hardware.num_ms = 256;
  CHECK(contracts::sdm_budget(layer, hardware, one_tile).resident_bytes ==
        contracts::sdm_budget(layer, hardware, fabric_tile({3, 3, 1, 16, 1, 1, 1}, PhaseOrder::FoldsOuter)).resident_bytes);
}

TEST_CASE("phase order: the image carries it (format version 5) and the program nests k0 outside the folds",
          "[phase-order][codegen][image]") {
  const Hardware hardware = test::small_hardware(16, 4, 4);
  const Layer layer = test::conv_layer(5, 4, 1, 1, 4, 4);
  const Mapping tile = fabric_tile({1, 1, 2, 2, 1, 1, 1}, PhaseOrder::FiltersOuter);
  const codegen::ConfigImage image = codegen::build_image(codegen::plan_layer(layer, hardware, tile), hardware);
  CHECK(codegen::image_format_version(image) == 5);
  const std::vector<std::uint8_t> bytes = codegen::encode_image(image);
  const codegen::ConfigImage decoded = codegen::decode_image(bytes, "p.mimg");
  CHECK(decoded == image);
  CHECK(decoded.mapping.phase_order == PhaseOrder::FiltersOuter);
  // K's full tiles, then its edge tile, each around the R, S, C loops.
  const std::string text = codegen::disassemble(decoded);
  INFO(text);
  CHECK(text.find("phase order filters-outer") != std::string::npos);
  CHECK(text.find("   0  FOR k0 = 0 .. 2 step 2   (2 iterations)\n"
                  "   1    FOR r0 = 0 .. 0 step 1   (1 iteration)\n") != std::string::npos);
  CHECK(text.find("FOR k0 = 4 .. 4 step 2   (1 iteration)") != std::string::npos);
  // The phase order byte follows the tile (docs/config-image.md); only 0 and 1 are orders.
  std::vector<std::uint8_t> bad = bytes;
  const auto field = test::find_image_field(bad, "phase_order");
  REQUIRE(field);
  CHECK(test::get_field(bad, *field) == 1);
  // Header 20, hardware 16 + "test" (2 + 4), layer name "test" (2 + 4), type 1, 14 shape fields, 7 tile sizes.
  CHECK(field->offset == 20 + 16 + 6 + 6 + 1 + 14 * 4 + 7 * 4);
  test::put_field(bad, *field, 2);
  test::reseal(bad);
  CHECK_THROWS_WITH(codegen::decode_image(bad, "p.mimg"),
                    "p.mimg: byte " + std::to_string(field->offset) +
                        ": phase_order is 2, expected 0 (folds-outer) or 1 (filters-outer)");
  // A mapping in the default order keeps the older, shorter formats.
  Mapping default_order = tile;
  default_order.phase_order = PhaseOrder::FoldsOuter;
  CHECK(codegen::image_format_version(codegen::build_image(codegen::plan_layer(layer, hardware, default_order), hardware)) == 3);
}

TEST_CASE("phase order: the joint search finds a filters-outer optimum", "[phase-order][search]") {
  // The residency layer above on 32 MS with a 1000-byte SDM: brute force over every single-level tile in both
  // phase orders; the joint search (exhaustive) must reach at least that optimum, and here it is filters-outer.
  Hardware hardware = test::small_hardware(32, 8, 8);
  hardware.sdm_bytes = 1000;
  const Layer layer = test::conv_layer(16, 2, 3, 3, 6, 6);
  std::optional<CostReport> best;
  const auto extents = layer_extents(layer);
  Mapping tile;
  const std::function<void(int)> fabric = [&](int dim) {
    if (dim == kNumTileDims) {
      if (tile.mapped_ms() > hardware.num_ms) return;
      for (const PhaseOrder order : kPhaseOrders) {
        tile.phase_order = order;
        const CostReport report = mapper::evaluate(layer, hardware, tile);
        if (!best || mapper::better(report, *best, mapper::Objective::Energy)) best = report;
      }
      return;
    }
    for (tile[dim] = 1; tile[dim] <= extents[size_t(dim)]; ++tile[dim]) fabric(dim + 1);
  };
  fabric(0);
  REQUIRE(best);
  INFO("single-level optimum " << to_string(best->mapping));
  CHECK(best->mapping.phase_order == PhaseOrder::FiltersOuter);
  mapper::SearchOptions options{mapper::Objective::Energy, 1, 0, {}, {}};
  options.joint.enabled = true;
  options.joint.budget = std::uint64_t(1) << 40;
  const mapper::SearchResult result = mapper::search(layer, hardware, options);
  REQUIRE(result.joint_exhaustive);
  CHECK(result.best.front().energy_pj.total <= best->energy_pj.total);
  // Without the filters-outer order the single-level search stays behind it.
  CHECK(result.fabric_optimum->energy_pj.total > best->energy_pj.total);
}

TEST_CASE("phase order: the joint search costs filters-outer only where it can differ", "[phase-order][search]") {
  const Layer layer = test::conv_layer(5, 4, 1, 1, 4, 4);
  CHECK(mapper::distinct_phase_orders(layer, fabric_tile({1, 1, 2, 2, 1, 1, 1}, PhaseOrder::FoldsOuter)).size() == 2);
  CHECK(mapper::distinct_phase_orders(layer, fabric_tile({1, 1, 4, 2, 1, 1, 1}, PhaseOrder::FoldsOuter)).size() == 1);
  Mapping blocked = fabric_tile({1, 1, 2, 1, 1, 1, 1}, PhaseOrder::FoldsOuter);
  blocked.sdm.blocked = true;
  blocked.sdm.block = {5, 4, 1, 4, 4};
  // K = 5 by T_K = 1 and C = 4 by 2: nothing ragged, every phase has one shape and the block holds everything.
  CHECK(mapper::distinct_phase_orders(layer, blocked).size() == 1);
  blocked.tile.size = {1, 1, 2, 2, 1, 1, 1};
  CHECK(mapper::distinct_phase_orders(layer, blocked).size() == 2);  // ragged K
}
