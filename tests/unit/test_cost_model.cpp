// The analytical model on a layer small enough to cost by hand, plus invariants over whole spaces.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "mapper/model/cost_model.hpp"
#include "contracts/sdm_budget.hpp"
#include "mapper/search/search.hpp"
#include "mapper/mapspace/tile_space.hpp"
#include "mapper_fixtures.hpp"

using namespace maeri::contracts;
using namespace maeri::mapper;
using maeri::test::conv_layer;
using maeri::test::fc_layer;
using maeri::test::small_hardware;

TEST_CASE("hand-worked: 2x2 conv, K=2 C=2, 3x3 input, tile (2,2,1,2,1,2,1) on 16 MS", "[mapper][model]") {
  // Layer: N=1 K=2 C=2 R=S=2 X=Y=3 stride 1, no padding -> X'=Y'=2, MACs = 2*2*2*2*2*2 = 64.
  // Hardware: 16 MS (L = 4 levels), dn_bw 4, rn_bw 2, nominal model parameters.
  const Layer layer = conv_layer(2, 2, 2, 2, 3, 3);
  const Hardware hardware = small_hardware(16, 4, 2);
  Mapping tile;
  tile.tile.size = {2, 2, 1, 2, 1, 2, 1};
  REQUIRE_FALSE(mapping_violation(layer, hardware, tile).has_value());
  const CostReport report = evaluate(layer, hardware, tile);

  // VN size 2*2*1 = 4, VNs 2*1*2*1 = 4: all 16 MS used.
  CHECK(report.vn_size == 4);
  CHECK(report.vn_count == 4);
  CHECK(report.idle_ms == 0);
  // C folds in two (T_C = 1), K in one: 2 weight phases; each phase steps over Y' = 2 columns.
  CHECK(report.reduction_folds == 2);
  CHECK(report.counts.weight_phases == 2);
  CHECK(report.counts.fires == 4);
  // Stride 1, T_Y' = 1, T_S = 2: the second column of each phase takes one column from neighbours.
  CHECK(report.uses_forwarding);

  // Weight load per phase: 8 unique weights / dn_bw 4 = 2 cycles -> 4.
  CHECK(report.cycles.weight_load == 4);
  // Full step: rows = (2-1)*1+2 = 3, cols = 2 -> 6 inputs -> ceil(6/4) = 2 DN cycles; 4 VN results /
  // rn_bw 2 = 2 RN cycles -> 2. Shifted step: 3 new inputs -> 1 DN cycle, RN 2 -> 2. 4 steps x 2 = 8.
  CHECK(report.cycles.streaming == 8);
  CHECK(report.dn_limited_steps == 2);
  CHECK(report.rn_limited_steps == 2);
  // One configuration: the pipeline fills and drains once, L*1 (DN) + 1 (MN) + L*1 (RN) + 2 (collect) = 11,
  // plus one cycle because the last step's 4 results need 2 cycles on the 2 output lanes -> 12.
  CHECK(report.cycles.fill_drain == 12);
  // Phase boundary: 2 weight beats + max(2 first-step beats, 2 spacing) = max(2 + 2, 2): no overlap to gain.
  CHECK(report.cycles.phase_overlap == 0);
  // docs/config-bits.md: 2*16 + 6*15 + 5 (vn_count) + 16*5 (collector) = 207 configuration bits = ceil(207/64) = 4
  // words of the default 64-bit config bus, at 1 word/cycle.
  CHECK(report.cycles.reconfiguration == 4);
  // Resident: 8 outputs x 4 B + 1 channel x 9 x 2 B + 8 weights x 2 B = 66 B <= 1024 B. DRAM bytes =
  // (18 inputs + 16 weights) x 2 = 68 read + 8 outputs x 4 = 32 written = 100. Memory timing (docs/model.md):
  // DRAM-bound time = max(100/4 = 25, latency 10 + 68/4 + 1 + pipeline 11 + last write 16/4) = 43 > 28 compute.
  // Start-up: first phase's data = (T_K*V = 8 weights + span(2,2) x span(1,2) = 6 inputs) x 2 B = 28 B ->
  // 10 + 28/4 = 17 cycles, of which the 4 configuration-word cycles hide 4 -> 13. Tail = the largest of: the last
  // step's write-back 2 (K) x 2 (X') x 1 (Y') x 4 B = 16 B; the last phase's 8 results (32 B) made in 4
  // streaming cycles while 16 B drain -> 16 B; the write window (partial sums stay in the SDM, so only the last
  // of 2 folds writes: (28 - 4 - 11) / 2 = 6.5 cycles) -> 32 - 26 = 6 B. 16 B / 4 B/cycle = 4 cycles. 13 + 4.
  CHECK(report.sdm_resident);
  CHECK(report.counts.dram_bytes == 100);
  CHECK(report.cycles.memory_stall == 13 + 4);
  CHECK(report.cycles.total == 8 + 4 + 12 + 4 + 13 + 4);

  const ActivityCounts& counts = report.counts;
  CHECK(counts.multiplications == 64);
  CHECK(counts.additions == 48);             // 4 steps x 4 VNs x (4 - 1)
  CHECK(counts.vn_results == 16);               // 8 outputs x 2 folds
  CHECK(counts.accumulation_additions == 8);    // 8 outputs x (2 - 1)
  CHECK(counts.sdm_psum_reads == 8);
  CHECK(counts.sdm_output_writes == 16);
  CHECK(counts.sdm_input_reads == 18);          // 2 full steps x 6 + 2 shifted x 3
  CHECK(counts.sdm_weight_reads == 16);         // K*C*R*S, each weight once
  CHECK(counts.mn_weight_loads == 32);          // 16 weights x 2 replicas (T_X' = 2)
  CHECK(counts.mn_forwards == 16);              // 2 shifted steps x 4 VNs x 2 rows x 1 column
  CHECK(counts.mn_operand_loads == 48);         // 64 operands - 16 forwarded
  CHECK(counts.rn_traversals == 112);                 // 64 products + 48 adder outputs
  // DN hops (multicast estimate h(f) = (f-1) + f*(L - log2 f)): weights 2 phases x 8 x h(2)=7 -> 112;
  // steps: fan-out 16/6 = 8/3 on full and shifted steps, h(8/3) = 8.5598; (12 + 6) x 8.5598 = 154.08;
  // total 266.08 -> 266.
  CHECK(counts.dn_traversals == 266);
  CHECK(report.average_utilisation == 1.0);
  CHECK(report.peak_utilisation == 1.0);
}

