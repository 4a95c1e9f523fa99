// The controller's step input cache (timing/step_input_cache.hpp) against codegen::step_inputs, the one definition of
// a step's DN elements: on random layers of every kind (grouped, depthwise, dilated, strided, padded, batched, GEMM)
// under random legal tiles, every step of every phase gives the same elements — values, sources, destination lists
// and order — and the same used VNs. Plain C++ (no fabric), but it lives beside the co-simulation's tests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>

#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/tile.hpp"
#include "../random_layers.hpp"
#include "timing/step_input_cache.hpp"

using namespace maeri;

TEST_CASE("step input cache: every step's elements equal codegen::step_inputs", "[rtl][cosim]") {
  contracts::Hardware hardware =
      contracts::load_hardware(std::string(MAERI_SOURCE_DIR) + "/configs/hardware/maeri-64.yaml");
  std::mt19937_64 rng(46);
  int steps = 0, inside_steps = 0, forwarded = 0;
  for (int round = 0; round < 300; ++round) {
    const contracts::Layer layer = test::random_layer_of_new_kind(rng);
    const contracts::Mapping tile = test::random_small_tile(layer, hardware, rng);
    INFO(contracts::shape_text(layer) << " tile " << contracts::to_string(tile));
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, tile);
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, rng());
    timing::StepInputCache cache;
    for (const codegen::WeightPhase& phase : program.phases)
      for (const codegen::StepOrigin& step : phase.steps) {
        const codegen::StepElements expected = codegen::step_inputs(program, phase, step, tensors.input);
        const codegen::StepElements& got = cache.inputs(program, phase, step, tensors.input);
        REQUIRE(got.used_vns == expected.used_vns);
        REQUIRE(got.inputs.size() == expected.inputs.size());
        for (std::size_t i = 0; i < got.inputs.size(); ++i) {
          REQUIRE(got.inputs[i].value == expected.inputs[i].value);
          REQUIRE(got.inputs[i].source == expected.inputs[i].source);
          REQUIRE(got.inputs[i].destinations == expected.inputs[i].destinations);
        }
        ++steps;
        inside_steps += std::all_of(expected.used_vns.begin(), expected.used_vns.end(), [](bool used) { return used; });
        forwarded += step.forward;
      }
  }
  // The cases cover steps inside the layer, steps at ragged edges (their own stencils) and forwarding steps.
  INFO(steps << " steps, " << inside_steps << " inside the layer, " << forwarded << " forwarding");
  CHECK(inside_steps > steps / 4);
  CHECK(inside_steps < steps);
  CHECK(forwarded > 0);
}
