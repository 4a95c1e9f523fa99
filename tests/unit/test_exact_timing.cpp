// timing::exact_layer_timing against the path the co-simulation's cross-check takes (testbench/co_simulation.cpp,
// score_and_cross_check): mapper::evaluate, exact traffic, then refine_with_memory_replay with the program's plan built
// from random tensors. The refined report's total must equal the exact timing's cycles, its memory stall the exact
// timing's, and the replay's SDM / DRAM counts every counter of the exact timing's — on random layers (plain, grouped,
// depthwise, dilated, GEMM), random legal mappings (single- and two-level, either phase order) and SDM sizes small
// enough that the DRAM stalls.
#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>

#include "codegen/exact_traffic.hpp"
#include "codegen/functional_model.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/tile.hpp"
#include "mapper/model/cost_model.hpp"
#include "timing/exact_timing.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"
#include "../random_layers.hpp"
#include "mapper_fixtures.hpp"
#include "random_mappings.hpp"

using namespace maeri;

namespace {

void require_equal_runs(const timing::MemoryRun& a, const timing::MemoryRun& b) {
  CHECK(a.dram.bytes_read == b.dram.bytes_read);
  CHECK(a.dram.bytes_written == b.dram.bytes_written);
  CHECK(a.dram.read_requests == b.dram.read_requests);
  CHECK(a.dram.write_requests == b.dram.write_requests);
  CHECK(a.dram.busy_cycles == b.dram.busy_cycles);
  CHECK(a.dram.row_misses == b.dram.row_misses);
  CHECK(a.dram.refreshes == b.dram.refreshes);
  CHECK(a.sdm.fill_writes == b.sdm.fill_writes);
  CHECK(a.sdm.input_reads == b.sdm.input_reads);
  CHECK(a.sdm.weight_reads == b.sdm.weight_reads);
  CHECK(a.sdm.psum_reads == b.sdm.psum_reads);
  CHECK(a.sdm.output_writes == b.sdm.output_writes);
  CHECK(a.sdm.peak_stream_bytes == b.sdm.peak_stream_bytes);
  CHECK(a.sdm.peak_output_bytes == b.sdm.peak_output_bytes);
  CHECK(a.stall_cycles == b.stall_cycles);
  CHECK(a.data_stall_cycles == b.data_stall_cycles);
  CHECK(a.output_stall_cycles == b.output_stall_cycles);
  CHECK(a.drain_cycles == b.drain_cycles);
  CHECK(a.resident == b.resident);
  CHECK(a.stream_buffer_bytes == b.stream_buffer_bytes);
  CHECK(a.output_buffer_bytes == b.output_buffer_bytes);
}

}  // namespace

TEST_CASE("exact timing: equals the co-simulation cross-check's refined model", "[timing][exact]") {
  std::mt19937_64 rng(45);
  std::mt19937 pick(45);
  int stalled = 0, too_small = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const std::int64_t num_ms = 8 << (rng() % 4);
    contracts::Hardware hardware = test::small_hardware(num_ms, std::min<std::int64_t>(num_ms, 1 << (rng() % 4)),
                                                        std::min<std::int64_t>(num_ms, 1 << (rng() % 4)));
    hardware.sdm_bytes = std::int64_t(256) << (rng() % 5);
    hardware.dram_bytes_per_cycle = 0.5 * double(1 + rng() % 8);
    hardware.dram_latency_cycles = std::int64_t(rng() % 20);
    const contracts::Layer layer = test::random_layer_of_new_kind(rng);
    contracts::Mapping mapping = test::random_mapping(layer, num_ms, pick);
    if (contracts::mapping_violation(layer, hardware, mapping)) mapping.sdm = {};  // the SDM level does not fit
    if (contracts::mapping_violation(layer, hardware, mapping)) continue;
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " mapping " << contracts::to_string(mapping)
                  << " on " << num_ms << " MS, SDM " << hardware.sdm_bytes);
    contracts::CostReport model = mapper::evaluate(layer, hardware, mapping);
    codegen::refine_with_exact_traffic(model, layer, hardware);
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
    const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, rng());
    timing::MemoryPlan plan;
    try {
      plan = timing::plan_memory(program, hardware, tensors);
      timing::refine_with_memory_replay(model, program, plan, hardware);
    } catch (const std::invalid_argument&) {  // the SDM cannot hold one event's data: the exact timing says so too
      CHECK_THROWS_AS(timing::exact_layer_timing(layer, hardware, mapping), std::invalid_argument);
      ++too_small;
      continue;
    }
    const timing::ExactTiming exact = timing::exact_layer_timing(layer, hardware, mapping);
    REQUIRE(exact.cycles == model.cycles.total);
    REQUIRE(exact.memory_stall() == model.cycles.memory_stall);
    REQUIRE(exact.compute_cycles == model.cycles.compute());
    const timing::MemoryReplay replay = timing::replay_memory(
        program, plan, hardware, hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency,
        std::uint64_t(hardware.dram_latency_cycles));
    require_equal_runs(exact.memory, replay.memory);
    stalled += exact.memory.stall_cycles > 0;
  }
  CHECK(stalled > 40);
  CHECK(too_small < 75);
}