TEST_CASE("hand-worked: depthwise 3x3, 4 groups, 5x5 input, tile (3,3,1,1,1,1,3) with T_G = 2 on 64 MS",
          "[mapper][model][groups]") {
  // Layer: N=1, 4 groups of one channel and one filter, R=S=3, X=Y=5, stride 1, no padding -> X'=Y'=3,
  // MACs = 4*9*9 = 324. Hardware: 64 MS (L = 6), dn_bw 8, rn_bw 4.
  Layer layer = conv_layer(4, 4, 3, 3, 5, 5);
  layer.groups = 4;
  const Hardware hardware = small_hardware(64, 8, 4);
  Mapping tile;
  tile.tile.size = {3, 3, 1, 1, 1, 1, 3};
  tile.tile.groups = 2;
  REQUIRE_FALSE(mapping_violation(layer, hardware, tile).has_value());
  const CostReport report = evaluate(layer, hardware, tile);

  // Two groups' VNs side by side, each group 1 (T_K) x 3 (T_Y') VNs of 9: 6 VNs on 54 MS.
  CHECK(report.vn_size == 9);
  CHECK(report.vn_count == 6);
  CHECK(report.idle_ms == 10);
  // Group tiles: 4 / 2 = 2, one weight phase each (no folds, one filter per group), one step per X' row.
  CHECK(report.counts.weight_phases == 2);
  CHECK(report.counts.fires == 6);
  CHECK_FALSE(report.uses_forwarding);  // T_Y' = 3
  // A step's inputs are each group's own: 2 groups x span(1, 3) = 3 rows x span(3, 3) = 5 columns = 30 elements ->
  // ceil(30/8) = 4 DN cycles; 6 results on 4 lanes -> 2 RN cycles. 6 steps x 4 = 24, all DN-limited.
  CHECK(report.counts.sdm_input_reads == 6 * 30);
  CHECK(report.cycles.streaming == 24);
  CHECK(report.dn_limited_steps == 6);
  // A phase loads both groups' 9 weights (nothing shared): 18 -> ceil(18/8) = 3 beats, twice -> 6; each weight goes
  // to its group's 3 VN replicas.
  CHECK(report.counts.sdm_weight_reads == 36);
  CHECK(report.cycles.weight_load == 6);
  CHECK(report.counts.mn_weight_loads == 36 * 3);
  // Boundary: 3 weight beats + max(4 first-step beats, 2 spacing) = max(3 + 4, 2): no overlap.
  CHECK(report.cycles.phase_overlap == 0);
  // Both group tiles have the same phase shape: one configuration; fill and drain 6 + 1 + 6 + 2 = 15, plus one
  // lane cycle for the last step's 6 results on 4 lanes -> 16.
  CHECK(report.counts.configurations == 1);
  CHECK(report.cycles.fill_drain == 16);
  // Every configured VN multiplies: 6 steps x 6 VNs x 9 = 324 = the MACs; additions 6 x 6 x 8; 36 results.
  CHECK(report.counts.multiplications == 324);
  CHECK(report.counts.useful_multiplications == 324);
  CHECK(report.counts.additions == 288);
  CHECK(report.counts.vn_results == 36);
  CHECK(report.counts.results == 36);

  // The same tile group by group (T_G = 1): 4 phases of 3 steps, 15 inputs (2 DN cycles) and 3 results a step.
  tile.tile.groups = 1;
  const CostReport alone = evaluate(layer, hardware, tile);
  CHECK(alone.counts.weight_phases == 4);
  CHECK(alone.counts.fires == 12);
  CHECK(alone.counts.sdm_input_reads == report.counts.sdm_input_reads);
  CHECK(alone.cycles.streaming == 12 * 2);
  CHECK(alone.counts.multiplications == report.counts.multiplications);
}

