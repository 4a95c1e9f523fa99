// Exact traffic counts DN traffic without building the elements (codegen::dn_traffic_of_uses, phase_weight_traffic,
// step_input_traffic); the reference is the path that builds them — phase_weights / step_inputs and dn_traversals
// per element, which the functional model and the co-simulation use and the RTL counters confirm. Both must give
// the same elements and traversals on random destination sets and on every phase and step of random layers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "codegen/dn_elements.hpp"
#include "codegen/dn_traffic.hpp"
#include "codegen/layer_program.hpp"
#include "mapper_fixtures.hpp"
#include "tests/random_layers.hpp"
#include "util/integer_math.hpp"

using namespace maeri;

namespace {

// The reference: Σ dn_traversals over the built elements.
codegen::DnTraffic built_traffic(const std::vector<codegen::DnElement>& elements, int num_ms, int dn_bw) {
  codegen::DnTraffic traffic;
  for (const codegen::DnElement& element : elements) {
    traffic.elements += 1;
    traffic.traversals += codegen::dn_traversals(num_ms, dn_bw, element.destinations);
  }
  return traffic;
}

}  // namespace

TEST_CASE("dn traffic of uses: equals dn_traversals summed over the destination lists", "[codegen][traffic]") {
  std::mt19937_64 rng(4545);
  int multicast = 0, below_conversion = 0, many_close = 0, many_spread = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    // Any switch count (not only powers of two), bandwidths 1 … num_ms.
    const int num_ms = 1 + int(rng() % 1100);
    const int dn_bw = 1 << int(rng() % std::uint64_t(1 + util::ceil_log2(num_ms)));
    INFO("trial " << trial << ": " << num_ms << " MS, dn_bw " << dn_bw);
    const int bits = codegen::dn_key_bits(num_ms);
    codegen::DnUseKeys uses;
    std::vector<codegen::DnElement> elements;
    // Sources close together (a step's: the radix sort) or anywhere in the key's range (std::sort).
    const bool spread = trial % 4 == 0;
    const int count = int(rng() % 20);
    for (int e = 0; e < count; ++e) {
      codegen::DnElement element;
      const double density = double(rng() % 1000) / 1000.0;  // sparse to dense destination sets (dense ones take the radix sort)
      for (int ms = 0; ms < num_ms; ++ms)
        if (double(rng() % 1000) / 1000.0 < density) element.destinations.push_back(ms);
      if (element.destinations.empty()) element.destinations.push_back(int(rng() % std::uint64_t(num_ms)));
      const std::uint64_t source =
          spread ? (rng() & codegen::dn_max_key_source(num_ms)) : (rng() % 4096) * 977 + std::uint64_t(e);
      for (int ms : element.destinations) uses.keys.push_back(source << bits | std::uint64_t(ms));
      multicast += element.destinations.size() > 1;
      elements.push_back(std::move(element));
    }
    below_conversion += codegen::dn_conversion_level(num_ms, dn_bw) + 1 < util::ceil_log2(num_ms);
    (spread ? many_spread : many_close) += uses.keys.size() >= 256;  // enough keys for the radix sort
    std::shuffle(uses.keys.begin(), uses.keys.end(), rng);  // the counter sorts: any order of uses
    const codegen::DnTraffic counted = codegen::dn_traffic_of_uses(num_ms, dn_bw, uses);
    const codegen::DnTraffic reference = built_traffic(elements, num_ms, dn_bw);
    REQUIRE(counted.elements == reference.elements);
    REQUIRE(counted.traversals == reference.traversals);
  }
  CHECK(multicast > 10000);         // most elements reach several switches
  CHECK(below_conversion > 500);    // and many fabrics have lane levels below the conversion level
  CHECK(many_close > 500);          // many uses close together: sorted by digits
  CHECK(many_spread > 100);         // many over the whole key range: by comparison
}

TEST_CASE("dn traffic: phase_weight_traffic and step_input_traffic equal the built elements' traffic",
          "[codegen][traffic]") {
  std::mt19937_64 rng(4546);
  int steps = 0, forwarded = 0, ragged = 0;
  codegen::DnUseKeys uses;  // reused, as exact traffic reuses it
  for (int trial = 0; trial < 300; ++trial) {
    const int num_ms = 8 << (rng() % 4);  // 8 … 64
    contracts::Hardware hardware = test::small_hardware(num_ms, 1 << (rng() % 4), 1 << (rng() % 4));
    hardware.dn_bw = std::min<std::int64_t>(hardware.dn_bw, num_ms);
    hardware.rn_bw = std::min<std::int64_t>(hardware.rn_bw, num_ms);
    const contracts::Layer layer = test::random_layer_of_new_kind(rng);
    const contracts::Mapping tile = test::random_small_tile(layer, hardware, rng);
    INFO("trial " << trial << ": " << contracts::shape_text(layer) << " tile " << contracts::to_string(tile) << " on "
                  << num_ms << " MS, dn_bw " << hardware.dn_bw);
    const codegen::LayerProgram program = codegen::plan_layer(layer, hardware, tile);
    const int dn_bw = int(hardware.dn_bw);
    for (const codegen::WeightPhase& phase : program.phases) {
      const codegen::DnTraffic weights = codegen::phase_weight_traffic(program, phase, dn_bw, uses);
      const codegen::DnTraffic weights_built = built_traffic(codegen::phase_weights(program, phase, {}), num_ms, dn_bw);
      REQUIRE(weights.elements == weights_built.elements);
      REQUIRE(weights.traversals == weights_built.traversals);
      for (const codegen::StepOrigin& step : phase.steps) {
        const codegen::StepElements built = codegen::step_inputs(program, phase, step, {});
        const codegen::DnTraffic inputs = codegen::step_input_traffic(program, phase, step, dn_bw, uses);
        const codegen::DnTraffic inputs_built = built_traffic(built.inputs, num_ms, dn_bw);
        REQUIRE(inputs.elements == inputs_built.elements);
        REQUIRE(inputs.traversals == inputs_built.traversals);
        steps += 1;
        forwarded += step.forward;
        ragged += std::count(built.used_vns.begin(), built.used_vns.end(), false) > 0;
      }
    }
  }
  CHECK(steps > 3000);
  CHECK(forwarded > 100);  // steps that take operands over the forwarding links
  CHECK(ragged > 100);     // and steps with VNs beyond a ragged edge
}
