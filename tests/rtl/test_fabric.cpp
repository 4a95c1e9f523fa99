// RTL tests of the Verilated MAERI fabric (rtl/maeri_top.sv) at 8…256 multiplier switches, driven through the
// SystemC harness. Expected values are computed independently in the test: VN sums as plain sums of w·x
// wrapped to ACC_W, DN traversals by walking the tree over each element's destination set, additions as
// sum(size − 1). Each TEST_CASE runs in its own process (SystemC elaborates once per process).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "codegen/fabric_compiler.hpp"
#include "codegen/reduction_reference.hpp"
#include "sim/fabric_variants.hpp"

using namespace maeri;
using namespace maeri::sim;

namespace {

// The prebuilt variants (rtl/CMakeLists.txt), by size. The tests that rely on a variant's bandwidths check them
// with a static_assert.
using Fabric8 = FabricDriverFor<8>;
using Fabric16 = FabricDriverFor<16>;
using Fabric32 = FabricDriverFor<32>;
using Fabric64 = FabricDriverFor<64>;
using Fabric128 = FabricDriverFor<128>;
using Fabric256 = FabricDriverFor<256>;

int64_t random_value(std::mt19937_64& rng, int width) {
  const int64_t half = int64_t(1) << (width - 1);
  return std::uniform_int_distribution<int64_t>(-half, half - 1)(rng);
}

// DN traversals of one element, from the definition in docs/rtl.md: at the switch levels down to the conversion
// level an element enters each switch whose leaves include a destination once; below it, every destination
// has its own lane, so each further level adds one arrival per destination.
template <class Fabric>
uint64_t expected_dn_traversals(const std::vector<int>& destinations) {
  const int m = Fabric::kNumMs, levels = maeri::util::ceil_log2(m);
  int convert_at = levels;
  for (int l = 0; l < levels; ++l)
    if ((m >> (l + 1)) < Fabric::kDnBw) {
      convert_at = l;
      break;
    }
  const int switch_levels = convert_at < levels ? convert_at + 1 : levels;
  uint64_t total = 0;
  for (int l = 0; l < switch_levels; ++l) {
    std::set<int> switches;
    for (int leaf : destinations) switches.insert(leaf / (m >> l));
    total += switches.size();
  }
  total += uint64_t(levels - switch_levels) * destinations.size();
  return total;
}

// Configures the layout, loads random weights, runs `steps` steps with random operands (unicast, DN_BW per
// beat) and checks every result, its VN tag and order, the counters and the error flags.
template <class Fabric>
void check_layout(Fabric& fabric, const codegen::VnLayout& layout, int steps, std::mt19937_64& rng) {
  constexpr int m = Fabric::kNumMs;
  const codegen::ReductionPlan plan = codegen::compile_fabric(layout);
  fabric.reset();
  fabric.configure(plan.config);

  std::vector<bool> active(static_cast<size_t>(m));
  for (int i = 0; i < m; ++i) active[size_t(i)] = plan.config.mult_switches[size_t(i)].active;
  std::vector<int64_t> weight(size_t(m), 0);
  for (int i = 0; i < m; ++i)
    if (active[size_t(i)]) weight[size_t(i)] = random_value(rng, Fabric::kDataW);
  fabric.load_weights(weight, active);

  std::vector<std::vector<int64_t>> expected(static_cast<size_t>(steps));
  uint64_t expected_dn = 0;
  for (int i = 0; i < m; ++i)
    if (active[size_t(i)]) expected_dn += expected_dn_traversals<Fabric>({i});
  for (int s = 0; s < steps; ++s) {
    std::vector<int64_t> operand(size_t(m), 0);
    std::vector<DnBeatElement> elements;
    for (int i = 0; i < m; ++i)
      if (active[size_t(i)]) {
        operand[size_t(i)] = random_value(rng, Fabric::kDataW);
        elements.push_back({false, operand[size_t(i)], {i}});
        expected_dn += expected_dn_traversals<Fabric>({i});
      }
    fabric.step(elements);
    for (const auto& vn : layout.vns) {
      int64_t sum = 0;
      for (int i = vn.first_ms; i < vn.first_ms + vn.size; ++i) sum += weight[size_t(i)] * operand[size_t(i)];
      expected[size_t(s)].push_back(codegen::wrap_to_width(sum, Fabric::kAccW));
    }
  }
  fabric.drain();

  const size_t vns = layout.vns.size();
  REQUIRE(fabric.results.size() == size_t(steps) * vns);
  for (int s = 0; s < steps; ++s)
    for (size_t v = 0; v < vns; ++v) {
      const Result& result = fabric.results[size_t(s) * vns + v];
      INFO("step " << s << ", VN " << v << " of " << vns);
      REQUIRE(result.vn == int(v));
      REQUIRE(result.value == expected[size_t(s)][v]);
    }

  int64_t macs_per_step = 0, additions_per_step = 0;
  for (const auto& vn : layout.vns) macs_per_step += vn.size, additions_per_step += vn.size - 1;
  const std::vector<int64_t> zeros(size_t(m), 0);
  const Counters c = fabric.counters();
  CHECK(c.fires == uint64_t(steps));
  CHECK(c.multiplications == uint64_t(steps * macs_per_step));
  CHECK(c.additions == uint64_t(steps * additions_per_step));
  CHECK(c.rn_traversals == uint64_t(steps) * uint64_t(codegen::evaluate_reduction(plan.config, zeros, 32).traversals));
  CHECK(c.mn_forwards == 0);
  CHECK(c.results == uint64_t(steps) * vns);
  CHECK(c.dn_traversals == expected_dn);
  CHECK_FALSE(fabric.any_error());
}

template <class Fabric>
void check_vn_sizes(const std::vector<int>& sizes, uint64_t seed) {
  Fabric fabric;
  std::mt19937_64 rng(seed);
  for (int size : sizes) {
    INFO("VN size " << size << " on " << Fabric::kNumMs << " multiplier switches");
    check_layout(fabric, codegen::VnLayout::packed(Fabric::kNumMs, size, Fabric::kNumMs / size), 3, rng);
  }
}

// Resets the fabric, configures `count` packed VNs of `size` switches and loads random weights into every
// switch; returns the weights.
template <class Fabric>
std::vector<int64_t> set_up_packed(Fabric& fabric, int size, int count, std::mt19937_64& rng,
                                   const std::vector<bool>& take_forward = {}) {
  const codegen::ReductionPlan plan =
      codegen::compile_fabric(codegen::VnLayout::packed(Fabric::kNumMs, size, count), take_forward);
  fabric.reset();
  fabric.configure(plan.config);
  std::vector<int64_t> weight(static_cast<size_t>(Fabric::kNumMs));
  for (auto& w : weight) w = random_value(rng, Fabric::kDataW);
  fabric.load_weights(weight, std::vector<bool>(size_t(Fabric::kNumMs), true));
  return weight;
}

std::vector<int> all_sizes(int n) {
  std::vector<int> sizes;
  for (int s = 1; s <= n; ++s) sizes.push_back(s);
  return sizes;
}

}  // namespace

