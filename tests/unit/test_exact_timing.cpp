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
#include "codegen/fused_stripes.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/tile.hpp"
#include "mapper/model/cost_model.hpp"
#include "timing/exact_timing.hpp"
#include "timing/memory_plan.hpp"
#include "timing/memory_replay.hpp"
#include "../random_layers.hpp"
#include "mapper_fixtures.hpp"
#include "plan_checks.hpp"
#include "reference_plan.hpp"
#include "reference_replay.hpp"
#include "random_mappings.hpp"

using namespace maeri;
using maeri::test::require_equal_plans;

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
    if (trial % 3 == 0) {  // a DRAM device (docs/hardware-spec.md, "DRAM timing"): the replay runs it
      contracts::DramDevice device;
      device.row_bytes = 128;
      device.banks = 4;
      device.row_miss_ns = 15;
      device.turnaround_ns = 10;
      device.refresh_interval_ns = 2000;
      device.refresh_ns = 150;
      hardware.dram_device = device;
    }
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

// The replay jumps over quiet clocks (timing/memory_replay.cpp); the reference clocks through every one
// (reference_replay.hpp, the replay as it was). Equal cycles and every counter, with the plain channel, the model's
// effective row and turnaround penalties, and a DRAM device (banks, rows, turnaround, refresh).
TEST_CASE("exact timing: the fast replay equals the clock-by-clock replay", "[timing][exact]") {
  std::mt19937_64 rng(4501);
  std::mt19937 pick(4501);
  int penalised = 0, devices = 0, stalled = 0, refreshed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    contracts::Hardware hardware = test::random_channel_hardware(rng, 256);
    const int channel = int(rng() % 3);  // 0 plain, 1 penalties, 2 device
    if (channel == 1) {
      hardware.model.dram_row_bytes = double(64 << (rng() % 4)) * (rng() % 2 ? 1.0 : 0.75);
      hardware.model.dram_row_miss = double(rng() % 6) * (rng() % 2 ? 1.0 : 0.5);
      hardware.model.dram_turnaround = double(rng() % 4) * (rng() % 2 ? 1.0 : 0.25);
    }
    if (channel == 2) {  // whole cycles at small_hardware's 200 MHz: 5 ns each
      contracts::DramDevice device;
      device.banks = 1 << (rng() % 4);
      device.row_bytes = 64 << (rng() % 4);
      device.row_miss_ns = 5.0 * double(rng() % 8);
      device.turnaround_ns = 5.0 * double(rng() % 4);
      device.refresh_interval_ns = rng() % 2 ? 0 : 5.0 * double(200 + rng() % 800);
      device.refresh_ns = device.refresh_interval_ns > 0 ? 5.0 * double(10 + rng() % 40) : 0;
      hardware.dram_device = device;
    }
    const contracts::Layer layer = trial % 2 ? test::random_layer_of_new_kind(rng) : [&] {
      contracts::Layer plain = test::conv_layer(1 + std::int64_t(rng() % 9), 1 + std::int64_t(rng() % 9), 3, 3,
                                                4 + std::int64_t(rng() % 8), 4 + std::int64_t(rng() % 8),
                                                1 + std::int64_t(rng() % 2), std::int64_t(rng() % 2),
                                                1 + std::int64_t(rng() % 2));
      return plain;
    }();
    contracts::Mapping mapping = test::random_mapping(layer, hardware.num_ms, pick);
    if (contracts::mapping_violation(layer, hardware, mapping)) mapping.sdm = {};  // the SDM level does not fit
    if (contracts::mapping_violation(layer, hardware, mapping)) continue;
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " mapping " << contracts::to_string(mapping)
                  << " on " << hardware.num_ms << " MS, SDM " << hardware.sdm_bytes << ", DRAM "
                  << hardware.dram_bytes_per_cycle << " B/cycle, channel " << channel);
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
    const timing::MemoryPlan plan = timing::plan_memory(program, hardware, codegen::LayerTensors{});
    const double rate = hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency;
    const auto latency = std::uint64_t(hardware.dram_latency_cycles);
    REQUIRE(timing::replay_compute(program, plan, hardware) == test::reference::replay_compute(program, plan, hardware));
    timing::MemoryReplay expected;
    try {
      expected = test::reference::replay_memory(program, plan, hardware, rate, latency);
    } catch (const std::invalid_argument&) {
      CHECK_THROWS_AS(timing::replay_memory(program, plan, hardware, rate, latency), std::invalid_argument);
      continue;
    }
    const timing::MemoryReplay fast = timing::replay_memory(program, plan, hardware, rate, latency);
    REQUIRE(fast.cycles == expected.cycles);
    require_equal_runs(fast.memory, expected.memory);
    penalised += channel == 1;
    devices += channel == 2;
    stalled += expected.memory.stall_cycles > 0;
    refreshed += expected.memory.dram.refreshes > 0;
  }
  CHECK(penalised > 50);
  CHECK(devices > 50);
  CHECK(stalled > 100);
  CHECK(refreshed > 10);
}