TEST_CASE("energy is the sum of counts times the energy table", "[mapper][model]") {
  ActivityCounts counts;
  counts.multiplications = 10;    // 10 x 0.8 = 8
  counts.additions = 5;        // (5 + 2) x 0.1 = 0.7
  counts.accumulation_additions = 2;
  counts.dram_bytes = 3;          // 3 x 160 = 480
  counts.sdm_input_reads = 4;     // 4 x 5 = 20
  const EnergyBreakdown energy = energy_of(counts, maeri::test::small_hardware(16, 4, 4).energy_pj);
  CHECK(energy.multiply == Approx(8.0));
  CHECK(energy.add == Approx(0.7));
  CHECK(energy.dram == Approx(480.0));
  CHECK(energy.sdm == Approx(20.0));
  CHECK(energy.total == Approx(508.7));
}

TEST_CASE("invariants over every tile of several layers", "[mapper][model]") {
  const std::vector<Layer> layers = {conv_layer(6, 5, 3, 3, 9, 8, 1, 1), conv_layer(4, 8, 3, 3, 11, 11, 2, 0),
                                     conv_layer(7, 3, 5, 5, 9, 9, 1, 2, 2), fc_layer(10, 24)};
  for (const Layer& layer : layers) {
    const Hardware narrow = small_hardware(32, 2, 4);
    Hardware wide = narrow;
    wide.dn_bw = 16;
    const TileSpace space(layer, narrow);  // raw space: ragged edges included
    for (const auto& prefix : space.prefixes()) {
      space.enumerate_outputs(prefix, [&](const Mapping& tile) {
        const CostReport report = evaluate(layer, narrow, tile);
        INFO(to_string(tile));
        REQUIRE(report.counts.useful_multiplications == layer.macs());
        REQUIRE(report.counts.multiplications >= report.counts.useful_multiplications);
        // Every output gets (folds - 1) accumulations and VN-internal additions cover the rest; VNs left idle
        // by ragged N/X'/Y' tiles add on top, as many additions as their products minus one each.
        const std::int64_t idle_products = report.counts.multiplications - report.counts.useful_multiplications;
        REQUIRE(report.counts.additions + report.counts.accumulation_additions >=
                layer.macs() - layer.output_elements());
        if (idle_products == 0)
          REQUIRE(report.counts.additions + report.counts.accumulation_additions ==
                  layer.macs() - layer.output_elements());
        REQUIRE(report.counts.sdm_weight_reads == layer.weight_elements());
        REQUIRE(report.average_utilisation <= 1.0);
        REQUIRE(report.peak_utilisation <= 1.0);
        REQUIRE(report.compute_efficiency <= 1.0);
        REQUIRE(evaluate(layer, wide, tile).cycles.total <= report.cycles.total);
      });
    }
  }
}