TEST_CASE("RN: every VN size 1..8 on 8 MS gives the software sums", "[rtl][rn]") { check_vn_sizes<Fabric8>(all_sizes(8), 8); }
TEST_CASE("RN: every VN size 1..16 on 16 MS gives the software sums", "[rtl][rn]") {
  check_vn_sizes<Fabric16>(all_sizes(16), 16);
}
TEST_CASE("RN: every VN size 1..32 on 32 MS gives the software sums", "[rtl][rn]") {
  check_vn_sizes<Fabric32>(all_sizes(32), 32);
}
TEST_CASE("RN: every VN size 1..64 on 64 MS gives the software sums", "[rtl][rn]") {
  check_vn_sizes<Fabric64>(all_sizes(64), 64);
}
TEST_CASE("RN: sampled VN sizes on 128 MS give the software sums", "[rtl][rn]") {
  check_vn_sizes<Fabric128>({1, 2, 3, 5, 7, 9, 16, 27, 31, 33, 64, 100, 127, 128}, 128);
}
TEST_CASE("RN: sampled VN sizes on 256 MS give the software sums", "[rtl][rn]") {
  check_vn_sizes<Fabric256>({1, 3, 9, 25, 64, 129, 255, 256}, 256);
}

TEST_CASE("RN: mixed VN sizes with idle gaps", "[rtl][rn]") {
  Fabric64 fabric;
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 12; ++trial) {
    codegen::VnLayout layout{64, {}};
    int position = int(rng() % 3);
    while (true) {
      const int size = 1 + int(rng() % 20);
      if (position + size > 64) break;
      layout.vns.push_back({position, size});
      position += size + int(rng() % 3);
    }
    check_layout(fabric, layout, 2, rng);
  }
}

