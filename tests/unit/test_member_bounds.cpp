// The lower bounds the fused search prunes with before it costs a group mapping exactly (mapper/search/
// fused_search.hpp, ExactGroupCosts; docs/model.md, "Which model decides what"): on random layers, mappings, roles,
// stripes, SDM reservations and DRAM channels (fractional rates and efficiencies), a member's cycles bound
// (mapper::member_cycles_lower_bound) never exceeds its exact cycles with DRAM in its role (timing::
// exact_member_timing, the sum of its stripe pieces' replays, as flow/exact_members sets them), and its energy
// without DN/RN traversals never exceeds its energy with exact traffic (codegen::refine_with_exact_traffic).
#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>

#include "codegen/exact_traffic.hpp"
#include "codegen/fused_stripes.hpp"
#include "contracts/tile.hpp"
#include "mapper/model/cost_model.hpp"
#include "mapper/model/timing_bound.hpp"
#include "timing/exact_timing.hpp"
#include "../random_layers.hpp"
#include "mapper_fixtures.hpp"
#include "random_mappings.hpp"
#include "util/integer_math.hpp"

using namespace maeri;

TEST_CASE("fused search bounds: a member's cycles and energy bounds never exceed its exact costs in its role",
          "[fusion][exact]") {
  std::mt19937_64 rng(4545);
  std::mt19937 pick(4545);
  int members = 0, striped = 0, dram_decides = 0, equal = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const contracts::Hardware hardware = test::random_channel_hardware(rng, 1024);
    const contracts::Layer layer = test::random_layer_of_new_kind(rng);
    const contracts::Mapping mapping = test::random_mapping(layer, hardware.num_ms, pick);
    if (!mapping.sdm.blocked || contracts::mapping_violation(layer, hardware, mapping)) continue;
    contracts::FusedRole role;
    role.stripes = util::ceil_div(layer.output_x(), mapping.sdm.block[contracts::kSdmX]);
    role.input_in_sdm = rng() % 2;
    role.output_in_sdm = rng() % 2;
    role.weights_pinned = role.stripes > 1 && rng() % 2;
    try {
      codegen::stripe_pieces(layer, mapping, role.stripes);
    } catch (const std::invalid_argument&) {
      role.stripes = 1;
      role.weights_pinned = false;
    }
    const std::vector<std::int64_t> reserved{std::int64_t(rng() % 64), std::int64_t(rng() % 64)};
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " mapping " << contracts::to_string(mapping)
                  << " in " << role.stripes << " stripes");
    timing::ExactTiming exact;
    try {
      exact = timing::exact_member_timing(layer, hardware, mapping, role, reserved);
    } catch (const std::invalid_argument&) {
      continue;  // an event too large for the stream buffer: not a mapping the search can time
    }
    contracts::CostReport report = mapper::evaluate(layer, hardware, mapping, role);
    const double bound = mapper::member_cycles_lower_bound(report, hardware);
    const double energy_bound = report.energy_pj.total - report.energy_pj.dn - report.energy_pj.rn;
    // As flow/exact_members sets a member's cycles: its compute plus its pieces' memory stall.
    const double exact_cycles = report.cycles.compute() + exact.memory_stall();
    CHECK(bound <= exact_cycles);
    codegen::refine_with_exact_traffic(report, layer, hardware);
    CHECK(energy_bound <= report.energy_pj.total);
    ++members;
    striped += role.stripes > 1;
    dram_decides += bound > report.cycles.compute();
    equal += bound == exact_cycles;
  }
  CHECK(members > 100);
  CHECK(striped > 30);
  CHECK(dram_decides > 20);  // the DRAM term is what the bound adds over compute
  WARN(members << " members (" << striped << " striped): the DRAM term decided " << dram_decides << ", equal to exact in "
                << equal);
}
