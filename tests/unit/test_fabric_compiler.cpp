// Tests of the ART switch compiler (codegen/fabric_compiler) and the switch-level reduction reference, without RTL:
// hand-worked layouts (expected adder words and emit points derived by hand in the comments), exhaustive and
// random layouts whose reduced sums must equal a direct software sum, and rejected layouts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "codegen/fabric_compiler.hpp"
#include "codegen/reduction_reference.hpp"

using namespace maeri::codegen;
namespace contracts = maeri::contracts;

namespace {

// Heap index of adder (level, index).
int adder(int level, int index) { return (1 << level) - 1 + index; }

// Compiles the layout, reduces random products through the switch-level reference and checks every VN's
// result against a plain sum of its products, and the addition count against sum(size − 1).
void check_reduces_correctly(const VnLayout& layout, std::mt19937_64& rng) {
  const ReductionPlan plan = compile_fabric(layout);
  std::uniform_int_distribution<int64_t> value(-(int64_t(1) << 30), int64_t(1) << 30);
  std::vector<int64_t> products(size_t(layout.num_ms));
  for (auto& p : products) p = value(rng);
  const ReductionOutcome outcome = evaluate_reduction(plan.config, products, 32);
  REQUIRE(outcome.vn_results.size() == layout.vns.size());
  int64_t expected_additions = 0;
  for (size_t v = 0; v < layout.vns.size(); ++v) {
    int64_t sum = 0;
    for (int i = 0; i < layout.vns[v].size; ++i) sum += products[size_t(layout.vns[v].first_ms + i)];
    REQUIRE(outcome.vn_results[v] == wrap_to_width(sum, 32));
    expected_additions += layout.vns[v].size - 1;
  }
  REQUIRE(outcome.additions == expected_additions);
}

std::vector<VnLayout> all_layouts(int num_ms) {
  // Each switch is idle (0), starts a VN (1) or continues the VN of the switch on its left (2).
  std::vector<VnLayout> layouts;
  int total = 1;
  for (int i = 0; i < num_ms; ++i) total *= 3;
  for (int code = 0; code < total; ++code) {
    VnLayout layout{num_ms, {}};
    bool valid = true, previous_in_vn = false;
    int rest = code;
    for (int i = 0; i < num_ms && valid; ++i, rest /= 3) {
      const int choice = rest % 3;
      if (choice == 0) previous_in_vn = false;
      else if (choice == 1) layout.vns.push_back({i, 1}), previous_in_vn = true;
      else if (!previous_in_vn) valid = false;
      else layout.vns.back().size += 1;
    }
    if (valid && !layout.vns.empty()) layouts.push_back(layout);
  }
  return layouts;
}

}  // namespace

TEST_CASE("16 MS, VN size 3: hand-worked adder words and emit points", "[art]") {
  // VNs 0..4 on switches 0-2, 3-5, 6-8, 9-11, 12-14; switch 15 idle. Bottom level (3), adder j covers 2j, 2j+1:
  //   j1 holds VN0 | VN1 (split), j2 holds VN1+VN1. Link (1,2) completes VN1 (1 + 2 = 3) in j2, which emits it.
  //   j3 holds VN2+VN2, j4 VN2 | VN3. Link (3,4) completes VN2 in j4 (left token); j4's right token VN3 goes up.
  //   Level 2: j0 = VN0 (2 from j0 + 1 from j1) emits VN0; j2 = VN3 (1 + 2) emits; j3 = VN4 (2 + 1) emits.
  const ReductionPlan plan = compile_fabric(VnLayout::packed(16, 3, 5));
  const auto& words = plan.config.adder_switches;

  CHECK(describe(words[size_t(adder(3, 1))]) == "send,up");                      // VN0 left token up, VN1 across
  CHECK(describe(words[size_t(adder(3, 2))]) == "combine,receive,emit_left");    // VN1 = 2 + 1
  CHECK(describe(words[size_t(adder(3, 3))]) == "combine,send");                 // VN2's pair crosses the link
  CHECK(describe(words[size_t(adder(3, 4))]) == "receive,emit_left,up");         // VN2 done, VN3 up
  CHECK(describe(words[size_t(adder(3, 7))]) == "combine,up");                   // lone VN4 switch 14 + idle 15
  CHECK(describe(words[size_t(adder(2, 0))]) == "combine,emit_left");
  CHECK(describe(words[size_t(adder(2, 1))]) == "idle");
  CHECK(describe(words[size_t(adder(0, 0))]) == "idle");

  const std::vector<int> expected_slots = {2 * adder(2, 0), 2 * adder(3, 2), 2 * adder(3, 4), 2 * adder(2, 2),
                                           2 * adder(2, 3)};
  CHECK(plan.config.collector_slots == expected_slots);
  CHECK(plan.config.mult_switches[15].active == false);
  CHECK(plan.config.mult_switches[14].active == true);
}