TEST_CASE("DN: unicast, broadcast, strided and random multicast reach exactly their destinations", "[rtl][dn]") {
  // VN size 1 everywhere: each switch's result is its own product, so each switch shows what it received.
  Fabric64 fabric;
  std::mt19937_64 rng(3);
  const codegen::ReductionPlan plan = codegen::compile_fabric(codegen::VnLayout::packed(64, 1, 64));
  fabric.reset();
  fabric.configure(plan.config);

  std::vector<std::vector<std::vector<int>>> patterns;  // per pattern: disjoint destination sets covering 0..63
  std::vector<int> all(64);
  for (int i = 0; i < 64; ++i) all[size_t(i)] = i;
  patterns.push_back({all});                                        // broadcast
  std::vector<std::vector<int>> strided(4);
  for (int i = 0; i < 64; ++i) strided[size_t(i % 4)].push_back(i);  // every 4th switch
  patterns.push_back(strided);
  for (int trial = 0; trial < 6; ++trial) {  // random partitions into 1..16 groups
    const int groups = 1 + int(rng() % 16);
    std::vector<std::vector<int>> sets(static_cast<size_t>(groups));
    for (int i = 0; i < 64; ++i) sets[rng() % uint64_t(groups)].push_back(i);
    sets.erase(std::remove_if(sets.begin(), sets.end(), [](const auto& s) { return s.empty(); }), sets.end());
    patterns.push_back(sets);
  }

  uint64_t expected_dn = 0;
  std::vector<std::vector<int64_t>> expected;
  for (const auto& sets : patterns) {
    // Weights by multicast (one beat), operands by unicast: result_i = w(group of i) * x_i.
    std::vector<DnBeatElement> weights;
    std::vector<int64_t> weight(64);
    for (const auto& set : sets) {
      const int64_t w = random_value(rng, 16);
      weights.push_back({true, w, set});
      for (int i : set) weight[size_t(i)] = w;
      expected_dn += expected_dn_traversals<Fabric64>(set);
    }
    fabric.beat(weights);
    std::vector<DnBeatElement> operands;
    std::vector<int64_t> row;
    for (int i = 0; i < 64; ++i) {
      const int64_t x = random_value(rng, 16);
      operands.push_back({false, x, {i}});
      row.push_back(weight[size_t(i)] * x);
      expected_dn += expected_dn_traversals<Fabric64>({i});
    }
    fabric.step(operands);
    expected.push_back(row);
  }
  fabric.drain();
  REQUIRE(fabric.results.size() == patterns.size() * 64);
  for (size_t p = 0; p < patterns.size(); ++p)
    for (int i = 0; i < 64; ++i) {
      INFO("pattern " << p << ", switch " << i);
      REQUIRE(fabric.results[p * 64 + size_t(i)].value == expected[p][size_t(i)]);
    }
  CHECK(fabric.counters().dn_traversals == expected_dn);
  CHECK_FALSE(fabric.any_error());
}

