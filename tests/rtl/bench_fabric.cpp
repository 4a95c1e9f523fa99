// Benchmark: Verilated simulation speed of the MAERI fabric driven through the SystemC driver, at every prebuilt
// size (8 … 256 multiplier switches, rtl/CMakeLists.txt) and at 1024 (configs/hardware/maeri-1024.yaml, built on
// demand into the fabric cache, $MAERI_FABRIC_CACHE or ~/.cache/maeri/fabrics). (1) The bare fabric: every switch
// busy (VNs of 4, one multicast beat per step, a fire every cycle), so MACs/s = cycles/s × NUM_MS. (2) A whole
// layer co-simulated from its configuration image (3x3 conv, C = K = 32, 28x28, best runtime mapping), counting
// the layer's useful MACs. Prints cycles/s and MACs/s per wall-clock second and per CPU second of this process
// (the CPU figure is what the simulator costs; the wall figure drops when other processes share the cores), and
// the machine's load average. (3) The model's memory replay of that layer (timing/memory_replay.hpp): replayed
// cycles/s.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <exception>
#include <fstream>
#include <memory>
#include <string>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "codegen/fabric_compiler.hpp"
#include "codegen/image_program.hpp"
#include "mapper/search/search.hpp"
#include "fabric_fixtures.hpp"
#include "rtl/verilated_fabrics.hpp"
#include "sim/fabric_driver.hpp"
#include "sim/layer_runner.hpp"
#include "timing/memory_replay.hpp"
#include "codegen/config_image.hpp"
#include "sim/fabric_session.hpp"
#include "contracts/spec_loader.hpp"
// sc_main's declaration, after the Verilated headers (which take SystemC's time if it is included before them).
#include <systemc>

using namespace maeri;
using namespace maeri::sim;

namespace {

bool layers_only = false;  // --layers-only: no bare fabric, no replay

// Wall-clock and CPU time of this process since construction.
class Stopwatch {
 public:
  double wall() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_).count(); }
  double cpu() const { return double(std::clock() - cpu_) / CLOCKS_PER_SEC; }
  // "… cycles/s, … M MACs/s (wall); … cycles/s, … M MACs/s (CPU)"
  std::string rates(double cycles, double macs) const {
    char text[160];
    std::snprintf(text, sizeof text, "%8.0f cycles/s %6.2f M MACs/s wall, %8.0f cycles/s %6.2f M MACs/s CPU",
                  cycles / wall(), macs / wall() / 1e6, cycles / cpu(), macs / cpu() / 1e6);
    return text;
  }

 private:
  std::chrono::steady_clock::time_point wall_ = std::chrono::steady_clock::now();
  std::clock_t cpu_ = std::clock();
};

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
  const Stopwatch stopwatch;
  for (int s = 0; s < steps; ++s) fabric.step(beats[size_t(s) % beats.size()]);
  fabric.drain();
  const Counters counters = fabric.counters();
  std::printf("fabric %4d MS: %8llu cycles, %10llu MACs in %6.2f s: %s%s\n", m,
              static_cast<unsigned long long>(counters.cycles),
              static_cast<unsigned long long>(counters.multiplications), stopwatch.wall(),
              stopwatch.rates(double(counters.cycles), double(counters.multiplications)).c_str(),
              fabric.any_error() ? "  (ERROR FLAG SET)" : "");
  fabric.results.clear();
}

// The benchmark layer, its best runtime mapping on `hardware` and its program; `simulate` runs it and returns the RTL
// run. Prints the figures.
template <class Simulate>
void run_layer(const contracts::Hardware& hardware, Simulate simulate) {
  contracts::Layer layer;
  layer.name = "conv3x3";
  layer.K = 32;
  layer.C = 32;
  layer.R = layer.S = 3;
  layer.X = layer.Y = 28;
  layer.padding_x = layer.padding_y = 1;
  const contracts::Mapping tile = mapper::search(layer, hardware, {mapper::Objective::Runtime, 1, 0}).best.front().mapping;
  const codegen::LayerProgram program =
      codegen::expand_image(codegen::build_image(codegen::plan_layer(layer, hardware, tile), hardware), "bench");
  const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, 2);
  const Stopwatch stopwatch;
  const sim::RtlLayerRun run = simulate(program, tensors);
  const double wall = stopwatch.wall();
  const std::string rates = stopwatch.rates(double(run.cycles), double(layer.macs()));
  const bool exact = run.output == codegen::reference_convolution(layer, tensors, hardware.acc_width);
  std::printf("layer  %4lld MS: %8llu cycles, %10lld MACs in %6.2f s: %s, tile %s, %s\n",
              static_cast<long long>(hardware.num_ms), static_cast<unsigned long long>(run.cycles),
              static_cast<long long>(layer.macs()), wall, rates.c_str(), contracts::to_compact_string(tile.tile).c_str(),
              exact ? "bit-exact" : "MISMATCH");
  // The model's memory replay of the same program (memory plan included): what refining one mapping costs.
  if (hardware.dram_bytes_per_cycle > 0 && !layers_only) {
    const Stopwatch replay_watch;
    const timing::MemoryReplay replay =
        timing::replay_memory(program, timing::plan_memory(program, hardware, tensors), hardware, hardware.dram_bytes_per_cycle,
                           std::uint64_t(hardware.dram_latency_cycles));
    std::printf("replay %4lld MS: %8llu cycles with DRAM in %6.3f s: %.3g replayed cycles/s\n",
                static_cast<long long>(hardware.num_ms), static_cast<unsigned long long>(replay.cycles),
                replay_watch.wall(), double(replay.cycles) / replay_watch.wall());
  }
}