TEST_CASE("16 MS, VN size 5: partial sums meet over links at two levels", "[art]") {
  // VN0 0-4, VN1 5-9, VN2 10-14. Level 3: j1 (VN0 2) receives j2's left token (VN0 1) -> VN0 3, because j2 is
  // split (VN0 | VN1) and cannot take a token that must still go up; j4 receives j3 (VN1 2+2), j6 receives j5.
  // Level 2: j0 = VN0 2+3 emits; j1 = lone VN1 1, j2 = lone VN1 4: link (1,2) completes VN1 in j2; j3 = VN2 4+1.
  const ReductionPlan plan = compile_fabric(VnLayout::packed(16, 5, 3));
  const auto& words = plan.config.adder_switches;
  CHECK(describe(words[size_t(adder(3, 1))]) == "combine,receive,up");
  CHECK(describe(words[size_t(adder(3, 2))]) == "send,up");
  CHECK(describe(words[size_t(adder(3, 3))]) == "combine,send");
  CHECK(describe(words[size_t(adder(3, 4))]) == "combine,receive,up");
  CHECK(describe(words[size_t(adder(2, 1))]) == "combine,send");
  CHECK(describe(words[size_t(adder(2, 2))]) == "combine,receive,emit_left");
  CHECK(plan.emit_points[0].level == 2);
  CHECK(plan.emit_points[0].index == 0);
  CHECK(plan.emit_points[1].level == 2);
  CHECK(plan.emit_points[1].index == 2);
  CHECK(plan.emit_points[2].level == 2);
  CHECK(plan.emit_points[2].index == 3);
  std::mt19937_64 rng(5);
  check_reduces_correctly(VnLayout::packed(16, 5, 3), rng);
}

TEST_CASE("64 MS, 7 VNs of size 9: VN0 finishes below its lowest common ancestor", "[art]") {
  // VN0 = switches 0-8. Level 5: j4 holds VN0 (switch 8) | VN1 (switch 9); link (3,4) moves switch 8's product
  // into j3 (VN0 3). Level 4: j0 = 4, j1 = 2 + 3 = 5. Level 3: j0 = 4 + 5 = 9 -> VN0 is emitted by adder (3, 0),
  // which covers only switches 0-7, instead of the (2, 0) adder covering 0-15.
  const VnLayout layout = VnLayout::packed(64, 9, 7);
  const ReductionPlan plan = compile_fabric(layout);
  CHECK(plan.emit_points[0].level == 3);
  CHECK(plan.emit_points[0].index == 0);
  CHECK(plan.config.collector_slots[0] == 2 * adder(3, 0));
  CHECK(plan.config.adder_switches[size_t(adder(5, 3))].link_receive);
  CHECK(plan.config.adder_switches[size_t(adder(5, 4))].link_send);
  int active = 0;
  for (const auto& ms : plan.config.mult_switches) active += ms.active;
  CHECK(active == 63);
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 20; ++trial) check_reduces_correctly(layout, rng);
}

TEST_CASE("every layout of 8 switches (idle gaps included) and every partition of 16 reduce correctly", "[art]") {
  std::mt19937_64 rng(8);
  const auto layouts = all_layouts(8);
  REQUIRE(layouts.size() == 1596);  // 3^8 codes minus those continuing from an idle switch (counted by hand in Python)
  for (const auto& layout : layouts) check_reduces_correctly(layout, rng);
  for (int cuts = 0; cuts < (1 << 15); ++cuts) {
    VnLayout layout{16, {}};
    int start = 0;
    for (int i = 1; i < 16; ++i)
      if (cuts >> (i - 1) & 1) layout.vns.push_back({start, i - start}), start = i;
    layout.vns.push_back({start, 16 - start});
    check_reduces_correctly(layout, rng);
  }
}

