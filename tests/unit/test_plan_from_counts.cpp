// The memory plan counted per phase (timing/memory_plan.cpp: each kind of phase's step counts once, fills per channel
// history in timing/input_fills.cpp, output visits per phase, events copied between phases of one kind and rule)
// against the plan built from every step's elements (reference_plan.hpp, the plan as it was before it was counted),
// event by event and field by field; and the layer program, whose step lists are now copied between phases of one SDM
// block, against every phase's steps listed afresh by codegen::add_phase_steps (how plan_layer listed them before).
// Random layers (plain and larger convolutions with stride, dilation, padding, groups and depthwise, batch 2, FC,
// GEMM; ragged edges), random legal mappings (single-level resident and streaming, two-level, both phase orders),
// 8-256 MS, and fused roles (stripe pieces with inputs, weights or output in the SDM and a reservation).
#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>

#include "codegen/exact_traffic.hpp"
#include "codegen/fused_stripes.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/phase_order.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/tile.hpp"
#include "mapper/search/search.hpp"
#include "timing/memory_plan.hpp"
#include "util/integer_math.hpp"
#include "../random_layers.hpp"
#include "mapper_fixtures.hpp"
#include "plan_checks.hpp"
#include "random_mappings.hpp"
#include "reference_plan.hpp"

using namespace maeri;
using maeri::test::require_equal_plans;

namespace {

// Larger than random_layer_of_new_kind's defaults: many channels and R/S folds, so that channel histories repeat and
// differ; and fully-connected layers.
contracts::Layer random_wide_layer(std::mt19937_64& rng) {
  if (rng() % 6 == 0) return test::fc_layer(1 + std::int64_t(rng() % 60), 1 + std::int64_t(rng() % 80));
  return test::random_layer_of_new_kind(rng, {24, 24, 5, 14});
}

// Every phase's steps as add_phase_steps lists them for the phase's block and configuration.
void require_steps_listed_afresh(const codegen::LayerProgram& program) {
  for (std::size_t p = 0; p < program.phases.size(); ++p) {
    codegen::WeightPhase listed = program.phases[p];
    listed.steps.clear();
    const codegen::PhaseShape& shape = program.configurations[std::size_t(listed.configuration)].placement.shape;
    const bool forwards = codegen::phase_forwards(program.layer, program.mapping, shape);
    codegen::add_phase_steps(program.layer, program.mapping, forwards, listed);
    INFO("phase " << p);
    REQUIRE(listed.steps.size() == program.phases[p].steps.size());
    for (std::size_t s = 0; s < listed.steps.size(); ++s) {
      const codegen::StepOrigin &x = listed.steps[s], &y = program.phases[p].steps[s];
      REQUIRE((x.n0 == y.n0 && x.x0 == y.x0 && x.y0 == y.y0 && x.forward == y.forward));
    }
  }
}

}  // namespace

