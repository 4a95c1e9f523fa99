// Co-simulation of whole layers: configuration images of the `tiny` network on maeri-64, expanded and played
// on the Verilated 64-MS fabric. Every output must equal a plain convolution bit-exactly, and every RTL activity
// counter must equal the functional model's count for the same program.
#include <catch2/catch.hpp>

#include <random>

#include "codegen/functional_model.hpp"
#include "codegen/image_program.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/search/search.hpp"
#include "contracts/spec_loader.hpp"
#include "sim/fabric_variants.hpp"
#include "sim/layer_runner.hpp"

using namespace maeri;

namespace {

using Fabric64 = sim::FabricDriverFor<64>;

void check_layer(Fabric64& fabric, const contracts::Layer& layer, const contracts::Hardware& hardware,
                 const contracts::Mapping& tile, std::mt19937_64& rng) {
  INFO("layer " << layer.name << ", tile " << contracts::to_string(tile));
  // Through the binary image, as a user would ship it.
  const codegen::ConfigImage image =
      codegen::decode_image(codegen::encode_image(codegen::build_image(codegen::plan_layer(layer, hardware, tile),
                                                                       hardware)),
                            layer.name + ".mimg");
  const codegen::LayerProgram program = codegen::expand_image(image, layer.name + ".mimg");
  const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, rng());
  const sim::RtlLayerRun rtl = sim::LayerRunner<Fabric64>(fabric).run(program, tensors);
  REQUIRE(rtl.output == codegen::reference_convolution(layer, tensors, hardware.acc_width));

  const codegen::FunctionalActivity model = codegen::execute_layer(program, hardware, tensors).activity;
  // Every fabric count, under the same name in the RTL counters and the functional model.
#define MAERI_FABRIC_COUNT(name, label, meaning) CHECK(rtl.counters.name == uint64_t(model.name));
  MAERI_FABRIC_COUNTS(MAERI_FABRIC_COUNT)
#undef MAERI_FABRIC_COUNT
  // The analytical model's compute cycles (everything but the DRAM stall, which this run does not model)
  // predict the RTL's cycle count exactly.
  const contracts::CostReport report = mapper::evaluate(layer, hardware, tile);
  CHECK(rtl.cycles == uint64_t(report.cycles.compute()));
}

}  // namespace

TEST_CASE("co-simulation: every tiny layer, best and random mappings, bit-exact with matching counters and cycles",
          "[rtl][cosim]") {
  const contracts::Hardware hardware = contracts::load_hardware(std::string(MAERI_SOURCE_DIR) + "/configs/hardware/maeri-64.yaml");
  const contracts::Network network = contracts::load_workload(std::string(MAERI_SOURCE_DIR) + "/configs/workloads/tiny.yaml");
  // The images are built for this spec and played on the 64-MS variant: both must describe the same fabric.
  REQUIRE(hardware.num_ms == Fabric64::kNumMs);
  REQUIRE(hardware.dn_bw == Fabric64::kDnBw);
  REQUIRE(hardware.rn_bw == Fabric64::kRnBw);
  Fabric64 fabric(/*watchdog_cycles=*/20000);
  std::mt19937_64 rng(64);
  for (const contracts::Layer& layer : network.layers) {
    const mapper::SearchResult best = mapper::search(layer, hardware, {mapper::Objective::Runtime, 1, 1});
    REQUIRE_FALSE(best.best.empty());
    check_layer(fabric, layer, hardware, best.best.front().mapping, rng);
    // Four random legal tiles per layer: ragged edges, folds and replicas the best mapping may not have.
    const auto extents = contracts::layer_extents(layer);
    for (int trial = 0; trial < 4; ++trial) {
      contracts::Mapping tile;
      do {
        for (int d = 0; d < contracts::kNumTileDims; ++d)
          tile[d] = 1 + std::int64_t(rng() % uint64_t(std::min<std::int64_t>(extents[size_t(d)], 6)));
      } while (contracts::mapping_violation(layer, hardware, tile));
      check_layer(fabric, layer, hardware, tile, rng);
    }
  }
}
