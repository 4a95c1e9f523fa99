// Stripe pieces of a fused member's program (codegen/fused_stripes.hpp): run separately on the functional model and
// merged, they give exactly the outputs and per-step/per-phase activity of the whole program (the whole run is the
// oracle), on random plain, grouped and depthwise layers with two-level mappings whose X' loop is outermost; and the
// configurations the pieces write are the model's count in a role with that many stripes (mapper::evaluate). The same
// for query-row stripes (a matrix product's K per group, the g0 loop inside the stripe loop) whose last K block is
// ragged, the pieces expanded from the member's image as the chained run plays them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>

#include "codegen/config_image.hpp"
#include "codegen/functional_model.hpp"
#include "codegen/fused_stripes.hpp"
#include "codegen/image_program.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/sdm_budget.hpp"
#include "contracts/sdm_rules.hpp"
#include "contracts/tile.hpp"
#include "mapper/model/cost_model.hpp"
#include "tests/unit/mapper_fixtures.hpp"

using namespace maeri;
using namespace maeri::test;

namespace {

// The layer's program under the mapping, or nothing when the fabric cannot place its tile.
std::optional<codegen::LayerProgram> placed_program(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                                    const contracts::Mapping& mapping) {
  try {
    return codegen::plan_layer(layer, hardware, mapping);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

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
    const std::optional<codegen::LayerProgram> placed = placed_program(layer, hardware, mapping);
    if (!placed) continue;  // a tile the fabric cannot place
    const codegen::LayerProgram& program = *placed;
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

namespace {

// Whether two programs play the same phases (weights, block, accumulation, steps) in the same order.
bool same_phases_in_order(const codegen::LayerProgram& a, const codegen::LayerProgram& b) {
  if (a.phases.size() != b.phases.size()) return false;
  for (std::size_t p = 0; p < a.phases.size(); ++p) {
    const codegen::WeightPhase &x = a.phases[p], &y = b.phases[p];
    if (x.configuration != y.configuration || x.group != y.group || x.r0 != y.r0 || x.s0 != y.s0 || x.c0 != y.c0 ||
        x.k0 != y.k0 || x.block != y.block || x.accumulate != y.accumulate || x.steps.size() != y.steps.size())
      return false;
    for (std::size_t t = 0; t < x.steps.size(); ++t)
      if (x.steps[t].n0 != y.steps[t].n0 || x.steps[t].x0 != y.steps[t].x0 || x.steps[t].y0 != y.steps[t].y0 ||
          x.steps[t].forward != y.steps[t].forward)
        return false;
  }
  return true;
}

}  // namespace

// The oracle is the whole program on the functional model: the pieces the image plays (its FOR kb of the full blocks
// and the FOR kb of the ragged last block, the g0 loop inside each) must cover it exactly, phase for phase as the
// plan cuts it, and write the configurations the model counts for query-row stripes.
TEST_CASE("query-row stripes with a ragged last K block: the image's pieces merged equal one run and write the "
          "model's configurations: 120 random layers", "[codegen][fused]") {
  std::mt19937_64 rng(42);
  const auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  int cases = 0, grouped = 0, other_last_shapes = 0, draws = 0;
  while (cases < 120) {
    REQUIRE(++draws < 20000);  // most draws make a case: a rule refusing ragged query-row blocks ends the test here
    const int heads = pick(1, 3), rows = pick(3, 10), R = pick(1, 2), S = pick(1, 2);
    contracts::Layer layer = conv_layer(heads * rows, heads * pick(1, 4), R, S, R + pick(0, 3), S + pick(0, 2), 1, 0,
                                        pick(1, 2));
    layer.groups = heads;
    const contracts::Hardware hardware = small_hardware(32, 8, 4);
    const auto extents = contracts::layer_extents(layer);
    contracts::Mapping mapping;
    for (int d = 0; d < contracts::kNumTileDims; ++d)
      mapping.tile.size[size_t(d)] = pick(1, int(std::min<std::int64_t>(extents[size_t(d)], 3)));
    if (heads > 1 && pick(0, 1)) mapping.tile.groups = heads;
    mapping.sdm.blocked = true;
    for (int d = 0; d < contracts::kNumSdmDims; ++d) {
      const std::int64_t fabric = mapping[contracts::sdm_tile_dim(d)], extent = extents[size_t(contracts::sdm_tile_dim(d))];
      mapping.sdm.block[size_t(d)] = std::min(extent, fabric * pick(1, 3));
    }
    const std::int64_t t_k = mapping[contracts::kDimK];
    mapping.sdm.block[contracts::kSdmK] = t_k * pick(1, 3);
    if (mapping.sdm.block[contracts::kSdmK] >= rows || rows % mapping.sdm.block[contracts::kSdmK] == 0) continue;
    std::vector<std::uint8_t> rest = {contracts::kSdmC, contracts::kSdmN, contracts::kSdmX, contracts::kSdmY};
    std::shuffle(rest.begin(), rest.end(), rng);
    mapping.sdm.order = {contracts::kSdmK, rest[0], rest[1], rest[2], rest[3]};
    if (pick(0, 2) == 0) mapping.phase_order = contracts::PhaseOrder::FiltersOuter;
    if (contracts::mapping_violation(layer, hardware, mapping)) continue;
    contracts::FusedRole role;
    role.stripes = contracts::sdm_trips(extents, mapping.sdm.block)[contracts::kSdmK];
    role.token_stripes = role.query_rows = true;
    if (contracts::fused_member_violation(layer, mapping, role, false)) continue;
    const std::optional<codegen::LayerProgram> placed = placed_program(layer, hardware, mapping);
    if (!placed) continue;  // a tile the fabric cannot place
    const codegen::LayerProgram& program = *placed;
    ++cases;
    grouped += heads > 1;
    INFO(contracts::shape_text(layer) << " groups " << heads << " tile " << contracts::to_string(mapping) << ", "
                                      << role.stripes << " query-row stripes");
    const codegen::ConfigImage image = codegen::build_image(program, hardware, contracts::FusedMember{"g", 1, 2, role});
    // The image validates as a user ships it: its stripe loop, then the ragged last block's loop right after it.
    REQUIRE(codegen::decode_image(codegen::encode_image(image), "image") == image);
    CHECK(codegen::stripe_loop(image));
    CHECK(codegen::ragged_stripe_loop(image));
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, 16, rng());
    const codegen::FunctionalResult whole = codegen::execute_layer(program, hardware, tensors);
    std::vector<std::int64_t> merged(whole.output.size(), 0x5a5a);
    std::int64_t multiplications = 0, results = 0, configurations = 0, first_piece = -1, last_piece = -1;
    const auto pieces = codegen::stripe_pieces(layer, mapping, role.stripes, true, true);
    REQUIRE(pieces.back().end - pieces.back().begin == rows % mapping.sdm.block[contracts::kSdmK]);
    for (const codegen::StripePiece& piece : pieces) {
      const codegen::LayerProgram part = codegen::expand_image(
          image, "image", codegen::PlanDetail::Steps,
          [&](const codegen::WeightPhase& phase) { return codegen::in_stripe(phase, piece); });
      REQUIRE(same_phases_in_order(part, codegen::stripe_program(program, piece)));
      const codegen::FunctionalResult run = codegen::execute_layer(part, hardware, tensors);
      codegen::merge_stripe_outputs(layer, piece, codegen::stripe_outputs(layer, piece, run.output), merged);
      multiplications += run.activity.multiplications;
      results += run.activity.results;
      const std::int64_t writes = codegen::configuration_writes(part);
      configurations += writes;
      if (piece.index == 0) first_piece = writes;
      last_piece = writes;
    }
    CHECK(merged == whole.output);
    CHECK(multiplications == whole.activity.multiplications);
    CHECK(results == whole.activity.results);
    CHECK(mapper::evaluate(layer, hardware, mapping, role).counts.configurations == configurations);
    other_last_shapes += last_piece != first_piece;
  }
  CHECK(grouped > 40);
  // Cases where the ragged stripe configures the fabric otherwise than a full one (its phases have other shapes).
  CHECK(other_last_shapes > 10);
}

// By hand: 2 heads of 6 query rows in K blocks of 4 — stripes of rows 0..3 and 4..5 of each head. The image's FOR kb
// of the full block (one iteration) is followed by the ragged block's (one iteration, from 4); a ragged loop that
// does not continue the stripe loop, or repeats, is refused when the image is read.
TEST_CASE("query-row stripes: the ragged last block's FOR kb, and images that break it", "[codegen][fused]") {
  contracts::Layer layer = conv_layer(12, 4, 1, 1, 3, 1, 1, 0, 1);
  layer.groups = 2;
  const contracts::Hardware hardware = small_hardware(32, 8, 4);
  contracts::Mapping mapping;
  mapping.tile.size = {1, 1, 2, 2, 1, 1, 1};
  mapping.sdm.blocked = true;
  mapping.sdm.block = {4, 2, 1, 3, 1};
  mapping.sdm.order = {contracts::kSdmK, contracts::kSdmC, contracts::kSdmN, contracts::kSdmX, contracts::kSdmY};
  contracts::FusedRole role;
  role.stripes = 2;
  role.token_stripes = role.query_rows = true;
  REQUIRE_FALSE(contracts::fused_member_violation(layer, mapping, role, false));
  const codegen::ConfigImage image = codegen::build_image(codegen::plan_layer(layer, hardware, mapping), hardware,
                                                          contracts::FusedMember{"g", 1, 2, role});
  const std::optional<std::size_t> full = codegen::stripe_loop(image), ragged = codegen::ragged_stripe_loop(image);
  REQUIRE((full && ragged));
  CHECK(image.program[*full].operand[1] == 0);
  CHECK(image.program[*full].operand[2] == 1);
  CHECK(image.program[*ragged].operand[1] == 4);
  CHECK(image.program[*ragged].operand[2] == 1);
  CHECK(image.program[*full + 1].operand[0] == std::uint32_t(codegen::LoopRegister::G0));  // every head in a stripe
  CHECK(image.program[*ragged + 1].operand[0] == std::uint32_t(codegen::LoopRegister::G0));
  const auto refused = [&](const codegen::ConfigImage& broken) {
    try {
      codegen::decode_image(codegen::encode_image(broken), "q.mimg");
    } catch (const codegen::ImageError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  CHECK(refused(image).empty());
  codegen::ConfigImage repeats = image;
  repeats.program[*ragged].operand[2] = 2;  // the ragged block twice: kb = 8 lies past the 6 query rows
  CHECK_THAT(refused(repeats), Catch::Contains("kb = 4 + (2 − 1)·4 = 8 reaches past the layer's K/groups = 6"));
  codegen::ConfigImage elsewhere = image;
  elsewhere.program[*ragged].operand[1] = 2;  // not where the stripe loop ends
  CHECK_THAT(refused(elsewhere), Catch::Contains("no single FOR kb to run as the stripe loop"));
}