// The plan from counts (timing/memory_plan.cpp) against the plan from every step's elements (reference_plan.hpp, the
// plan as it was), and the fast replay of each against the clock-by-clock one: whole layers, and a fused member's
// stripe pieces (codegen::stripe_program) in random roles (input or output in the SDM, pinned or shared weights, a
// reservation), as testbench/fused_run.cpp plays them.
TEST_CASE("exact timing: the counted plan equals the plan from elements, in every role", "[timing][exact]") {
  std::mt19937_64 rng(4502);
  std::mt19937 pick(4502);
  int pieces_played = 0, roles = 0, resident = 0, blocked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    contracts::Hardware hardware = test::random_channel_hardware(rng, 256);
    hardware.sdm_bytes *= 4;
    const contracts::Layer layer = test::random_layer_of_new_kind(rng);
    contracts::Mapping mapping = test::random_mapping(layer, hardware.num_ms, pick);
    if (trial % 3 == 0) {  // single-level, mostly resident (inputs kept for their channel slice)
      mapping.sdm = {};
      hardware.sdm_bytes = std::int64_t(1) << (12 + rng() % 8);
    }
    if (contracts::mapping_violation(layer, hardware, mapping)) mapping.sdm = {};
    if (contracts::mapping_violation(layer, hardware, mapping)) continue;
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " mapping " << contracts::to_string(mapping)
                  << " on " << hardware.num_ms << " MS, SDM " << hardware.sdm_bytes);
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
    const timing::MemoryPlan whole = timing::plan_memory(program, hardware);
    require_equal_plans(whole, test::reference::plan_memory(program, hardware, codegen::LayerTensors{}, {}));
    resident += whole.budget.resident && !whole.budget.blocked;
    blocked += whole.budget.blocked;
    // A member's pieces: one per X' block of its SDM level when that loop can be the stripe loop.
    std::vector<codegen::StripePiece> pieces;
    if (mapping.sdm.blocked) {
      const std::int64_t stripes = util::ceil_div(layer.output_x(), mapping.sdm.block[contracts::kSdmX]);
      try {
        pieces = codegen::stripe_pieces(layer, mapping, stripes);
      } catch (const std::invalid_argument&) {
        pieces = codegen::stripe_pieces(layer, mapping, 1);
      }
    }
    contracts::FusedRole role;
    role.input_in_sdm = rng() % 2;
    role.output_in_sdm = rng() % 2;
    role.weights_pinned = rng() % 2;
    role.weights_in_sdm = rng() % 4 == 0;
    role.stripes = std::int64_t(pieces.size());
    for (const codegen::StripePiece& piece : pieces) {
      const codegen::LayerProgram part = codegen::stripe_program(program, piece);
      const timing::PlanRole plan_role = timing::plan_role(role, piece.index, std::int64_t(rng() % 64));
      const timing::MemoryPlan plan = timing::plan_memory(part, hardware, plan_role);
      require_equal_plans(plan, test::reference::plan_memory(part, hardware, codegen::LayerTensors{}, plan_role));
      const double rate = hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency;
      const auto latency = std::uint64_t(hardware.dram_latency_cycles);
      timing::MemoryReplay expected;
      try {
        expected = test::reference::replay_memory(part, plan, hardware, rate, latency);
      } catch (const std::invalid_argument&) {
        continue;
      }
      const timing::MemoryReplay fast = timing::replay_memory(part, plan, hardware, rate, latency);
      REQUIRE(fast.cycles == expected.cycles);
      require_equal_runs(fast.memory, expected.memory);
      ++pieces_played;
    }
    roles += !pieces.empty();
  }
  CHECK(resident > 20);
  CHECK(blocked > 60);
  CHECK(roles > 60);
  CHECK(pieces_played > 100);
}

