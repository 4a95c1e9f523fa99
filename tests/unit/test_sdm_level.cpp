// The SDM level of the two-level map space (docs/mapping.md, docs/model.md "SDM level") against an independent
// walk written here: the SDM loops in their order over explicit block origins, the fabric's R, S, C, K loops
// inside each block and the steps inside each phase, with every tensor's SDM copy dropped when its block changes
// and the touched input rows and columns marked one by one (no window-span formula). The model's weight phases,
// configurations, SDM input reads, SDM fills and DRAM bytes must equal the walk's on random layers, fabric tiles,
// SDM tiles and orders. Also: the SDM rules and their messages, orders, and the joint search against brute force.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "codegen/exact_traffic.hpp"
#include "mapper/model/cost_model.hpp"
#include "contracts/sdm_budget.hpp"
#include "mapper/mapspace/sdm_space.hpp"
#include "mapper/search/search.hpp"
#include "mapper_fixtures.hpp"
#include "random_mappings.hpp"
#include "contracts/sdm_rules.hpp"

using namespace maeri;
using namespace maeri::contracts;

namespace {

struct Walked {
  std::int64_t weight_phases = 0, configurations = 0, input_reads = 0, input_fills = 0, weight_fills = 0;
  std::int64_t output_writes = 0, output_reads = 0;
};

// Distinct input rows (columns) that outputs [first, first + count) touch with taps [0, taps) `dilation` apart.
std::int64_t marked_span(std::int64_t first, std::int64_t count, std::int64_t taps, std::int64_t stride,
                         std::int64_t dilation) {
  std::set<std::int64_t> rows;
  for (std::int64_t o = first; o < first + count; ++o)
    for (std::int64_t t = 0; t < taps; ++t) rows.insert(o * stride + t * dilation);
  return std::int64_t(rows.size());
}

Walked walk(const Layer& layer, const Mapping& tile) {
  const auto extents = layer_extents(layer);
  const auto& block = tile.sdm.block;
  Walked walked;
  std::array<std::int64_t, kNumSdmDims> origin{};
  // Keys of the block each tensor holds (-1: none yet); the output block's and whether it is partial.
  std::vector<std::int64_t> input_key, weight_key, output_key;
  int last_shape = -1;
  const auto visit_block = [&] {
    std::array<std::int64_t, kNumSdmDims> length{};
    for (int d = 0; d < kNumSdmDims; ++d)
      length[size_t(d)] = std::min(block[size_t(d)], extents[size_t(sdm_tile_dim(d))] - origin[size_t(d)]);
    const std::vector<std::int64_t> in{origin[kSdmC], origin[kSdmN], origin[kSdmX], origin[kSdmY]};
    const std::vector<std::int64_t> w{origin[kSdmK], origin[kSdmC]};
    const std::vector<std::int64_t> out{origin[kSdmK], origin[kSdmN], origin[kSdmX], origin[kSdmY]};
    if (in != input_key) {
      walked.input_fills += length[kSdmN] * length[kSdmC] *
                            marked_span(origin[kSdmX], length[kSdmX], layer.R, layer.stride_x, layer.dilation_x) *
                            marked_span(origin[kSdmY], length[kSdmY], layer.S, layer.stride_y, layer.dilation_y);
      input_key = in;
    }
    if (w != weight_key) {
      walked.weight_fills += length[kSdmK] * length[kSdmC] * layer.R * layer.S;
      weight_key = w;
    }
    const std::int64_t outputs = length[kSdmK] * length[kSdmN] * length[kSdmX] * length[kSdmY];
    if (out != output_key) {
      walked.output_writes += outputs;  // written back when the block leaves (the last one at the end)
      if (origin[kSdmC] > 0) walked.output_reads += outputs;
      output_key = out;
    }
    // The weight phases' origins in the phase order: folds (R, S, C) outside the filter tiles, or inside them.
    std::vector<std::array<std::int64_t, 4>> phases;
    const std::int64_t c_end = origin[kSdmC] + length[kSdmC], k_end = origin[kSdmK] + length[kSdmK];
    if (tile.phase_order == PhaseOrder::FiltersOuter) {
      for (std::int64_t k0 = origin[kSdmK]; k0 < k_end; k0 += tile[kDimK])
        for (std::int64_t r0 = 0; r0 < layer.R; r0 += tile[kDimR])
          for (std::int64_t s0 = 0; s0 < layer.S; s0 += tile[kDimS])
            for (std::int64_t c0 = origin[kSdmC]; c0 < c_end; c0 += tile[kDimC]) phases.push_back({r0, s0, c0, k0});
    } else {
      for (std::int64_t r0 = 0; r0 < layer.R; r0 += tile[kDimR])
        for (std::int64_t s0 = 0; s0 < layer.S; s0 += tile[kDimS])
          for (std::int64_t c0 = origin[kSdmC]; c0 < c_end; c0 += tile[kDimC])
            for (std::int64_t k0 = origin[kSdmK]; k0 < k_end; k0 += tile[kDimK]) phases.push_back({r0, s0, c0, k0});
    }
    for (const auto& [r0, s0, c0, k0] : phases) {
            const std::int64_t t_r = std::min(tile[kDimR], layer.R - r0), t_s = std::min(tile[kDimS], layer.S - s0);
            const std::int64_t t_c = std::min(tile[kDimC], layer.C - c0);
            const int shape = (t_r < tile[kDimR]) | (t_s < tile[kDimS]) << 1 | (t_c < tile[kDimC]) << 2 |
                              (std::min(tile[kDimK], layer.K - k0) < tile[kDimK]) << 3;
            if (shape != last_shape) ++walked.configurations;
            last_shape = shape;
            ++walked.weight_phases;
            const bool forwarding = contracts::phase_uses_mn_forwarding(layer, tile, t_s);
            for (std::int64_t n0 = origin[kSdmN]; n0 < origin[kSdmN] + length[kSdmN]; n0 += tile[kDimN])
              for (std::int64_t x0 = origin[kSdmX]; x0 < origin[kSdmX] + length[kSdmX]; x0 += tile[kDimX])
                for (std::int64_t y0 = origin[kSdmY]; y0 < origin[kSdmY] + length[kSdmY]; y0 += tile[kDimY]) {
                  const std::int64_t t_n = std::min(tile[kDimN], layer.N - n0);
                  const std::int64_t t_x = std::min(tile[kDimX], extents[kDimX] - x0);
                  const std::int64_t t_y = std::min(tile[kDimY], extents[kDimY] - y0);
                  const std::int64_t rows = marked_span(x0, t_x, t_r, layer.stride_x, layer.dilation_x);
                  walked.input_reads += t_n * t_c * rows *
                                        (forwarding && y0 > origin[kSdmY] ? 1
                                                                          : marked_span(y0, t_y, t_s, layer.stride_y,
                                                                                        layer.dilation_y));
                }
          }
  };
  const std::function<void(int)> loop = [&](int level) {
    if (level == kNumSdmDims) return visit_block();
    const int dim = tile.sdm.order[size_t(level)];
    for (origin[size_t(dim)] = 0; origin[size_t(dim)] < extents[size_t(sdm_tile_dim(dim))];
         origin[size_t(dim)] += block[size_t(dim)])
      loop(level + 1);
    origin[size_t(dim)] = 0;
  };
  loop(0);
  return walked;
}

}  // namespace

