// Fast-forward over clocks at rest (sim/fabric_driver.hpp, tick()): a clock in which the fabric has no input and has
// settled is not evaluated in the Verilated model, and its cycle is added to the `cycles` counter arithmetically.
// The reference is the same driver with fast-forward off, which evaluates every clock: random layers with a
// random SDM and DRAM (starved DRAM makes the controller wait with the fabric drained; every other case with a DRAM
// device preset, whose refreshes keep counting while the fabric rests) must give the same output,
// the same value in every activity counter, the same cycle count and the same memory counts both ways, and the
// fast driver must actually have skipped clocks (else the comparison would prove nothing).
#include <catch2/catch.hpp>

#include <random>

#include "codegen/image_program.hpp"
#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/dram_presets.hpp"
#include "contracts/layer.hpp"
#include "fabric_fixtures.hpp"
#include "sim/fabric_variants.hpp"
#include "sim/layer_runner.hpp"
#include "timing/memory_plan.hpp"

using namespace maeri;

namespace {

template <class Driver>
struct ClockedFabric {
  explicit ClockedFabric(bool fast_forward) {
    driver.set_fast_forward(fast_forward);
    driver.attach(memory);
  }
  Driver driver{50000};
  sim::MemorySystem memory;
};

contracts::Layer random_conv(std::mt19937_64& rng) {
  contracts::Layer layer;
  layer.name = "conv";
  layer.R = layer.S = 1 + std::int64_t(rng() % 3);
  layer.X = layer.R + std::int64_t(rng() % 5);
  layer.Y = layer.S + std::int64_t(rng() % 5);
  layer.K = 1 + std::int64_t(rng() % 6);
  layer.C = 1 + std::int64_t(rng() % 6);
  layer.N = 1 + std::int64_t(rng() % 2);
  return layer;
}

void require_same_run(const sim::RtlLayerRun& fast, const sim::RtlLayerRun& every_clock) {
  REQUIRE(fast.output == every_clock.output);
  CHECK(fast.cycles == every_clock.cycles);
#define MAERI_SAME_COUNTER(name, label, meaning) CHECK(fast.counters.name == every_clock.counters.name);
  MAERI_ACTIVITY_COUNTERS(MAERI_SAME_COUNTER)
#undef MAERI_SAME_COUNTER
  REQUIRE(fast.memory.has_value() == every_clock.memory.has_value());
  if (!fast.memory) return;
  const timing::MemoryRun &a = *fast.memory, &b = *every_clock.memory;
  CHECK(a.stall_cycles == b.stall_cycles);
  CHECK(a.data_stall_cycles == b.data_stall_cycles);
  CHECK(a.output_stall_cycles == b.output_stall_cycles);
  CHECK(a.drain_cycles == b.drain_cycles);
  CHECK(a.dram.bytes_read == b.dram.bytes_read);
  CHECK(a.dram.bytes_written == b.dram.bytes_written);
  CHECK(a.dram.busy_cycles == b.dram.busy_cycles);
  CHECK(a.dram.row_misses == b.dram.row_misses);
  CHECK(a.dram.refreshes == b.dram.refreshes);
  CHECK(a.sdm.output_writes == b.sdm.output_writes);
  CHECK(a.sdm.peak_stream_bytes == b.sdm.peak_stream_bytes);
}

template <class Driver>
void compare_with_every_clock(int cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  contracts::Hardware hardware = tests::fabric_hardware<Driver>("fast-forward");
  ClockedFabric<Driver> fast(true), every_clock(false);
  for (int trial = 0; trial < cases; ++trial) {
    const contracts::Layer layer = random_conv(rng);
    const contracts::Mapping tile = tests::random_small_tile(layer, hardware, rng, 4);
    // Slow DRAM with a long latency: the controller waits for data with the fabric drained.
    const double rates[] = {0.5, 2, 8};
    hardware.dram_bytes_per_cycle = rates[rng() % 3];
    hardware.dram_latency_cycles = std::int64_t(rng() % 2000);
    // Every other case with a DRAM device (rows, turnaround, refreshes that keep counting while the fabric rests).
    const std::vector<contracts::DramDevice>& presets = contracts::dram_presets();
    hardware.dram_device.reset();
    if (trial % 2 == 1) hardware.dram_device = presets[rng() % presets.size()];
    INFO("case " << trial << ": " << contracts::shape_text(layer) << " tile " << contracts::to_string(tile) << ", DRAM "
                 << hardware.dram_bytes_per_cycle << " B/cycle, latency " << hardware.dram_latency_cycles << ", device "
                 << (hardware.dram_device ? hardware.dram_device->preset : std::string("none")));
    const codegen::LayerProgram program =
        codegen::expand_image(codegen::build_image(codegen::plan_layer(layer, hardware, tile), hardware), "case");
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, rng());
    const auto run = [&](ClockedFabric<Driver>& fabric) {
      return sim::LayerRunner<Driver>(fabric.driver)
          .run(program, tensors, fabric.memory, timing::plan_memory(program, hardware, tensors),
               sim::dram_timing_of(hardware));
    };
    const sim::RtlLayerRun skipped = run(fast), evaluated = run(every_clock);
    require_same_run(skipped, evaluated);
    REQUIRE(skipped.output == codegen::reference_convolution(layer, tensors, hardware.acc_width));
    // And with ideal memory, where nothing waits.
    require_same_run(sim::LayerRunner<Driver>(fast.driver).run(program, tensors),
                     sim::LayerRunner<Driver>(every_clock.driver).run(program, tensors));
  }
  CHECK(every_clock.driver.skipped_clocks() == 0);
  CHECK(fast.driver.skipped_clocks() > 0);
}

}  // namespace

TEST_CASE("fast-forward: layers waiting for DRAM give the same output, counters and cycles as every clock evaluated "
          "(8 and 64 MS)",
          "[rtl][fast-forward]") {
  compare_with_every_clock<sim::FabricDriverFor<8>>(12, 8);
  compare_with_every_clock<sim::FabricDriverFor<64>>(12, 64);
}

TEST_CASE("fast-forward: an idle fabric counts every skipped clock, and a fire after a long rest is accepted at once",
          "[rtl][fast-forward]") {
  using Driver = sim::FabricDriverFor<16>;
  Driver fast, every_clock;
  fast.set_fast_forward(true);
  every_clock.set_fast_forward(false);
  for (Driver* driver : {&fast, &every_clock}) {
    driver->reset();
    driver->idle(5000);
    // A unicast weight and a fired operand to switch 3 after the rest, then the results drain.
    driver->beat({{true, 7, {3}}});
    driver->beat({{false, -5, {3}}}, /*fire=*/true);
    driver->drain();
    driver->idle(3000);
  }
  CHECK(fast.skipped_clocks() > 4000);
  CHECK(fast.cycle() == every_clock.cycle());
  CHECK(fast.result_cycles == every_clock.result_cycles);
  const sim::Counters a = fast.counters(), b = every_clock.counters();
  // 3 clocks of reset, of which the counters see the last (they are cleared while rst is high), then everything.
  CHECK(b.cycles == every_clock.cycle() - 2);
#define MAERI_SAME_COUNTER(name, label, meaning) CHECK(a.name == b.name);
  MAERI_ACTIVITY_COUNTERS(MAERI_SAME_COUNTER)
#undef MAERI_SAME_COUNTER
}