// SDM blocks of one channel, filter blocks outside them (order KCNXY): the input stays of the second filter block
// read the channels of the first one's again, 255 stays later — the 256th stay has the first stay's number once the
// plan's one-byte stay numbers start over (memory_plan.cpp's InputFills): its inputs must come from DRAM again. Against
// the plan from every step's elements and the clock-by-clock replay.
TEST_CASE("exact timing: a plan of more input stays than its stay numbers hold", "[timing][exact]") {
  const contracts::Layer layer = test::conv_layer(2, 255, 1, 1, 2, 2);
  contracts::Hardware hardware = test::small_hardware(8, 8, 8);
  hardware.sdm_bytes = 1 << 12;
  hardware.dram_bytes_per_cycle = 2;
  contracts::Mapping mapping;
  mapping.tile.size = {1, 1, 1, 1, 1, 1, 1};
  mapping.sdm.blocked = true;
  mapping.sdm.block = {1, 1, 1, 2, 2};  // K, C, N, X', Y': one filter and one channel per block
  REQUIRE_FALSE(contracts::mapping_violation(layer, hardware, mapping));
  const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
  const timing::MemoryPlan plan = timing::plan_memory(program, hardware);
  require_equal_plans(plan, test::reference::plan_memory(program, hardware, codegen::LayerTensors{}, {}));
  int stays = 0;
  std::int64_t fills = 0;
  for (const timing::MemoryEvent& event : plan.events) {
    stays = std::max(stays, event.slice + 1);
    if (!event.weights) fills += event.fill_elements;
  }
  CHECK(stays == 2 * 255);
  CHECK(fills == 2 * 255 * 4);  // each filter block fetches every channel's 2x2 inputs
  const double rate = hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency;
  const auto latency = std::uint64_t(hardware.dram_latency_cycles);
  const timing::MemoryReplay expected = test::reference::replay_memory(program, plan, hardware, rate, latency);
  const timing::ExactTiming exact = timing::exact_layer_timing(layer, hardware, mapping);
  CHECK(exact.cycles == double(expected.cycles));
  require_equal_runs(exact.memory, expected.memory);
}

// A fused member in its role (timing::exact_member_timing) against the sum over its stripe pieces of the reference
// path (reference_plan.hpp's plan in the piece's role, reference_replay.hpp's replays), as testbench/fused_run.cpp's
// member_rows costs a member: cycles, compute cycles and the summed counts.
TEST_CASE("exact timing: a fused member is the sum of its stripe pieces in its role", "[timing][exact]") {
  std::mt19937_64 rng(4503);
  std::mt19937 pick(4503);
  int members = 0, striped = 0;
  for (int trial = 0; trial < 200; ++trial) {
    contracts::Hardware hardware = test::random_channel_hardware(rng, 256);
    hardware.sdm_bytes *= 4;
    const contracts::Layer layer = test::random_layer_of_new_kind(rng);
    const contracts::Mapping mapping = test::random_mapping(layer, hardware.num_ms, pick);
    if (!mapping.sdm.blocked || contracts::mapping_violation(layer, hardware, mapping)) continue;
    contracts::FusedRole role;
    role.stripes = util::ceil_div(layer.output_x(), mapping.sdm.block[contracts::kSdmX]);
    role.input_in_sdm = rng() % 2;
    role.output_in_sdm = rng() % 2;
    role.weights_pinned = role.stripes > 1 && rng() % 2;
    std::vector<codegen::StripePiece> pieces;
    try {
      pieces = codegen::stripe_pieces(layer, mapping, role.stripes);
    } catch (const std::invalid_argument&) {
      role.stripes = 1;
      pieces = codegen::stripe_pieces(layer, mapping, 1);
    }
    const std::vector<std::int64_t> reserved{std::int64_t(rng() % 64), std::int64_t(rng() % 64)};
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " mapping " << contracts::to_string(mapping)
                  << " in " << role.stripes << " stripes");
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
    const double rate = hardware.dram_bytes_per_cycle * hardware.model.dram_efficiency;
    const auto latency = std::uint64_t(hardware.dram_latency_cycles);
    double cycles = 0, compute = 0;
    timing::MemoryRun memory;
    bool fits = true;
    for (const codegen::StripePiece& piece : pieces) {
      const codegen::LayerProgram part = codegen::stripe_program(program, piece);
      const timing::MemoryPlan plan = test::reference::plan_memory(
          part, hardware, codegen::LayerTensors{}, timing::plan_role(role, piece.index, reserved[piece.index > 0]));
      try {
        const timing::MemoryReplay replay = test::reference::replay_memory(part, plan, hardware, rate, latency);
        cycles += double(replay.cycles);
        compute += double(test::reference::replay_compute(part, plan, hardware));
        memory = piece.index == 0 ? replay.memory : timing::sum_memory(memory, replay.memory);
      } catch (const std::invalid_argument&) {
        fits = false;
      }
    }
    if (!fits) {
      CHECK_THROWS_AS(timing::exact_member_timing(layer, hardware, mapping, role, reserved), std::invalid_argument);
      continue;
    }
    const timing::ExactTiming exact = timing::exact_member_timing(layer, hardware, mapping, role, reserved);
    REQUIRE(exact.cycles == cycles);
    REQUIRE(exact.compute_cycles == compute);
    require_equal_runs(exact.memory, memory);
    ++members;
    striped += role.stripes > 1;
  }
  CHECK(members > 60);
  CHECK(striped > 20);
}