TEST_CASE("SDM level: the model's phases, configurations, SDM reads, fills and DRAM bytes equal an explicit walk",
          "[sdm]") {
  std::mt19937 random(16);
  Hardware hardware = test::small_hardware(32, 8, 8);
  hardware.sdm_bytes = std::int64_t(1) << 30;  // the walk does not model capacity
  const auto pick = [&](std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(random);
  };
  for (int trial = 0; trial < 400; ++trial) {
    const std::int64_t R = pick(1, 3), S = pick(1, 3);
    Layer layer = test::conv_layer(pick(1, 9), pick(1, 9), R, S, pick(R, 9), pick(S, 9), pick(1, 2), pick(0, 1),
                                   pick(1, 2));
    if (layer.output_x() < 1 || layer.output_y() < 1) continue;
    const Mapping tile = test::random_mapping(layer, hardware.num_ms, random);
    INFO("layer K=" << layer.K << " C=" << layer.C << " R=" << R << " S=" << S << " X=" << layer.X << " Y="
                    << layer.Y << " stride " << layer.stride_x << " padding " << layer.padding_x << " N=" << layer.N
                    << "; " << to_string(tile));
    REQUIRE_FALSE(mapping_violation(layer, hardware, tile));
    const CostReport report = mapper::evaluate(layer, hardware, tile);
    const Walked walked = walk(layer, tile);
    CHECK(report.counts.weight_phases == walked.weight_phases);
    CHECK(report.counts.configurations == walked.configurations);
    CHECK(report.counts.sdm_input_reads == walked.input_reads);
    CHECK(report.counts.sdm_fill_writes == walked.input_fills + walked.weight_fills);
    CHECK(report.counts.dram_bytes ==
          (walked.input_fills + walked.weight_fills) * 2 + (walked.output_writes + walked.output_reads) * 4);
    CHECK(report.counts.dram_bytes >= report.compulsory_dram_bytes);
  }
}