TEST_CASE("uniform VN sizes 1..N at every offset, N = 2..256, reduce correctly", "[art]") {
  std::mt19937_64 rng(256);
  for (int m = 2; m <= 256; m *= 2)
    for (int size = 1; size <= m; ++size)
      for (int offset = 0; offset + size <= m; offset += (m <= 32 ? 1 : 7)) {
        const int count = (m - offset) / size;
        check_reduces_correctly(VnLayout::packed(m, size, count, offset), rng);
      }
}

TEST_CASE("random mixed-size layouts with gaps reduce correctly", "[art]") {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 3000; ++trial) {
    const int m = 4 << (trial % 7);
    VnLayout layout{m, {}};
    int position = int(rng() % 4);
    while (true) {
      const int limit = std::max(1, m >> (rng() % 5));
      const int size = 1 + int(rng() % uint64_t(limit));
      if (position + size > m) break;
      layout.vns.push_back({position, size});
      position += size + (rng() % 5 == 0 ? int(rng() % 3) : 0);
    }
    if (layout.vns.empty()) continue;
    check_reduces_correctly(layout, rng);
  }
}

TEST_CASE("VN size 1 is emitted at the bottom level, size num_ms at the root", "[art]") {
  const ReductionPlan ones = compile_fabric(VnLayout::packed(8, 1, 8));
  for (int v = 0; v < 8; ++v) {
    CHECK(ones.emit_points[size_t(v)].level == 2);
    CHECK(ones.config.collector_slots[size_t(v)] == 2 * adder(2, v / 2) + v % 2);  // left/right slot of its pair
  }
  const ReductionPlan whole = compile_fabric(VnLayout::packed(8, 8, 1));
  CHECK(whole.emit_points[0].level == 0);
  CHECK(describe(whole.config.adder_switches[0]) == "combine,emit_left");
}

