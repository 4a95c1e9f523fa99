// Stripe pieces of a fused member's program (codegen/fused_stripes.hpp): run separately on the functional model and
// merged, they give exactly the outputs and per-step/per-phase activity of the whole program (the whole run is the
// oracle), on random plain, grouped and depthwise layers with two-level mappings whose X' loop is outermost; and the
// configurations the pieces write are the model's count in a role with that many stripes (mapper::evaluate).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "codegen/functional_model.hpp"
#include "codegen/fused_stripes.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/sdm_budget.hpp"
#include "contracts/tile.hpp"
#include "mapper/model/cost_model.hpp"
#include "tests/unit/mapper_fixtures.hpp"

using namespace maeri;
using namespace maeri::test;

TEST_CASE("stripe_pieces: the X' blocks of a mapping whose X loop is outermost, or why not", "[codegen][fused]") {
  const contracts::Layer layer = conv_layer(4, 2, 3, 3, 9, 4, 1, 1);  // X' = 9
  contracts::Mapping mapping;
  mapping.tile.size = {3, 3, 2, 2, 1, 1, 1};
  mapping.sdm.blocked = true;
  mapping.sdm.block = {4, 2, 1, 4, 4};  // X' blocks of 4, 4, 1 rows
  mapping.sdm.order = {contracts::kSdmK, contracts::kSdmX, contracts::kSdmC, contracts::kSdmN, contracts::kSdmY};
  const auto pieces = codegen::stripe_pieces(layer, mapping, 3);
  REQUIRE(pieces.size() == 3);
  CHECK((pieces[0].begin == 0 && pieces[0].end == 4));
  CHECK((pieces[2].begin == 8 && pieces[2].end == 9));
  CHECK(codegen::stripe_pieces(layer, mapping, 1).front().end == 9);
  CHECK_THROWS_WITH(codegen::stripe_pieces(layer, mapping, 2), Catch::Contains("3 blocks"));
  mapping.sdm.block[contracts::kSdmK] = 2;  // two K blocks outside the X loop
  CHECK_THROWS_WITH(codegen::stripe_pieces(layer, mapping, 3), Catch::Contains("outside the X loop"));
  mapping.sdm.blocked = false;
  CHECK_THROWS_WITH(codegen::stripe_pieces(layer, mapping, 3), Catch::Contains("no SDM level"));
}

TEST_CASE("stripe pieces merged equal one run, and write the model's configurations: 150 random layers",
          "[codegen][fused]") {
  std::mt19937_64 rng(32);
  const auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  int cases = 0, grouped = 0, reconfiguring_boundaries = 0;
  while (cases < 150) {
    const int R = pick(1, 3), S = pick(1, 3);
    contracts::Layer layer = conv_layer(pick(1, 6), pick(1, 5), R, S, R + pick(2, 6), S + pick(0, 3), pick(1, 2),
                                        pick(0, 1));
    if (pick(0, 2) == 0) {  // grouped or depthwise
      const int groups = pick(2, 4);
      layer.C = groups * pick(1, 2);
      layer.K = groups * pick(1, 2);
      layer.groups = groups;
    }
    const contracts::Hardware hardware = small_hardware(32, 8, 4);
    const auto extents = contracts::layer_extents(layer);
    contracts::Mapping mapping;
    for (int d = 0; d < contracts::kNumTileDims; ++d)
      mapping.tile.size[size_t(d)] = pick(1, int(std::min<std::int64_t>(extents[size_t(d)], 3)));
    if (layer.groups > 1 && pick(0, 1)) mapping.tile.groups = layer.groups % 2 == 0 ? 2 : 1;
    mapping.sdm.blocked = true;
    for (int d = 0; d < contracts::kNumSdmDims; ++d) {
      const std::int64_t fabric = mapping[contracts::sdm_tile_dim(d)], extent = extents[size_t(contracts::sdm_tile_dim(d))];
      mapping.sdm.block[size_t(d)] = std::min(extent, fabric * pick(1, 3));
    }
    std::vector<std::uint8_t> rest = {contracts::kSdmK, contracts::kSdmC, contracts::kSdmN, contracts::kSdmY};
    std::shuffle(rest.begin(), rest.end(), rng);
    mapping.sdm.order = {contracts::kSdmX, rest[0], rest[1], rest[2], rest[3]};
    if (contracts::mapping_violation(layer, hardware, mapping)) continue;
    const std::int64_t stripes =
        contracts::sdm_trips(extents, mapping.sdm.block)[contracts::kSdmX];
    codegen::LayerProgram program;
    try {
      program = codegen::plan_layer(layer, hardware, mapping);
    } catch (const std::exception&) {
      continue;  // a tile the fabric cannot place
    }
    ++cases;
    grouped += layer.groups > 1;
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, 16, rng());
    const codegen::FunctionalResult whole = codegen::execute_layer(program, hardware, tensors);
    std::vector<std::int64_t> merged(whole.output.size(), 0x5a5a);
    codegen::FunctionalActivity sum;
    std::int64_t configurations = 0;
    for (const codegen::StripePiece& piece : codegen::stripe_pieces(layer, mapping, stripes)) {
      const codegen::LayerProgram part = codegen::stripe_program(program, piece);
      const codegen::FunctionalResult run = codegen::execute_layer(part, hardware, tensors);
      codegen::merge_stripe_outputs(layer, piece, codegen::stripe_outputs(layer, piece, run.output), merged);
      configurations += codegen::configuration_writes(part);
      sum.weight_phases += run.activity.weight_phases;
      sum.fires += run.activity.fires;
      sum.multiplications += run.activity.multiplications;
      sum.results += run.activity.results;
      sum.accumulation_additions += run.activity.accumulation_additions;
      sum.dn_elements += run.activity.dn_elements;
    }
    INFO(contracts::shape_text(layer) << " tile " << contracts::to_string(mapping) << ", " << stripes << " stripes");
    CHECK(merged == whole.output);
    CHECK(sum.weight_phases == whole.activity.weight_phases);
    CHECK(sum.fires == whole.activity.fires);
    CHECK(sum.multiplications == whole.activity.multiplications);
    CHECK(sum.results == whole.activity.results);
    CHECK(sum.accumulation_additions == whole.activity.accumulation_additions);
    CHECK(sum.dn_elements == whole.activity.dn_elements);
    contracts::FusedRole role;
    role.stripes = stripes;
    CHECK(mapper::evaluate(layer, hardware, mapping, role).counts.configurations == configurations);
    reconfiguring_boundaries += configurations < codegen::configuration_writes(program) + stripes - 1;
  }
  CHECK(grouped > 20);
  // Cases where a stripe boundary changes the configuration anyway (the model once counted one more there).
  CHECK(reconfiguring_boundaries > 5);
}