TEST_CASE("DN: two elements for one switch in one cycle raise the overflow error", "[rtl][dn]") {
  Fabric16 fabric;
  fabric.reset();
  fabric.beat({{true, 5, {3}}, {true, 6, {2, 3}}});
  fabric.idle(8);
  CHECK(fabric.error_dn_overflow());
  CHECK_FALSE(fabric.error_config());
}

TEST_CASE("MN: forwarding steps reuse the left neighbour's operand of the previous step", "[rtl][mn]") {
  // 4 VNs of 4 switches; switches at positions 1..3 of each VN take a forwarded operand, position 0 gets a
  // fresh operand from the DN: a sliding window moving one element per step.
  Fabric16 fabric;
  std::mt19937_64 rng(11);
  std::vector<bool> take_forward(16);
  for (int i = 0; i < 16; ++i) take_forward[size_t(i)] = i % 4 != 0;
  const std::vector<int64_t> weight = set_up_packed(fabric, 4, 4, rng, take_forward);

  std::vector<int64_t> operand(16);
  std::vector<DnBeatElement> first;
  for (int i = 0; i < 16; ++i) operand[size_t(i)] = random_value(rng, 16), first.push_back({false, operand[size_t(i)], {i}});
  std::vector<std::vector<int64_t>> used = {operand};
  fabric.step(first);
  for (int s = 1; s <= 3; ++s) {
    std::vector<int64_t> next(16);
    std::vector<DnBeatElement> fresh;
    for (int i = 0; i < 16; ++i) {
      if (take_forward[size_t(i)]) {
        next[size_t(i)] = operand[size_t(i - 1)];
      } else {
        next[size_t(i)] = random_value(rng, 16);
        fresh.push_back({false, next[size_t(i)], {i}});
      }
    }
    fabric.step(fresh, /*forward=*/true);
    operand.swap(next);  // every element of next is written again next round (and gcc 12 misreads a copy here)
    used.push_back(operand);
  }
  fabric.drain();
  REQUIRE(fabric.results.size() == 16);
  for (size_t s = 0; s < used.size(); ++s)
    for (int v = 0; v < 4; ++v) {
      int64_t sum = 0;
      for (int i = 4 * v; i < 4 * v + 4; ++i) sum += weight[size_t(i)] * used[s][size_t(i)];
      INFO("step " << s << ", VN " << v);
      CHECK(fabric.results[s * 4 + size_t(v)].value == codegen::wrap_to_width(sum, 32));
    }
  CHECK(fabric.counters().mn_forwards == 3 * 12);
  CHECK(fabric.counters().multiplications == 4 * 16);
}