TEST_CASE("SDM level: blocks of the whole layer cost as the single-level mapping, with compulsory DRAM traffic",
          "[sdm]") {
  std::mt19937 random(7);
  Hardware hardware = test::small_hardware(64, 16, 8);
  hardware.sdm_bytes = std::int64_t(1) << 30;
  for (int trial = 0; trial < 200; ++trial) {
    const Layer layer = test::conv_layer(1 + trial % 7, 1 + trial % 5, 1 + trial % 3, 1 + trial % 2, 5 + trial % 4,
                                         4 + trial % 5, 1 + trial % 2, trial % 2);
    Mapping single = test::random_mapping(layer, hardware.num_ms, random);
    single.sdm = {};
    Mapping whole = single;
    whole.sdm.blocked = true;
    whole.sdm.block = {layer.K, layer.C, layer.N, layer.output_x(), layer.output_y()};
    whole.sdm.order = all_sdm_orders()[size_t(trial) % 120];
    const CostReport a = mapper::evaluate(layer, hardware, single), b = mapper::evaluate(layer, hardware, whole);
    INFO(to_string(whole));
    CHECK(a.counts.configurations == b.counts.configurations);
    CHECK(a.cycles.compute() == b.cycles.compute());
    CHECK(a.counts.sdm_input_reads == b.counts.sdm_input_reads);
    CHECK(a.counts.mn_weight_loads == b.counts.mn_weight_loads);
    // Compulsory: every touched (padded) input and weight once, every output once, in bytes (16/32-bit data).
    const std::int64_t rows = (layer.output_x() - 1) * layer.stride_x + layer.R;
    const std::int64_t columns = (layer.output_y() - 1) * layer.stride_y + layer.S;
    const std::int64_t compulsory = (layer.C * rows * columns + layer.K * layer.C * layer.R * layer.S) * 2 +
                                    layer.K * layer.output_x() * layer.output_y() * 4;
    if (layer.stride_x <= layer.R && layer.stride_y <= layer.S) CHECK(b.compulsory_dram_bytes == compulsory);
    CHECK(b.counts.dram_bytes == b.compulsory_dram_bytes);
  }
}

TEST_CASE("SDM level: rules name the field and the rule; orders must be permutations", "[sdm]") {
  const Layer layer = test::conv_layer(8, 6, 3, 3, 11, 10);  // X' = 9, Y' = 8
  Hardware hardware = test::small_hardware(64, 16, 16);
  hardware.sdm_bytes = 1 << 20;
  Mapping tile;
  tile.tile.size = {3, 3, 1, 2, 1, 2, 1};  // 36 of 64 multiplier switches, 4 VNs
  tile.sdm.blocked = true;
  tile.sdm.block = {4, 6, 1, 6, 8};
  CHECK_FALSE(mapping_violation(layer, hardware, tile));
  tile.sdm.block[kSdmK] = 1;
  CHECK(*mapping_violation(layer, hardware, tile) == "SDM bound: sdm.K = 1 is smaller than the fabric tile T_K = 2");
  tile.sdm.block[kSdmK] = 3;
  CHECK(*mapping_violation(layer, hardware, tile) ==
        "SDM multiple: sdm.K = 3 must be a multiple of the fabric tile T_K = 2 (or the layer's K = 8)");
  tile.sdm.block[kSdmK] = 9;
  CHECK(*mapping_violation(layer, hardware, tile) == "SDM bound: sdm.K = 9 exceeds the layer's K = 8");
  tile.sdm.block[kSdmK] = 4;
  tile.sdm.block[kSdmX] = 4;  // X' = 9 = 2·4 + 1: a last block of 1 < T_X' = 2
  CHECK(*mapping_violation(layer, hardware, tile) ==
        "SDM edge: sdm.X = 4 leaves a last block of 1 X' smaller than the fabric tile T_X' = 2");
  tile.sdm.block[kSdmX] = 6;
  // One block: inputs N·C·(6 + 2 rows)·(8 + 2 columns)·2 B = 1·6·8·10·2 = 960; weights 4·6·9·2 = 432; outputs
  // 4·6·8·4 = 768; staging (2·log2 64 + 3 = 15 cycles)·16 lanes + 2·4 VNs = 248 results · 4 B = 992.
  const SdmWorkingSet set = sdm_working_set(layer, hardware, tile);
  CHECK(set.inputs == 960);
  CHECK(set.weights == 432);
  CHECK(set.outputs == 768);
  CHECK(set.staging == 992);
  hardware.sdm_bytes = 2 * (960 + 432) + 992 - 1;
  CHECK(*mapping_violation(layer, hardware, tile) ==
        "SDM capacity: one SDM block needs 2·(960 input + 432 weight bytes) + max(768 output, 992 staging bytes) = "
        "3776 bytes, the SDM holds 3775");
  hardware.sdm_bytes += 1;
  CHECK_FALSE(mapping_violation(layer, hardware, tile));

  CHECK(parse_order("CKNXY"));
  CHECK(order_text(*parse_order("YXNCK")) == "YXNCK");
  CHECK_FALSE(parse_order("KCNX"));
  CHECK(order_problem("KCNX") == "Y is missing");
  CHECK(order_problem("KCNXK") == "K appears twice");
  CHECK(order_problem("KCNXZ") == "'Z' is not one of K, C, N, X, Y");
  CHECK(all_sdm_orders().size() == 120);
}