TEST_CASE("search by the estimates returns the optimum of the raw space, in order", "[mapper][search]") {
  const Layer layer = conv_layer(6, 8, 3, 3, 8, 8, 1, 1);
  const Hardware hardware = small_hardware(32, 4, 4);
  for (const Objective objective : {Objective::Runtime, Objective::Energy, Objective::EnergyDelay}) {
    const SearchResult result = search(layer, hardware, {objective, 4, 2});
    const TileSpace space(layer, hardware);
    CHECK(result.evaluated == space.count());
    double optimum = 1e300;
    for (const auto& prefix : space.prefixes()) {
      space.enumerate_outputs(prefix, [&](const Mapping& tile) {
        optimum = std::min(optimum, objective_value(evaluate(layer, hardware, tile), objective));
      });
    }
    REQUIRE(result.best.size() == 4);
    CHECK(objective_value(result.best.front(), objective) == optimum);
    for (std::size_t i = 1; i < result.best.size(); ++i) CHECK(better(result.best[i - 1], result.best[i], objective));
    // Thread count must not change the answer.
    CHECK(search(layer, hardware, {objective, 4, 1}).best.front().mapping == result.best.front().mapping);
  }
}

TEST_CASE("baseline tile is (R, S, 1, min(K, num_ms / RS), 1, 1, 1)", "[mapper][search]") {
  const auto baseline = baseline_tile(conv_layer(128, 128, 3, 3, 28, 28, 1, 1), small_hardware(512, 512, 512));
  REQUIRE(baseline.has_value());
  CHECK(to_compact_string(*baseline) == "3,3,1,56,1,1,1");  // floor(512 / 9) = 56
  CHECK_FALSE(baseline_tile(conv_layer(2, 2, 5, 5, 9, 9), small_hardware(16, 4, 4)).has_value());
}

TEST_CASE("tile text form and legality messages", "[mapper]") {
  CHECK(to_compact_string(*parse_fabric_tile("3,3,8,4,1,1,1")) == "3,3,8,4,1,1,1");
  CHECK_FALSE(parse_fabric_tile("3,3,8,4,1,1").has_value());
  CHECK(parse_fabric_tile("3,3,8,4,1,1,1,1")->groups == 1);  // an eighth number is T_G
  CHECK_FALSE(parse_fabric_tile("3,3,8,4,1,1,1,1,1").has_value());
  CHECK_FALSE(parse_fabric_tile("3,3,x,4,1,1,1").has_value());
  const Layer layer = conv_layer(4, 4, 3, 3, 6, 6);
  Mapping too_big;
  too_big.tile.size = {3, 3, 4, 4, 1, 1, 1};  // 144 > 64
  CHECK_THAT(*mapping_violation(layer, small_hardware(64, 4, 4), too_big), Catch::StartsWith("Eq. 1"));
  Mapping beyond;
  beyond.tile.size = {4, 1, 1, 1, 1, 1, 1};   // T_R = 4 > R = 3
  CHECK_THAT(*mapping_violation(layer, small_hardware(64, 4, 4), beyond), Catch::StartsWith("bound: T_R = 4"));
}

TEST_CASE("window span: the closed form equals the rows counted one by one, with dilation", "[mapper][model]") {
  // |{o·stride + t·dilation : o < outputs, t < filter}| by enumeration (docs/model.md, "Distribution").
  for (std::int64_t outputs = 1; outputs <= 12; ++outputs)
    for (std::int64_t filter = 1; filter <= 7; ++filter)
      for (std::int64_t stride = 1; stride <= 6; ++stride)
        for (std::int64_t dilation = 1; dilation <= 6; ++dilation) {
          std::set<std::int64_t> rows;
          for (std::int64_t o = 0; o < outputs; ++o)
            for (std::int64_t t = 0; t < filter; ++t) rows.insert(o * stride + t * dilation);
          INFO(outputs << " outputs, " << filter << " taps, stride " << stride << ", dilation " << dilation);
          CHECK(window_span(outputs, filter, stride, dilation) == std::int64_t(rows.size()));
        }
}
