// Issue 43's checks at the places values enter a run, tested without the CLI: the memory budget's sizes and its
// refusal (util/memory_budget), a chained run's bytes (testbench/run_memory: what is live), non-finite values named with their
// element (testbench/finite_values), a cosine of values near 1e300, and a DRAM device's timing in cycles with the
// co-simulation's watchdog (contracts/dram_timing). Expected values are computed by hand in the comments.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "contracts/dram_timing.hpp"
#include "network_builder.hpp"
#include "testbench/finite_values.hpp"
#include "testbench/network_reference.hpp"
#include "testbench/run_memory.hpp"
#include "util/input_error.hpp"
#include "util/memory_budget.hpp"

using namespace maeri;

namespace {

// The message of the util::InputError `action` throws, or "" when it throws none.
template <class Action>
std::string message_of(Action action) {
  try {
    action();
  } catch (const util::InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("memory budget: sizes in bytes with binary multiples, and the refusal names the bytes", "[reliability]") {
  CHECK(util::parse_memory_size("4096", "--memory-budget") == 4096);
  CHECK(util::parse_memory_size("4K", "--memory-budget") == 4096);
  CHECK(util::parse_memory_size("1.5G", "--memory-budget") == 1610612736);  // 1.5 · 2^30
  CHECK(util::parse_memory_size("2T", "--memory-budget") == std::uint64_t{2} << 40);
  for (const char* bad : {"", "0", "-1", "12Q", "K", ".5G", "1e3", "9999999999T"})
    CHECK(message_of([&] { util::parse_memory_size(bad, "--memory-budget"); }).find("expected a size in bytes") !=
          std::string::npos);
  CHECK(util::default_memory_budget() > 0);
  const std::uint64_t kept = util::memory_budget();
  util::set_memory_budget(1000);
  CHECK(message_of([] { util::require_memory(1000, "f.yaml", "tensors", "x"); }).empty());
  CHECK(message_of([] { util::require_memory(1001, "f.yaml", "tensors", "tensor 'x'"); }) ==
        "f.yaml: field 'tensors': tensor 'x' would need 1001 bytes (1001 bytes), more than the memory budget of 1000 "
        "bytes (1000 bytes; --memory-budget, by default half of the memory available when the command starts)");
  util::set_memory_budget(kept);
}

TEST_CASE("a chained run's bytes: 8 a value of every tensor, 16 of the largest live set and of each constant, "
          "counted without wrapping", "[reliability]") {
  // x (1,3,10,10) → conv a (8 filters 3×3, pad 1) → y (1,8,10,10) → relu → z → conv b (4 filters) → out (1,4,10,10).
  test::NetworkBuilder b("chain");
  contracts::Layer a;
  a.name = "a";
  a.N = 1, a.K = 8, a.C = 3, a.R = a.S = 3, a.X = a.Y = 10, a.padding_x = a.padding_y = 1;
  contracts::Layer c = a;
  c.name = "b", c.K = 4, c.C = 8;
  b.fabric(c, b.relu("r", b.fabric(a, b.input("x", {1, 3, 10, 10}))));
  // Activations 300 + 800 + 800 + 400 = 2300 values; weights 8·3·9 + 4·8·9 = 504. Live as the operators run: x 300,
  // with y 1100, x freed 800, with z 1600 (the peak), y freed 800, with out 1200, z freed 400 (the output stays).
  CHECK(testbench::peak_live_elements(b.network()) == 1600);
  CHECK(testbench::chained_run_bytes(b.network()) == 2300 * 8 + 1600 * 16 + 504 * 16);  // 52,064
  CHECK(testbench::chained_run_bytes(b.network(), 3) == 3 * 2300 * 8 + 1600 * 16 + 504 * 16);  // 3 samples: 88,864

  contracts::Network network;  // tensors alone, no operator: both activations are inputs, live throughout
  network.name = "n";
  network.tensors = {{"x", {1, 3, 10, 10}, false, {}}, {"w", {8, 3, 3, 3}, true, {}}, {"y", {1, 8, 10, 10}, false, {}}};
  // 1100 · 8 + 1100 · 16 + 216 · 16 = 8800 + 17600 + 3456
  CHECK(testbench::chained_run_bytes(network) == 29856);
  const std::int64_t wide = std::int64_t{1} << 24;
  network.tensors[1].shape = {wide, wide, 1, 1};  // 2^48 weights: 2^52 bytes, past any budget
  CHECK(testbench::chained_run_bytes(network) == 26400 + std::ldexp(1.0L, 52));
  CHECK(message_of([&] { testbench::require_chained_run_memory(network, "wide.yaml"); })
            .find("wide.yaml: field 'tensors': a chained run of network n: tensor 'w' (16777216, 16777216, 1, 1), 16 "
                  "bytes a value, would need 4503599627370496 bytes (4.0 PiB)") == 0);
}

TEST_CASE("non-finite values are named with their element and where they came from", "[reliability]") {
  std::vector<double> values(24, 0.5);
  CHECK(message_of([&] { testbench::require_finite(values, {1, 2, 3, 4}, "in.npy", "--network-input", "x"); }).empty());
  values[17] = std::nan("");  // 17 = ((0·2 + 1)·3 + 1)·4 + 1: index (0, 1, 1, 1)
  CHECK(message_of([&] { testbench::require_finite(values, {1, 2, 3, 4}, "in.npy", "--network-input", "the input 'x'"); }) ==
        "in.npy: field '--network-input': the input 'x' holds nan at element 17 (0, 1, 1, 1): a chained run quantizes "
        "finite real values only");
  values[17] = 0;
  values[3] = -HUGE_VAL;
  CHECK(message_of([&] { testbench::require_finite(values, {5}, "w.npz", "weights", "w"); }) ==
        "w.npz: field 'weights': w holds -inf at element 3: a chained run quantizes finite real values only");
}

TEST_CASE("the cosine similarity of values near 1e300 is a number", "[reliability]") {
  // The sums of squares overflowed to inf / inf = NaN before; the cosine does not depend on the scale.
  CHECK(testbench::cosine_similarity({1e300, 1e300}, {1e300, 1e300}) == Approx(1.0));
  CHECK(testbench::cosine_similarity({1e300, 0}, {0, 1e300}) == Approx(0.0));
  CHECK(testbench::cosine_similarity({3, 4}, {4, 3}) == Approx(24.0 / 25));  // (12 + 12) / (5 · 5)
}

TEST_CASE("DRAM timing in cycles: the loader's check and the watchdog use the co-simulation's rounding",
          "[reliability]") {
  contracts::DramDevice device;
  device.refresh_interval_ns = 7800;
  device.refresh_ns = 7799.999;
  // At 200 MHz: 7800 ns = 1560 cycles; 7799.999 ns = 1559.9998 cycles, rounded up to 1560: no time to move data.
  CHECK(contracts::cycles_of_ns(7800, 200) == 1560);
  CHECK(contracts::cycles_of_ns(7799.999, 200) == 1560);
  CHECK(contracts::cycles_of_ns(7795, 200) == 1559);
  REQUIRE(contracts::dram_timing_violation(device, 200));
  CHECK(contracts::dram_timing_violation(device, 200)->find("refresh_ns 7799.999 is 1560 cycles") != std::string::npos);
  device.refresh_ns = 7795;
  CHECK(!contracts::dram_timing_violation(device, 200));

  contracts::Hardware hardware;
  hardware.sdm_bytes = 65536;
  hardware.dram_bytes_per_cycle = 16;
  hardware.dram_latency_cycles = 100;
  hardware.clock_mhz = 200;
  CHECK(contracts::slowest_transfer_cycles(hardware) == 4196);  // 65536 / 16 + 100
  CHECK(contracts::watchdog_cycles(hardware) == contracts::kMinWatchdogCycles);
  hardware.dram_bytes_per_cycle = 0.001;  // the documented minimum
  contracts::DramDevice slow;
  slow.banks = 1;
  slow.row_bytes = 16;
  slow.row_miss_ns = 1e4;  // 2000 cycles at 200 MHz
  slow.turnaround_ns = 1e4;
  hardware.dram_device = slow;
  // 65536 / 0.001 + 100 + (65536 / 16 + 1) · 2000 + 2000 = 65536100 + 8194000 + 2000 = 73732100, doubled.
  CHECK(contracts::slowest_transfer_cycles(hardware) == Approx(73732100).epsilon(1e-12));
  CHECK(contracts::watchdog_cycles(hardware) == 147464200);
}