TEST_CASE("memory plan: counted per phase equals the plan from elements on random layers, mappings and roles",
          "[timing][plan]") {
  std::mt19937_64 rng(4511);
  std::mt19937 pick(4511);
  int resident = 0, streaming = 0, blocked = 0, filters_outer = 0, grouped = 0, batched = 0, fetch_repeats = 0;
  int ragged_configurations = 0, ragged_steps = 0, pieces = 0, fused_inputs = 0, fused_outputs = 0, fused_weights = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const contracts::Layer layer = trial % 2 ? random_wide_layer(rng) : test::random_layer_of_new_kind(rng);
    contracts::Hardware hardware = test::random_channel_hardware(rng, 256);
    hardware.num_ms = std::int64_t(8) << (rng() % 6);  // 8 … 256
    hardware.dn_bw = std::min<std::int64_t>(hardware.num_ms, hardware.dn_bw);
    hardware.rn_bw = std::min<std::int64_t>(hardware.num_ms, hardware.rn_bw);
    contracts::Mapping mapping = test::random_mapping(layer, hardware.num_ms, pick);
    if (trial % 3 == 0) {  // single-level: resident (inputs kept for their channel slice) or streaming
      mapping.sdm = {};
      hardware.sdm_bytes = std::int64_t(1) << (8 + rng() % 12);
    } else {
      hardware.sdm_bytes = std::int64_t(1) << (10 + rng() % 10);
    }
    if (contracts::mapping_violation(layer, hardware, mapping)) mapping.sdm = {};
    if (contracts::mapping_violation(layer, hardware, mapping)) continue;
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " mapping " << contracts::to_string(mapping)
                  << " on " << hardware.num_ms << " MS, SDM " << hardware.sdm_bytes);
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, mapping);
    require_steps_listed_afresh(program);
    const timing::MemoryPlan plan = timing::plan_memory(program, hardware);
    require_equal_plans(plan, test::reference::plan_memory(program, hardware, codegen::LayerTensors{}, {}));
    resident += plan.budget.resident && !plan.budget.blocked;
    streaming += !plan.budget.resident && !plan.budget.blocked;
    blocked += plan.budget.blocked;
    filters_outer += contracts::effective_phase_order(layer, mapping) == contracts::PhaseOrder::FiltersOuter;
    grouped += layer.groups > 1;
    batched += layer.N > 1;
    // A phase that fetches after another phase of its slice (or input block) fetched: later R/S folds, channel
    // slices or blocks whose windows meet channels already partly in the SDM (channel histories longer than one).
    int last_fetch_slice = -1;
    bool later_fetch = false;
    for (std::size_t e = 0; e < plan.events.size(); ++e) {
      const timing::MemoryEvent& event = plan.events[e];
      if (event.weights || event.fill_elements == 0 || event.hold != timing::SdmHold::UntilSliceEnds) continue;
      const bool phase_start = plan.events[e - 1].weights;
      if (phase_start && last_fetch_slice == event.slice) later_fetch = true;
      if (phase_start) last_fetch_slice = event.slice;
    }
    fetch_repeats += later_fetch;
    ragged_configurations += program.configurations.size() > 1;
    std::int64_t configured = 0, used = 0;
    for (const timing::MemoryEvent& event : plan.events)
      if (!event.weights)
        configured += event.staging_bytes, used += event.output_writes * contracts::accumulator_bytes(hardware);
    ragged_steps += used < configured;

    if (!mapping.sdm.blocked) continue;
    // A fused member's stripe pieces (one per X' block when that loop can be the stripe loop) in a random role.
    std::vector<codegen::StripePiece> stripes;
    try {
      stripes = codegen::stripe_pieces(layer, mapping,
                                       util::ceil_div(layer.output_x(), mapping.sdm.block[contracts::kSdmX]));
    } catch (const std::invalid_argument&) {
      stripes = codegen::stripe_pieces(layer, mapping, 1);
    }
    contracts::FusedRole role;
    role.input_in_sdm = rng() % 2;
    role.output_in_sdm = rng() % 2;
    role.weights_pinned = rng() % 2;
    role.weights_in_sdm = rng() % 4 == 0;
    role.stripes = std::int64_t(stripes.size());
    for (const codegen::StripePiece& piece : stripes) {
      const codegen::LayerProgram part = codegen::stripe_program(program, piece);
      const timing::PlanRole plan_role = timing::plan_role(role, piece.index, std::int64_t(rng() % 4096));
      require_equal_plans(timing::plan_memory(part, hardware, plan_role),
                          test::reference::plan_memory(part, hardware, codegen::LayerTensors{}, plan_role));
      ++pieces;
      fused_inputs += plan_role.inputs_in_sdm;
      fused_outputs += plan_role.output_in_sdm;
      fused_weights += plan_role.weights_in_sdm;
    }
  }
  // Coverage: every path of the plan met often (this seed reaches 177 resident, 35 streaming, 388 blocked, 107
  // filters outer, 321 grouped, 283 batched, 314 later fetches, 331 + 189 ragged, 452 pieces, 254 / 220 / 140 roles).
  CHECK(resident > 100);
  CHECK(streaming > 20);
  CHECK(blocked > 250);
  CHECK(filters_outer > 80);
  CHECK(grouped > 150);
  CHECK(batched > 150);
  CHECK(fetch_repeats > 200);
  CHECK(ragged_configurations > 200);
  CHECK(ragged_steps > 150);
  CHECK(pieces > 350);
  CHECK(fused_inputs > 150);
  CHECK(fused_outputs > 150);
  CHECK(fused_weights > 100);
}

// Real sizes: every fabric layer of MobileNetV2 and ResNet-50 on maeri-256 under `maeri map`'s search's top 2
// mappings (resident, streaming and two-level; up to ~450,000 steps a layer), counted plan against the plan from
// elements.
TEST_CASE("memory plan: counted per phase equals the plan from elements on MobileNetV2 and ResNet-50 layers",
          "[timing][plan][long]") {
  const std::string configs = std::string(MAERI_SOURCE_DIR) + "/configs/";
  const contracts::Hardware hardware = contracts::load_hardware(configs + "hardware/maeri-256.yaml");
  int plans = 0, resident = 0, blocked = 0;
  for (const char* workload : {"mobilenetv2", "resnet50"}) {
    for (const contracts::Layer& layer : contracts::load_workload(configs + "workloads/" + workload + ".yaml").layers) {
      const mapper::SearchOptions options =
          mapper::map_search_options(mapper::Objective::Runtime, 2, codegen::exact_traffic_for(layer, hardware));
      for (const auto& candidate : mapper::search(layer, hardware, options).best) {
        INFO(workload << " " << layer.name << " " << contracts::to_string(candidate.mapping));
        const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, candidate.mapping);
        const timing::MemoryPlan plan = timing::plan_memory(program, hardware);
        require_equal_plans(plan, test::reference::plan_memory(program, hardware, codegen::LayerTensors{}, {}));
        ++plans;
        resident += plan.budget.resident && !plan.budget.blocked;
        blocked += plan.budget.blocked;
      }
    }
  }
  CHECK(plans > 200);  // 53 + 54 layers, two mappings each where the search finds two
  CHECK(resident > 20);
  CHECK(blocked > 20);
}