TEST_CASE("impossible layouts are rejected with the broken rule", "[art][errors]") {
  auto message_of = [](const VnLayout& layout, std::vector<bool> forward = {}) {
    try {
      compile_fabric(layout, forward);
    } catch (const LayoutError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  CHECK(message_of({16, {{0, 5}, {4, 3}}}) == "VN 1 (switches 4..6) overlaps or precedes VN 0 (which ends at switch 4)");
  CHECK(message_of({16, {{0, 17}}}) == "VN 0 has size 17, larger than the 16 multiplier switches");
  CHECK(message_of({16, {{12, 5}}}) == "VN 0 covers switches 12..16, outside 0..15");
  CHECK(message_of({16, {{0, 0}}}) == "VN 0 has size 0; a VN needs at least one switch");
  CHECK(message_of({16, {}}) == "the layout has no VN");
  CHECK(message_of({12, {{0, 3}}}) == "num_ms must be a power of two >= 2, got 12");
  std::vector<bool> forward(16, false);
  forward[0] = true;
  CHECK(message_of(VnLayout::packed(16, 4, 4), forward) ==
        "switch 0 cannot take a forwarded operand: it has no left neighbour");
  forward.assign(16, false);
  forward[15] = true;
  CHECK(message_of(VnLayout::packed(16, 5, 3), forward) == "switch 15 is idle but is set to take a forwarded operand");
}

// Sizes by hand from docs/config-bits.md: 2 bits per MS, 6 per adder, vn_count ⌈log2(M+1)⌉ bits, M collector
// entries of ⌈log2(2(M−1))⌉ bits.
TEST_CASE("config bus: configuration bits and words per size, by hand", "[art][config]") {
  STATIC_REQUIRE(contracts::configuration_bits(8) == 16 + 42 + 4 + 8 * 4);          // 94
  STATIC_REQUIRE(contracts::configuration_bits(32) == 64 + 186 + 6 + 32 * 6);       // 448
  STATIC_REQUIRE(contracts::configuration_bits(256) == 512 + 1530 + 9 + 256 * 9);   // 4355
  STATIC_REQUIRE(contracts::configuration_bits(1024) == 2048 + 6138 + 11 + 1024 * 11);  // 19461
  CHECK(contracts::configuration_words(256, 64) == 69);  // ⌈4355 / 64⌉: the target is ≤ 100 cycles
  CHECK(contracts::configuration_words(1024, 64) == 305);
  CHECK(contracts::configuration_words(32, 512) == 1);
  CHECK(contracts::configuration_words(8, 16) == 6);
  CHECK(contracts::config_address_bits(1) == 1);
  CHECK(contracts::config_address_bits(69) == 7);
}

TEST_CASE("config bus: packed words hold the fields where docs/config-bits.md puts them", "[art][config]") {
  std::vector<bool> forward(32, false);
  for (int i = 0; i < 30; ++i) forward[size_t(i)] = i % 3 != 0;  // switches 30, 31 are idle
  const ReductionPlan plan = compile_fabric(VnLayout::packed(32, 3, 10), forward);
  const auto narrow = config_words(plan.config, 16);
  REQUIRE(narrow.size() == 28);  // 448 bits / 16
  for (size_t k = 0; k < narrow.size(); ++k) CHECK(narrow[k].address == k);
  // MS 0…7 at bits 2i (active, take_forward): 01 11 11 01 11 11 01 11, MS 7 first = 0b1101'1111'0111'1101.
  CHECK(narrow[0].limbs.at(0) == 0xdf7d);
  const auto wide = config_words(plan.config, 64);
  REQUIRE(wide.size() == 7);
  CHECK(wide[3].limbs.at(0) >> 58 == 10);  // vn_count: bits 250…255 = bits 58…63 of word 3
  const auto widest = config_words(plan.config, 512);
  REQUIRE(widest.size() == 1);
  REQUIRE(widest[0].limbs.size() == 8);
  CHECK(widest[0].limbs[7] == 0);  // bits 448…511 are padding
  CHECK(widest[0].limbs[0] == wide[0].limbs[0]);
}

TEST_CASE("config bus: packed words decode to the same fields for every bus width", "[art][config]") {
  std::mt19937_64 rng(7);
  for (int m : {2, 8, 16, 64, 256, 1024}) {
    for (int trial = 0; trial < 5; ++trial) {
      FabricConfig config;  // random fields, every value in range
      config.num_ms = m;
      for (int i = 0; i < m; ++i) config.mult_switches.push_back(decode_mult_switch(unsigned(rng() % 4)));
      for (int a = 0; a < m - 1; ++a) config.adder_switches.push_back(decode_adder_switch(unsigned(rng() % 64)));
      const int vns = int(rng() % unsigned(m + 1));
      for (int k = 0; k < vns; ++k) config.collector_slots.push_back(int(rng() % unsigned(2 * (m - 1))));
      for (int bw = 16; bw <= 512; bw *= 2) {
        const std::vector<std::uint8_t> bytes = config_bytes(config, bw);
        INFO("num_ms " << m << ", config_bw " << bw);
        REQUIRE(std::int64_t(bytes.size()) == contracts::configuration_words(m, bw) * bw / 8);
        CHECK(config_from_bytes(m, bw, bytes.data(), bytes.size()) == config);
        CHECK(unpack_config(m, pack_config(config)) == config);
      }
    }
  }
}

TEST_CASE("config bus: bad packed configurations are refused with the field named", "[art][config]") {
  const ReductionPlan plan = compile_fabric(VnLayout::packed(32, 3, 10));
  std::vector<std::uint8_t> bytes = config_bytes(plan.config, 512);  // 448 bits used, 64 padding
  bytes[56] = 1;                                                     // bit 448
  CHECK_THROWS_WITH(config_from_bytes(32, 512, bytes.data(), bytes.size()),
                    "padding bit 448 of the last word is set (the configuration has 448 bits)");
  CHECK_THROWS_WITH(config_from_bytes(32, 512, bytes.data(), 32),
                    "32 configuration bytes, expected 64 for 32 MS at config_bw 512");
  ConfigBits bits = pack_config(plan.config);
  const ConfigLayout layout(32);
  bits.put(layout.vn_count_lsb, layout.vn_count_width, 33);
  CHECK_THROWS_WITH(unpack_config(32, bits), "vn_count 33 exceeds num_ms 32");
  bits = pack_config(plan.config);
  bits.put(layout.collector_lsb(31), layout.slot_width, 62);
  CHECK_THROWS_WITH(unpack_config(32, bits), "collector entry 31 names slot 62, beyond the last slot 61");
}