TEST_CASE("throughput: one result per VN per cycle in steady state; latency 2*log2(M)+2", "[rtl][throughput]") {
  // 16 VNs of 4 on 64 MS with RN_BW = 16: each step sends 4 operands, each multicast to the same position of all
  // 16 VNs (one beat), so a step can fire every cycle.
  static_assert(Fabric64::kRnBw == 16 && Fabric64::kDnBw >= 4, "the expected timing assumes these bandwidths");
  Fabric64 fabric;
  std::mt19937_64 rng(21);
  const std::vector<int64_t> weight = set_up_packed(fabric, 4, 16, rng);
  fabric.clear_counters();

  const int steps = 40;
  std::vector<std::vector<int64_t>> expected;
  const uint64_t first_fire = fabric.cycle() + 1;
  for (int s = 0; s < steps; ++s) {
    std::vector<DnBeatElement> elements;
    int64_t x[4];
    for (int p = 0; p < 4; ++p) {
      x[p] = random_value(rng, 16);
      std::vector<int> destinations;
      for (int v = 0; v < 16; ++v) destinations.push_back(4 * v + p);
      elements.push_back({false, x[p], destinations});
    }
    fabric.step(elements);
    std::vector<int64_t> row;
    for (int v = 0; v < 16; ++v) {
      int64_t sum = 0;
      for (int p = 0; p < 4; ++p) sum += weight[size_t(4 * v + p)] * x[p];
      row.push_back(sum);
    }
    expected.push_back(row);
  }
  const uint64_t last_fire = fabric.cycle();
  CHECK(last_fire - first_fire + 1 == uint64_t(steps));  // no beat waited: a fire every cycle
  fabric.drain();
  REQUIRE(fabric.results.size() == size_t(steps) * 16);
  for (int s = 0; s < steps; ++s) {
    // All 16 results of step s leave in one cycle, exactly one cycle after those of step s − 1.
    const uint64_t cycle = fabric.result_cycles[size_t(s) * 16];
    CHECK(fabric.result_cycles[size_t(s) * 16 + 15] == cycle);
    CHECK(cycle == first_fire + uint64_t(s) + 2 * 6 + 2);
    for (int v = 0; v < 16; ++v) CHECK(fabric.results[size_t(s) * 16 + size_t(v)].value == expected[size_t(s)][size_t(v)]);
  }
  CHECK_FALSE(fabric.any_error());
}

TEST_CASE("throughput: with more VNs than RN_BW lanes, fires are spaced by ceil(VNs / RN_BW)", "[rtl][throughput]") {
  // 8 VNs of size 1 on the 8-MS fabric with RN_BW = 2: each step needs 4 output cycles, so dn_ready holds the
  // next fire back and results stream at 2 per cycle without loss.
  static_assert(Fabric8::kRnBw == 2, "the expected spacing assumes RN_BW = 2");
  Fabric8 fabric;
  std::mt19937_64 rng(4);
  const std::vector<int64_t> weight = set_up_packed(fabric, 1, 8, rng);
  const int steps = 10;
  std::vector<int64_t> expected;
  for (int s = 0; s < steps; ++s) {
    const int64_t x = random_value(rng, 16);
    fabric.step({{false, x, {0, 1, 2, 3, 4, 5, 6, 7}}});
    for (int i = 0; i < 8; ++i) expected.push_back(weight[size_t(i)] * x);
  }
  fabric.drain();
  REQUIRE(fabric.results.size() == expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    CHECK(fabric.results[k].vn == int(k % 8));
    CHECK(fabric.results[k].value == expected[k]);
  }
  // Results leave two per cycle, back to back: 80 results in 40 consecutive cycles.
  CHECK(fabric.result_cycles.back() - fabric.result_cycles.front() == 39);
  CHECK_FALSE(fabric.any_error());
}

namespace {
// Configures the 8-MS fabric (config_bw 16: ⌈94 / 16⌉ = 6 writes), applies one bad action and expects the sticky
// error_config.
template <class BadAction>
void expect_config_error(BadAction bad_action) {
  static_assert(Fabric8::kConfigBw == 16, "the words below are for the 8-MS variant's 16-bit config bus");
  Fabric8 fabric;
  fabric.reset();
  const codegen::ReductionPlan plan = codegen::compile_fabric(codegen::VnLayout::packed(8, 3, 2));
  const uint64_t before = fabric.cycle();
  fabric.configure(plan.config);
  CHECK(fabric.cycle() - before == 6);
  CHECK_FALSE(fabric.error_config());
  bad_action(fabric, plan.config);
  fabric.idle(1);
  CHECK(fabric.error_config());
}

// The full reconfiguration of `fabric`, measured with the RTL's cycle counter, against contracts/config_bus.hpp; and a
// write just past the last word (when the address port can express it) is refused.
template <class Fabric>
void check_reconfiguration_cycles(Fabric& fabric) {
  constexpr int m = Fabric::kNumMs;
  INFO(m << " MS, config_bw " << Fabric::kConfigBw);
  fabric.reset();
  const codegen::ReductionPlan plan = codegen::compile_fabric(codegen::VnLayout::packed(m, 3, m / 3));
  fabric.clear_counters();
  const uint64_t before = fabric.counters().cycles;
  fabric.configure(plan.config);
  const int64_t words = contracts::configuration_words(m, Fabric::kConfigBw);
  CHECK(int64_t(fabric.counters().cycles - before) == words);
  CHECK_FALSE(fabric.error_config());
  if (words < (int64_t(1) << Fabric::kAddressW)) {
    fabric.write_config(uint32_t(words), {0});
    fabric.idle(1);
    CHECK(fabric.error_config());
  }
}
}  // namespace