TEST_CASE("SDM level: candidates hold whole fabric tiles; the distinct orders cover every order's cost", "[sdm]") {
  // ⌈10/3⌉ = 4 tiles: m = 1, 2, 4 -> 3, 6, min(10, 12); for an output dimension 3 leaves a last block of 1 < 3.
  CHECK(mapper::sdm_block_candidates(10, 3, false) == std::vector<std::int64_t>{3, 6, 10});
  CHECK(mapper::sdm_block_candidates(10, 3, true) == std::vector<std::int64_t>{6, 10});
  CHECK(mapper::sdm_block_candidates(224, 1, true).size() == 12);  // the divisors of 224 = 2^5·7
  // K and C at slots i < j of five (10 pairs, 2 ways round) split N, X', Y' into runs of a, b, c loops whose
  // order within a run does not matter: Σ 3!/(a!·b!·c!) = 1+3+3+1+3+6+3+3+3+1 = 27 per way round, 54 classes.
  CHECK(mapper::distinct_sdm_orders({2, 2, 2, 2, 2}).size() == 54);
  CHECK(mapper::distinct_sdm_orders({1, 1, 1, 1, 1}).size() == 1);
  CHECK(mapper::distinct_sdm_orders({2, 2, 1, 1, 1}).size() == 2);  // K before or after C

  // Every one of the 120 orders costs as its class's representative.
  Hardware hardware = test::small_hardware(32, 8, 8);
  hardware.sdm_bytes = std::int64_t(1) << 30;
  std::mt19937 random(3);
  for (int trial = 0; trial < 40; ++trial) {
    const Layer layer = test::conv_layer(6 + trial % 3, 4 + trial % 5, 3, 3, 8, 9, 1, 1, 1 + trial % 2);
    Mapping tile = test::random_mapping(layer, hardware.num_ms, random);
    std::set<std::pair<double, double>> all, distinct;
    for (const SdmOrder& order : all_sdm_orders()) {
      tile.sdm.order = order;
      const CostReport report = mapper::evaluate(layer, hardware, tile);
      all.insert({report.cycles.total, report.energy_pj.total});
    }
    const auto trips = contracts::sdm_trips(layer_extents(layer), tile.sdm.block);
    const auto& representatives = mapper::distinct_sdm_orders(trips);
    for (const SdmOrder& order : representatives) {
      tile.sdm.order = order;
      const CostReport report = mapper::evaluate(layer, hardware, tile);
      distinct.insert({report.cycles.total, report.energy_pj.total});
    }
    if (all != distinct)
      for (const SdmOrder& order : all_sdm_orders()) {
        tile.sdm.order = order;
        const CostReport report = mapper::evaluate(layer, hardware, tile);
        UNSCOPED_INFO(order_text(order) << " " << report.cycles.total << " " << report.energy_pj.total << " G="
                                        << report.counts.configurations << " dram=" << report.counts.dram_bytes << " "
                                        << to_string(tile));
      }
    CHECK(all == distinct);
    // canonical_sdm_order names each order's class by a representative that costs the same.
    for (const SdmOrder& order : all_sdm_orders()) {
      const SdmOrder canonical = mapper::canonical_sdm_order(trips, order);
      REQUIRE(std::find(representatives.begin(), representatives.end(), canonical) != representatives.end());
      tile.sdm.order = order;
      const CostReport original = mapper::evaluate(layer, hardware, tile);
      tile.sdm.order = canonical;
      const CostReport renamed = mapper::evaluate(layer, hardware, tile);
      INFO(order_text(order) << " -> " << order_text(canonical) << " " << to_string(tile));
      CHECK(original.cycles.total == renamed.cycles.total);
      CHECK(original.energy_pj.total == renamed.energy_pj.total);
    }
    for (const SdmOrder& representative : representatives)
      CHECK(mapper::canonical_sdm_order(trips, representative) == representative);
  }
}