template <class Fabric>
void run_layer(Fabric& fabric) {
  run_layer(tests::fabric_hardware<Fabric>("bench"), [&fabric](const codegen::LayerProgram& program,
                                                                const codegen::LayerTensors& tensors) {
    return sim::LayerRunner<Fabric>(fabric).run(program, tensors);
  });
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

}  // namespace

// What to run: every size, less 1024 with --skip-1024 (its first build takes long: docs/rtl.md), or only those of
// --sizes 64,256,1024; --layers-only leaves out the bare fabric and the replay (for profiling the co-simulation).
struct BenchChoice {
  std::set<int> sizes = {8, 16, 32, 64, 128, 256, 1024};
  bool layers_only = false;
};
BenchChoice chosen(int argc, char* argv[]) {
  BenchChoice choice;
  std::set<int>& sizes = choice.sizes;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--layers-only") {
      choice.layers_only = true;
    } else if (arg == "--skip-1024") {
      sizes.erase(1024);
    } else if (arg == "--sizes" && a + 1 < argc) {
      sizes.clear();
      std::stringstream list(argv[++a]);
      for (std::string size; std::getline(list, size, ',');) sizes.insert(std::stoi(size));
    } else {
      throw std::invalid_argument("usage: maeri_rtl_bench [--skip-1024 | --sizes 64,256,1024] [--layers-only]");
    }
  }
  return choice;
}

int sc_main(int argc, char* argv[]) {
  try {
    const BenchChoice choice = chosen(argc, argv);
    const std::set<int>& sizes = choice.sizes;
    layers_only = choice.layers_only;
    const bool with_1024 = sizes.count(1024) > 0;
    std::printf("load average at start: %s (2-core machine; other processes slow these figures)\n",
                load_average().c_str());
    // One driver per prebuilt variant (rtl/verilated_fabrics.hpp), each benchmarked bare and on the layer.
    std::vector<std::function<void()>> bare, layers;
#define MAERI_BENCH_VARIANT(model, m, d, r, w, a, c)                                   \
  {                                                                                    \
    if (sizes.count(m)) {                                                              \
      auto fabric = std::make_shared<FabricDriver<model, m, d, r, w, a, c>>();         \
      bare.push_back([fabric] { run(*fabric, 1280000 / m); }); /* 1.28 M MACs each */  \
      layers.push_back([fabric] { run_layer(*fabric); });                              \
    }                                                                                  \
  }
    MAERI_VERILATED_FABRICS(MAERI_BENCH_VARIANT)
#undef MAERI_BENCH_VARIANT
    // Every fabric is elaborated before the first clock (SystemC adds no module once the simulation runs), so the
    // 1024-MS one is opened (and built, the first time) here.
    // The shipped maeri-1024 with 64-lane DN and RN, like the 256-MS bench fabric: what grows is the array.
    contracts::Hardware hardware1024 =
        contracts::load_hardware(std::string(MAERI_SOURCE_DIR) + "/configs/hardware/maeri-1024.yaml");
    hardware1024.dn_bw = hardware1024.rn_bw = 64;
    std::unique_ptr<sim::FabricSession> fabric1024;
    if (with_1024) fabric1024 = sim::open_fabric(codegen::image_hardware_of(hardware1024));
    if (!layers_only)
      for (const auto& size : bare) size();
    for (const auto& size : layers) size();
    if (fabric1024)
      run_layer(hardware1024, [&fabric1024](const codegen::LayerProgram& program, const codegen::LayerTensors& tensors) {
      return fabric1024->run(program, tensors);
    });
    std::printf("load average at end: %s\n", load_average().c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "maeri_rtl_bench: %s\n", error.what());
    return 1;
  }
  return 0;
}