TEST_CASE("config bus: a full reconfiguration takes ceil(bits / config_bw) cycles on every prebuilt fabric",
          "[rtl][config]") {
  // The variants have config buses of 16, 32, 512, 64, 256 and 64 bits (rtl/CMakeLists.txt). All six are built
  // before the first clock: SystemC adds no signal once the simulation runs. The clocks tick all six models.
  Fabric8 fabric8;
  Fabric16 fabric16;
  Fabric32 fabric32;
  Fabric64 fabric64;
  Fabric128 fabric128;
  Fabric256 fabric256;
  check_reconfiguration_cycles(fabric8);
  check_reconfiguration_cycles(fabric16);
  check_reconfiguration_cycles(fabric32);
  check_reconfiguration_cycles(fabric64);
  check_reconfiguration_cycles(fabric128);
  check_reconfiguration_cycles(fabric256);
  STATIC_REQUIRE(contracts::configuration_words(256, Fabric256::kConfigBw) == 69);  // the target: <= 100
}

TEST_CASE("config port: a write past the last configuration word raises error_config", "[rtl][config]") {
  expect_config_error([](Fabric8& fabric, const codegen::FabricConfig&) { fabric.write_config(6, {0}); });
}

TEST_CASE("config port: a word setting padding bits raises error_config", "[rtl][config]") {
  // 94 configuration bits in 6 words of 16: bits 14 and 15 of word 5 are padding.
  expect_config_error([](Fabric8& fabric, const codegen::FabricConfig&) { fabric.write_config(5, {0x8000}); });
}

TEST_CASE("config port: a fire with vn_count above num_ms raises error_config", "[rtl][config]") {
  // vn_count: 4 bits at bit 16 + 42 = 58, i.e. bits 10…13 of word 3 (docs/config-bits.md).
  expect_config_error([](Fabric8& fabric, const codegen::FabricConfig& config) {
    std::vector<uint64_t> word = codegen::config_words(config, 16).at(3).limbs;
    word[0] = (word[0] & ~uint64_t(0xf << 10)) | (uint64_t(9) << 10);
    fabric.write_config(3, word);
    CHECK_FALSE(fabric.error_config());  // writing it is fine; firing with it is not
    fabric.step({{false, 1, {0, 1, 2}}});
  });
}

TEST_CASE("config port: reconfiguring while a step is in flight raises error_config", "[rtl][config]") {
  expect_config_error([](Fabric8& fabric, const codegen::FabricConfig&) {
    fabric.step({{false, 1, {0, 1, 2, 3, 4, 5}}});
    fabric.write_config(0, {1});
  });
}

TEST_CASE("watchdog: waiting for something that never happens fails instead of hanging", "[rtl][watchdog]") {
  Fabric8 fabric(/*watchdog_cycles=*/50);
  fabric.reset();
  // Nothing was fired, so no result will ever appear.
  CHECK_THROWS_WITH(fabric.wait_for([&fabric] { return !fabric.results.empty(); }, "a result"),
                    "watchdog: no progress for 50 cycles waiting for a result");
  CHECK(fabric.cycle() < 60);
}