TEST_CASE("Joint search: exhaustive on small layers, it finds the brute-force optimum of the joint space", "[sdm]") {
  Hardware hardware = test::small_hardware(16, 4, 4);
  hardware.sdm_bytes = 2048;
  const Layer layers[] = {test::conv_layer(4, 3, 3, 3, 6, 6, 1, 1), test::conv_layer(6, 4, 1, 1, 5, 4),
                          test::fc_layer(12, 10)};
  for (const Layer& layer : layers) {
    for (const mapper::Objective objective :
         {mapper::Objective::Runtime, mapper::Objective::Energy, mapper::Objective::EnergyDelay}) {
      mapper::SearchOptions options{objective, 1, 0, {}, {}};
      options.joint.enabled = true;
      options.joint.budget = std::uint64_t(1) << 40;
      const mapper::SearchResult result = mapper::search(layer, hardware, options);
      REQUIRE(result.joint_exhaustive);
      // Brute force: every fabric tile, every SDM candidate combination that passes the rules, every order.
      const auto extents = layer_extents(layer);
      std::optional<CostReport> best;
      std::uint64_t evaluated = 0;
      Mapping tile;
      const std::function<void(int)> fabric = [&](int dim) {
        if (dim == kNumTileDims) {
          if (tile.mapped_ms() > hardware.num_ms) return;
          tile.sdm = {};
          const auto consider = [&](const Mapping& mapping) {
            ++evaluated;
            const CostReport report = mapper::evaluate(layer, hardware, mapping);
            if (!best || mapper::better(report, *best, objective)) best = report;
          };
          for (const PhaseOrder phase_order : kPhaseOrders) {
            tile.phase_order = phase_order;
            consider(tile);
          }
          tile.phase_order = kDefaultPhaseOrder;
          const mapper::SdmCandidates candidates = mapper::sdm_candidates(layer, tile);
          Mapping mapping = tile;
          mapping.sdm.blocked = true;
          for (auto k : candidates.blocks[kSdmK])
            for (auto c : candidates.blocks[kSdmC])
              for (auto n : candidates.blocks[kSdmN])
                for (auto x : candidates.blocks[kSdmX])
                  for (auto y : candidates.blocks[kSdmY]) {
                    mapping.sdm.block = {k, c, n, x, y};
                    if (sdm_violation(layer, hardware, mapping)) continue;
                    for (const SdmOrder& order : all_sdm_orders())
                      for (const PhaseOrder phase_order : kPhaseOrders) {
                        mapping.sdm.order = order;
                        mapping.phase_order = phase_order;
                        consider(mapping);
                      }
                  }
          return;
        }
        for (tile[dim] = 1; tile[dim] <= extents[size_t(dim)]; ++tile[dim]) fabric(dim + 1);
      };
      fabric(0);
      REQUIRE(best);
      INFO("layer K=" << layer.K << " C=" << layer.C << "; ours " << to_string(result.best.front().mapping)
                      << ", brute force " << to_string(best->mapping) << " of " << evaluated);
      CHECK(result.best.front().cycles.total == best->cycles.total);
      CHECK(result.best.front().energy_pj.total == best->energy_pj.total);
      CHECK(result.joint_evaluated > 0);
    }
    // Ranked with exact traffic, what is reported is the exact report of the mapping shown.
    mapper::SearchOptions exact{mapper::Objective::Energy, 3, 0, {}, codegen::exact_traffic_for(layer, hardware)};
    exact.joint.enabled = true;
    exact.joint.budget = std::uint64_t(1) << 40;
    for (const CostReport& report : mapper::search(layer, hardware, exact).best) {
      CostReport again = mapper::evaluate(layer, hardware, report.mapping);
      codegen::refine_with_exact_traffic(again, layer, hardware);
      CHECK(again.counts.dn_traversals == report.counts.dn_traversals);
      CHECK(again.counts.rn_traversals == report.counts.rn_traversals);
      CHECK(again.energy_pj.total == report.energy_pj.total);
    }
  }
}

