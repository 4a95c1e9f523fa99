// Long regression (label `long`): full-size layers of the shipped networks co-simulated bit-exactly on the
// Verilated 64- and 256-MS fabrics with ideal memory and with the SDM/DRAM models, each with the model-vs-RTL
// table and its wall time: VGG16 conv5_1 (3x3, 512x512) and fc8, ResNet-50 res3a_branch2b (3x3, stride 2) and
// res4a_branch1 (1x1, stride 2), AlexNet conv1 (11x11, stride 4), GoogLeNet inception_3a_5x5_reduce (1x1),
// MobileNetV2 block3_depthwise (3x3 depthwise, stride 2). The expected outputs are the plain reference
// convolution's; the activity counts and the cycles with DRAM must equal the model's exactly.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <optional>

#include "codegen/image_program.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/search/search.hpp"
#include "sim/fabric_session.hpp"
#include "contracts/spec_loader.hpp"
#include "testbench/co_simulation.hpp"
#include "testbench/shard_run.hpp"

using namespace maeri;

namespace {

struct RealLayer {
  const char* workload;
  const char* layer;
};

const RealLayer kRealLayers[] = {{"vgg16", "conv5_1"},         {"vgg16", "fc8"},
                                 {"resnet50", "res3a_branch2b"}, {"resnet50", "res4a_branch1"},
                                 {"alexnet", "conv1"},           {"googlenet", "inception_3a_5x5_reduce"},
                                 {"mobilenetv2", "block3_depthwise"}};

contracts::Layer find_layer(const RealLayer& wanted) {
  const contracts::Network network =
      contracts::load_workload(std::string(MAERI_SOURCE_DIR "/configs/workloads/") + wanted.workload + ".yaml");
  for (const contracts::Layer& layer : network.layers)
    if (layer.name == wanted.layer) return layer;
  FAIL("no layer " << wanted.layer << " in " << wanted.workload);
  return {};
}

// The mapper's best tile; while its pruning rules can still empty a real layer's space on a small fabric, the model's
// best among (T_R, T_S, T_C, T_K, 1, 1, 1) with T_R in {1, R}, T_S in {1, S} and any T_C, T_K that satisfy Eq. 1 and
// that the fabric compiler can place.
contracts::Mapping tile_for(const contracts::Layer& layer, const contracts::Hardware& hardware) {
  const mapper::SearchResult found = mapper::search(layer, hardware, {});
  if (!found.best.empty()) return found.best.front().mapping;
  std::optional<contracts::Mapping> best;
  double best_cycles = 0;
  for (const std::int64_t tr : {std::int64_t{1}, layer.R})
    for (const std::int64_t ts : {std::int64_t{1}, layer.S})
      for (std::int64_t tc = 1; tc <= layer.C && tr * ts * tc <= hardware.num_ms; ++tc)
        for (std::int64_t tk = 1; tk <= layer.K && tr * ts * tc * tk <= hardware.num_ms; ++tk) {
          contracts::Mapping tile;
          tile.tile.size = {tr, ts, tc, tk, 1, 1, 1};
          const double cycles = mapper::evaluate(layer, hardware, tile).cycles.total;
          if (best && cycles >= best_cycles) continue;
          try {
            codegen::plan_layer(layer, hardware, tile, codegen::PlanDetail::PhasesOnly);
          } catch (const std::exception&) {
            continue;
          }
          best = tile;
          best_cycles = cycles;
        }
  REQUIRE(best);
  std::printf("(the mapper found no tile for %s on %s: using the model's best baseline-shaped tile)\n",
              layer.name.c_str(), hardware.name.c_str());
  return *best;
}

void verify_real_layers(const char* hardware_file) {
  const contracts::Hardware hardware =
      contracts::load_hardware(std::string(MAERI_SOURCE_DIR "/configs/hardware/") + hardware_file);
  auto fabric = sim::open_fabric(codegen::image_hardware_of(hardware), 1000000);
  double total_seconds = 0;
  for (const RealLayer& real : kRealLayers) {
    const contracts::Layer layer = find_layer(real);
    const contracts::Mapping tile = tile_for(layer, hardware);
    INFO(real.workload << " " << real.layer << " tile " << contracts::to_compact_string(tile.tile) << " on " << hardware.name);
    const auto start = std::chrono::steady_clock::now();
    const testbench::CoSimulation run =
        testbench::co_simulate(*fabric, layer, tile, hardware, 15, testbench::MemoryRuns::Both);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    total_seconds += seconds;
    std::printf("%s %s on %s, tile %s: %s [%.1f s wall, %.0f cycles/s]\n%s\n", real.workload, real.layer,
                hardware.name.c_str(), contracts::to_compact_string(tile.tile).c_str(), run.board.summary().c_str(), seconds,
                double(run.ideal->cycles) / seconds, testbench::cross_check_table(run.rows).c_str());
    std::fflush(stdout);
    CHECK(run.board.pass());
    for (const testbench::CrossCheckRow& row : run.rows)
      if (testbench::exact_after_merge(row.metric) || row.metric == testbench::kTotalCycles ||
          row.metric == testbench::kMemoryStallCycles) {
        INFO("metric " << row.metric);
        CHECK(row.model == row.rtl);
      }
  }
  std::printf("%s: %zu real layers in %.1f s\n", hardware.name.c_str(), std::size(kRealLayers), total_seconds);
}

}  // namespace

TEST_CASE("real layers of the shipped networks bit-exact on maeri-64", "[long][real]") {
  verify_real_layers("maeri-64.yaml");
}

TEST_CASE("real layers of the shipped networks bit-exact on maeri-256", "[long][real]") {
  verify_real_layers("maeri-256.yaml");
}
