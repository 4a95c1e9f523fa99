// A writer's image checked before it is planned (codegen/planned_image.hpp): planned_work, computed from the layer
// and its tile alone, must give the weight phases plan_layer plans (counted in the program it builds) and the steps
// and expanded bytes image_work computes from the built image — on random layers, grouped ones, fabric tiles, SDM
// levels and phase orders; a layer whose image its reader would refuse is refused before anything is planned,
// with the reader's message (issue 43: a 1×1 conv of 2^24 → 2^24 channels planned weight phases until killed).
#include <catch2/catch.hpp>

#include <random>

#include "codegen/image_program.hpp"
#include "codegen/layer_program.hpp"
#include "codegen/planned_image.hpp"
#include "contracts/tile.hpp"
#include "mapper_fixtures.hpp"
#include "random_mappings.hpp"
#include "util/input_error.hpp"
#include "util/memory_budget.hpp"

using namespace maeri;
using namespace maeri::contracts;

TEST_CASE("planned_work gives the weight phases, steps and bytes of the image plan_layer and build_image make",
          "[planned-image]") {
  std::mt19937 random(43);
  Hardware hardware = test::small_hardware(32, 8, 8);
  hardware.sdm_bytes = std::int64_t(1) << 30;
  const auto pick = [&](std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(random);
  };
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::int64_t R = pick(1, 3), S = pick(1, 3);
    Layer layer = test::conv_layer(pick(1, 9), pick(1, 9), R, S, pick(R, 9), pick(S, 9), pick(1, 2), pick(0, 1),
                                   pick(1, 2));
    if (trial % 3 == 0) {  // depthwise: one channel and one filter per group
      layer.groups = layer.C;
      layer.K = layer.C;
    }
    if (layer.output_x() < 1 || layer.output_y() < 1) continue;
    Mapping tile = test::random_mapping(layer, hardware.num_ms, random);
    if (layer.groups > 1) tile.tile.groups = pick(1, layer.groups);
    if (mapping_violation(layer, hardware, tile)) continue;
    INFO("layer K=" << layer.K << " C=" << layer.C << " groups " << layer.groups << " R=" << R << " S=" << S
                    << " X=" << layer.X << " Y=" << layer.Y << " N=" << layer.N << "; " << to_string(tile));
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, tile);
    const codegen::ImageWork built = codegen::image_work(codegen::build_image(program, hardware));
    const codegen::ImageWork planned = codegen::planned_work(layer, tile);
    CHECK(planned.weight_phases == std::int64_t(program.phases.size()));
    CHECK(planned.weight_phases == built.weight_phases);
    CHECK(planned.steps == built.steps);
    CHECK(planned.expanded_program_bytes == built.expanded_program_bytes);
    CHECK(planned.weight_elements == built.weight_elements);
    CHECK(planned.padded_input_elements == built.padded_input_elements);
    CHECK(planned.macs == built.macs);
    ++checked;
  }
  CHECK(checked > 200);
}

TEST_CASE("A layer whose image its reader would refuse is refused before one weight phase is planned",
          "[planned-image]") {
  const Hardware hardware = test::small_hardware(64, 8, 8);
  // 2^24 → 2^24 channels, 1×1: 2^48 weights, far beyond kMaxInMemoryTensorElements (2^27).
  const Layer wide = test::conv_layer(std::int64_t(1) << 24, std::int64_t(1) << 24, 1, 1, 1, 1);
  Mapping tile;
  tile.tile.size[kDimC] = 8;
  tile.tile.size[kDimK] = 8;
  try {
    codegen::plan_image(wide, hardware, tile, std::nullopt, "wide.yaml");
    FAIL("the layer was planned");
  } catch (const util::InputError& error) {
    const std::string message = error.what();
    CHECK(error.where().file == "wide.yaml");
    CHECK(error.field() == "layers.test");
    CHECK_THAT(message, Catch::Contains("the weight tensor K·(C/groups)·R·S is 281474976710656, more than this "
                                        "build's limit of 134217728"));
  }
  // Within the reader's limits but beyond the memory budget: the budget's message, the layer and its tile named.
  // 64 → 64 channels, 3×3 on 32×32 with padding 1: 242,176 tensor elements, 1.9 MB at 8 bytes each.
  const Layer big = test::conv_layer(64, 64, 3, 3, 32, 32, 1, 1);
  Mapping small_tile;
  for (const int d : {int(kDimC), int(kDimK)}) small_tile.tile.size[size_t(d)] = 8;
  for (const int d : {int(kDimX), int(kDimY)}) small_tile.tile.size[size_t(d)] = 32;
  const std::uint64_t budget = util::memory_budget();
  util::set_memory_budget(1 << 20);
  CHECK_THROWS_WITH(codegen::require_plannable(big, small_tile, "big.yaml"),
                    Catch::Contains("more than the memory budget of 1048576 bytes"));
  util::set_memory_budget(budget);
}
