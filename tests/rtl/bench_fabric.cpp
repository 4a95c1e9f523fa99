// Benchmark: Verilated simulation speed of the MAERI fabric driven through the SystemC driver, at 64 and 256
// multiplier switches. (1) The bare fabric: every switch busy (VNs of 4, one multicast beat per step, a fire
// every cycle), so MACs/s = cycles/s × NUM_MS. (2) A whole layer co-simulated from its configuration image
// (3x3 conv, C = K = 32, 28x28, best runtime mapping), counting the layer's useful MACs. Prints cycles/s and
// MACs/s.
#include <systemc>

#include <chrono>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

#include "codegen/fabric_compiler.hpp"
#include "codegen/image_program.hpp"
#include "mapper/search.hpp"
#include "fabric_fixtures.hpp"
#include "sim/fabric_variants.hpp"
#include "sim/layer_runner.hpp"

using namespace maeri;
using namespace maeri::sim;

namespace {

template <class Fabric>
void run(Fabric& fabric, int steps) {
  constexpr int m = Fabric::kNumMs;
  const codegen::ReductionPlan plan = codegen::compile_fabric(codegen::VnLayout::packed(m, 4, m / 4));
  fabric.reset();
  fabric.configure(plan.config);
  std::mt19937_64 rng(1);
  std::vector<int64_t> weight(static_cast<size_t>(m));
  for (auto& w : weight) w = int64_t(rng() % 2000) - 1000;
  fabric.load_weights(weight, std::vector<bool>(size_t(m), true));
  fabric.drain();
  fabric.clear_counters();

  std::vector<std::vector<DnBeatElement>> beats(16);
  for (auto& beat : beats)
    for (int p = 0; p < 4; ++p) {
      std::vector<int> destinations;
      for (int v = 0; v < m / 4; ++v) destinations.push_back(4 * v + p);
      beat.push_back({false, int64_t(rng() % 2000) - 1000, destinations});
    }
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) fabric.step(beats[size_t(s) % beats.size()]);
  fabric.drain();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Counters counters = fabric.counters();
  std::printf("fabric %3d MS: %8llu cycles, %10llu MACs in %.2f s: %9.0f cycles/s, %6.2f M MACs/s%s\n", m,
              static_cast<unsigned long long>(counters.cycles),
              static_cast<unsigned long long>(counters.multiplications), seconds, double(counters.cycles) / seconds,
              double(counters.multiplications) / seconds / 1e6, fabric.any_error() ? "  (ERROR FLAG SET)" : "");
  fabric.results.clear();
}

template <class Fabric>
void run_layer(Fabric& fabric) {
  const spec::Hardware hardware = tests::fabric_hardware<Fabric>("bench");
  spec::Layer layer;
  layer.name = "conv3x3";
  layer.K = 32;
  layer.C = 32;
  layer.R = layer.S = 3;
  layer.X = layer.Y = 28;
  layer.padding = 1;
  const spec::Tile tile = mapper::search(layer, hardware, {mapper::Objective::Runtime, 1, 0}).best.front().tile;
  const codegen::LayerProgram program =
      codegen::expand_image(codegen::build_image(codegen::plan_layer(layer, hardware, tile), hardware), "bench");
  const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, 2);
  const auto start = std::chrono::steady_clock::now();
  const sim::RtlLayerRun run = sim::LayerRunner<Fabric>(fabric).run(program, tensors);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool exact = run.output == codegen::reference_convolution(layer, tensors, hardware.acc_width);
  std::printf("layer  %3d MS: %s tile %s, %8llu cycles, %10lld MACs in %.2f s: %9.0f cycles/s, %6.2f M MACs/s, %s\n",
              Fabric::kNumMs, layer.name.c_str(), spec::to_compact_string(tile).c_str(),
              static_cast<unsigned long long>(run.cycles), static_cast<long long>(layer.macs()), seconds,
              double(run.cycles) / seconds, double(layer.macs()) / seconds / 1e6, exact ? "bit-exact" : "MISMATCH");
}

}  // namespace

int sc_main(int, char*[]) {
  FabricDriverFor<64> fabric64;
  FabricDriverFor<256> fabric256;
  try {
    run(fabric64, 20000);
    run(fabric256, 5000);
    run_layer(fabric64);
    run_layer(fabric256);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "maeri_rtl_bench: %s\n", error.what());
    return 1;
  }
  return 0;
}