TEST_CASE("SDM level: evaluate_orders gives evaluate()'s and evaluate_lower_bound()'s reports for every order",
          "[sdm]") {
  std::mt19937 random(11);
  Hardware hardware = test::small_hardware(32, 8, 4);
  hardware.sdm_bytes = std::int64_t(1) << 30;
  const auto orders = all_sdm_orders();
  for (int trial = 0; trial < 60; ++trial) {
    const Layer layer = test::conv_layer(3 + trial % 7, 2 + trial % 5, 1 + trial % 3, 1 + trial % 2, 6 + trial % 4,
                                         5 + trial % 3, 1 + trial % 2, trial % 2, 1 + trial % 2);
    const Mapping tile = test::random_mapping(layer, hardware.num_ms, random);
    INFO(to_string(tile));
    for (const bool lower : {false, true}) {
      // Each phase order that can change the cost (both only with a ragged fabric tile), then every SDM order.
      const auto phase_orders = mapper::distinct_phase_orders(layer, tile);
      std::size_t i = 0;
      mapper::evaluate_orders(layer, hardware, tile, phase_orders, orders, lower, [&](const CostReport& report) {
        Mapping mapping = tile;
        mapping.phase_order = phase_orders[i / orders.size()];
        mapping.sdm.order = orders[i++ % orders.size()];
        const CostReport alone =
            lower ? mapper::evaluate_lower_bound(layer, hardware, mapping) : mapper::evaluate(layer, hardware, mapping);
        CHECK(report.mapping == mapping);
        CHECK(report.cycles.total == alone.cycles.total);
        CHECK(report.cycles.compute() == alone.cycles.compute());
        CHECK(report.energy_pj.total == alone.energy_pj.total);
        CHECK(report.counts.dram_bytes == alone.counts.dram_bytes);
        CHECK(report.counts.configurations == alone.counts.configurations);
        CHECK(report.counts.dn_traversals == alone.counts.dn_traversals);
      });
      CHECK(i == orders.size() * phase_orders.size());
    }
  }
}

// By hand: 2 groups of K/groups = 6 filters in SDM blocks of 4 (the second block ragged: 2 filters) with T_K = 4, so a
// group's blocks have the shapes A (4 filters) and B (2 filters); N = 2 in blocks of 1. N outside K plays
// A B A B per group: 4 configuration runs, 8 for both groups; K outside N plays A A B B: 2 runs, 4 in all. K = 12 is a
// multiple of the block, so only the blocks of a group's filters tell that the sequence depends on the order.
TEST_CASE("SDM level: a ragged K block within a group makes the configurations depend on the order", "[sdm]") {
  Hardware hardware = test::small_hardware(32, 8, 4);
  hardware.sdm_bytes = std::int64_t(1) << 30;
  Layer layer = test::conv_layer(12, 4, 1, 1, 2, 2, 1, 0, 2);
  layer.groups = 2;
  Mapping tile;
  tile.tile.size = {1, 1, 2, 4, 1, 1, 1};
  tile.sdm.blocked = true;
  tile.sdm.block = {4, 2, 1, 2, 2};
  tile.sdm.order = {kSdmN, kSdmK, kSdmC, kSdmX, kSdmY};
  REQUIRE_FALSE(mapping_violation(layer, hardware, tile));
  const std::vector<SdmOrder> orders = {{kSdmN, kSdmK, kSdmC, kSdmX, kSdmY}, {kSdmK, kSdmN, kSdmC, kSdmX, kSdmY}};
  const std::int64_t expected[2] = {8, 4};
  for (std::size_t i = 0; i < orders.size(); ++i) {
    tile.sdm.order = orders[i];
    CHECK(mapper::evaluate(layer, hardware, tile).counts.configurations == expected[i]);
  }
  std::size_t i = 0;
  mapper::evaluate_orders(layer, hardware, tile, {tile.phase_order}, orders, false, [&](const CostReport& report) {
    CHECK(report.counts.configurations == expected[i++]);
  });
  i = 0;
  mapper::evaluate_orders(layer, hardware, tile, {tile.phase_order}, orders, {mapper::FusedRole{}},
                          [&](const CostReport& report, std::size_t) { CHECK(report.counts.configurations == expected[i++]); });
  CHECK(i == 2);
}
