// SystemC tests of the Verilated multiplier switch (rtl/mult_switch.sv): proves the Verilator + SystemC
// path end to end and checks the switch's arithmetic and neighbour forwarding cycle by cycle.
#include <catch2/catch.hpp>
#include <systemc>

#include <cstdint>
#include <vector>

#include "Vmult_switch.h"

namespace {

// Two multiplier switches, the second fed by the first's forwarding link, clocked by hand so each
// step() is exactly one rising edge.
struct TwoSwitchBench {
  sc_core::sc_signal<bool> clk{"clk"}, rst{"rst"};
  sc_core::sc_signal<bool> weight_load[2], take_forward[2], dn_valid[2];
  sc_core::sc_signal<uint32_t> weight_in[2], dn_data[2];
  sc_core::sc_signal<bool> zero_valid{"zero_valid"};
  sc_core::sc_signal<uint32_t> zero_data{"zero_data"};
  sc_core::sc_signal<bool> forward_valid[2], product_valid[2];
  sc_core::sc_signal<uint32_t> forward_data[2], product[2];
  Vmult_switch first{"first"};
  Vmult_switch second{"second"};

  TwoSwitchBench() {
    Vmult_switch* switches[2] = {&first, &second};
    for (int i = 0; i < 2; ++i) {
      Vmult_switch& ms = *switches[i];
      ms.clk(clk);
      ms.rst(rst);
      ms.weight_load(weight_load[i]);
      ms.weight_in(weight_in[i]);
      ms.take_forward(take_forward[i]);
      ms.dn_valid(dn_valid[i]);
      ms.dn_data(dn_data[i]);
      ms.fwd_out_valid(forward_valid[i]);
      ms.fwd_out_data(forward_data[i]);
      ms.product_valid(product_valid[i]);
      ms.product(product[i]);
    }
    first.fwd_in_valid(zero_valid);
    first.fwd_in_data(zero_data);
    second.fwd_in_valid(forward_valid[0]);
    second.fwd_in_data(forward_data[0]);
  }

  void step() {
    clk.write(true);
    sc_core::sc_start(1, sc_core::SC_NS);
    clk.write(false);
    sc_core::sc_start(1, sc_core::SC_NS);
  }

  void reset() {
    rst.write(true);
    step();
    rst.write(false);
  }

  void load_weight(int index, int16_t weight) {
    weight_in[index].write(static_cast<uint16_t>(weight));
    weight_load[index].write(true);
    step();
    weight_load[index].write(false);
  }
};

uint32_t bits32(int64_t value) { return static_cast<uint32_t>(static_cast<int32_t>(value)); }
uint32_t bits16(int16_t value) { return static_cast<uint16_t>(value); }

}  // namespace

TEST_CASE("multiplier switch multiplies DN operands by its stationary weight, sign-extended to 32 bits",
          "[rtl][mn]") {
  TwoSwitchBench bench;
  bench.reset();
  CHECK_FALSE(bench.product_valid[0].read());
  bench.load_weight(0, -3);

  // Expected products worked by hand: -3*5, -3*-7, -3*32767, -3*-32768.
  const std::vector<int16_t> operands = {5, -7, 32767, -32768};
  const std::vector<int64_t> expected = {-15, 21, -98301, 98304};
  for (std::size_t i = 0; i < operands.size(); ++i) {
    bench.dn_data[0].write(bits16(operands[i]));
    bench.dn_valid[0].write(true);
    bench.step();
    REQUIRE(bench.product_valid[0].read());
    CHECK(bench.product[0].read() == bits32(expected[i]));
  }
  bench.dn_valid[0].write(false);
  bench.step();
  CHECK_FALSE(bench.product_valid[0].read());

  // The largest 16x16 product, (-32768)^2 = 2^30, still fits a 32-bit accumulator.
  bench.load_weight(0, -32768);
  bench.dn_data[0].write(bits16(-32768));
  bench.dn_valid[0].write(true);
  bench.step();
  CHECK(bench.product[0].read() == (uint32_t{1} << 30));
}

TEST_CASE("multiplier switch forwards its operand to the right neighbour one cycle later", "[rtl][mn]") {
  TwoSwitchBench bench;
  bench.reset();
  bench.load_weight(0, 1);
  bench.load_weight(1, 2);
  bench.take_forward[1].write(true);  // the second switch listens to the first, not to the DN

  const std::vector<int16_t> stream = {4, -9, 100};
  for (std::size_t t = 0; t < stream.size(); ++t) {
    bench.dn_data[0].write(bits16(stream[t]));
    bench.dn_valid[0].write(true);
    bench.step();
    CHECK(bench.product[0].read() == bits32(stream[t]));
    REQUIRE(bench.forward_valid[0].read());
    CHECK(bench.forward_data[0].read() == bits16(stream[t]));
    if (t > 0) {
      // The second switch multiplied what the first held during this edge: the previous operand.
      REQUIRE(bench.product_valid[1].read());
      CHECK(bench.product[1].read() == bits32(2 * stream[t - 1]));
    }
  }
  bench.dn_valid[0].write(false);
  bench.step();
  CHECK(bench.product[1].read() == bits32(2 * stream.back()));
  bench.step();
  CHECK_FALSE(bench.product_valid[1].read());
}

TEST_CASE("multiplier switch reset is synchronous and clears the weight", "[rtl][mn]") {
  TwoSwitchBench bench;
  bench.reset();
  bench.load_weight(0, 7);
  bench.rst.write(true);
  bench.dn_valid[0].write(true);
  bench.dn_data[0].write(3);
  bench.step();
  CHECK_FALSE(bench.product_valid[0].read());
  bench.rst.write(false);
  bench.step();
  REQUIRE(bench.product_valid[0].read());
  CHECK(bench.product[0].read() == 0u);  // weight was cleared to 0 by reset
}
