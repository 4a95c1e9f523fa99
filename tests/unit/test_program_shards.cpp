// Shards of a layer program: run separately on the functional model and merged, they give exactly the outputs
// and per-step/per-phase activity of the unsharded program (the unsharded run is the oracle), on random layers
// with ragged filter tiles, reduction folds and MN forwarding.
#include <catch2/catch.hpp>

#include <random>

#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "codegen/program_shards.hpp"
#include "mapper/mapspace/tile_space.hpp"
#include "tests/unit/mapper_fixtures.hpp"

using namespace maeri;
using namespace maeri::test;

TEST_CASE("cut_shards: contiguous filter ranges of balanced tile counts", "[codegen][shards]") {
  // K = 10 with T_K = 3: filter tiles start at 0, 3, 6, 9 (4 tiles, the last ragged).
  const contracts::Layer layer = conv_layer(10, 2, 1, 1, 2, 2);
  contracts::Mapping tile;
  tile.tile.size = {1, 1, 2, 3, 1, 1, 1};
  const codegen::LayerProgram program = codegen::plan_layer(layer, small_hardware(16, 4, 4), tile);
  const auto three = codegen::cut_shards(program, 3);  // tiles {0}, {3}, {6, 9}: 4·s/3 = 0, 1, 2, 4
  REQUIRE(three.size() == 3);
  CHECK((three[0].k_begin == 0 && three[0].k_end == 3));
  CHECK((three[1].k_begin == 3 && three[1].k_end == 6));
  CHECK((three[2].k_begin == 6 && three[2].k_end == 10));
  CHECK(codegen::cut_shards(program, 100).size() == 4);  // never more shards than filter tiles
  CHECK(codegen::cut_shards(program, 1).front().k_end == 10);
  CHECK_THROWS(codegen::cut_shards(program, 0));
}

TEST_CASE("shards merged equal one run: outputs and per-step activity, 120 random layers", "[codegen][shards]") {
  std::mt19937_64 rng(15);
  int cases = 0, with_folds = 0, with_forwarding = 0, ragged = 0;
  while (cases < 120) {
    const auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    const int R = pick(1, 3), S = pick(1, 3);
    contracts::Layer layer = conv_layer(pick(1, 9), pick(1, 5), R, S, R + pick(0, 4), S + pick(0, 4), pick(1, 2),
                                   pick(0, 1), pick(1, 2));
    const contracts::Hardware hardware = small_hardware(32, 8, 4);
    contracts::Mapping tile;
    tile.tile.size = {pick(1, int(layer.R)), pick(1, int(layer.S)), pick(1, int(layer.C)), pick(1, int(layer.K)), 1,
                 pick(1, 2), 1};
    if (tile.vn_size() * tile[contracts::kDimK] * tile[contracts::kDimX] > hardware.num_ms) continue;
    if (tile[contracts::kDimX] > layer.output_x()) continue;
    codegen::LayerProgram program;
    try {
      program = codegen::plan_layer(layer, hardware, tile);
    } catch (const std::exception&) {
      continue;  // a tile the fabric cannot place
    }
    ++cases;
    with_folds += tile.vn_size() < layer.R * layer.S * layer.C;
    with_forwarding += program.forwarding;
    ragged += layer.K % tile[contracts::kDimK] != 0;
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, 16, rng());
    const codegen::FunctionalResult whole = codegen::execute_layer(program, hardware, tensors);
    const auto shards = codegen::cut_shards(program, pick(2, 4));
    std::vector<std::int64_t> merged(whole.output.size(), 0x5a5a);
    codegen::FunctionalActivity sum;
    for (const codegen::ProgramShard& shard : shards) {
      const codegen::FunctionalResult part =
          codegen::execute_layer(codegen::shard_program(program, shard), hardware, tensors);
      codegen::merge_shard_outputs(layer, shard, codegen::shard_outputs(layer, shard, part.output), merged);
      sum.weight_phases += part.activity.weight_phases;
      sum.fires += part.activity.fires;
      sum.multiplications += part.activity.multiplications;
      sum.mn_forwards += part.activity.mn_forwards;
      sum.additions += part.activity.additions;
      sum.rn_traversals += part.activity.rn_traversals;
      sum.dn_elements += part.activity.dn_elements;
      sum.dn_traversals += part.activity.dn_traversals;
      sum.results += part.activity.results;
      sum.accumulation_additions += part.activity.accumulation_additions;
    }
    INFO(layer.name << " K=" << layer.K << " tile " << contracts::to_compact_string(tile.tile) << " shards " << shards.size());
    CHECK(merged == whole.output);
    CHECK(sum.weight_phases == whole.activity.weight_phases);
    CHECK(sum.fires == whole.activity.fires);
    CHECK(sum.multiplications == whole.activity.multiplications);
    CHECK(sum.mn_forwards == whole.activity.mn_forwards);
    CHECK(sum.additions == whole.activity.additions);
    CHECK(sum.rn_traversals == whole.activity.rn_traversals);
    CHECK(sum.dn_elements == whole.activity.dn_elements);
    CHECK(sum.dn_traversals == whole.activity.dn_traversals);
    CHECK(sum.results == whole.activity.results);
    CHECK(sum.accumulation_additions == whole.activity.accumulation_additions);
  }
  // Coverage: the cases exercised what makes sharding delicate.
  CHECK(with_folds > 10);
  CHECK(with_forwarding > 10);
  CHECK(ragged > 10);
}
