// The DRAM channel on transfers small enough to follow by hand: bytes per clock (also fractional rates),
// reads completing a latency after their last byte, posted writes, FIFO order and the idle condition.
#include <catch2/catch.hpp>

#include "timing/dram_channel.hpp"

using maeri::timing::DramChannel;

namespace {

// A DRAM channel on a hand-driven clock; every tick is one rising edge.
struct ChannelBench {
  DramChannel dram;
  std::uint64_t cycle = 0;

  void tick() {
    dram.clock();
    ++cycle;
  }
};

}  // namespace

TEST_CASE("DRAM channel: bandwidth, read latency, posted writes, fractional rates", "[sim][dram]") {
  ChannelBench bench;

  // 4 B/cycle, latency 10. A 10-byte read moves 4 + 4 + 2 bytes in cycles 1-3, so its data is in the SDM at
  // 3 + 10 = 13. A 6-byte write queued behind it gets the 2 spare bytes of cycle 3 and 4 more in cycle 4: it is
  // posted, so it completes at 4.
  bench.dram.reset(4, 10);
  const auto read = bench.dram.request(10, /*write=*/false);
  const auto write = bench.dram.request(6, /*write=*/true);
  std::uint64_t read_done = 0, write_done = 0, idle_at = 0;
  while (bench.cycle < 20) {
    bench.tick();
    if (!read_done && bench.dram.complete(read)) read_done = bench.cycle;
    if (!write_done && bench.dram.complete(write)) write_done = bench.cycle;
    if (!idle_at && bench.dram.idle()) idle_at = bench.cycle;
  }
  CHECK(read_done == 13);
  CHECK(write_done == 4);
  CHECK(idle_at == 13);  // the read's data is still in flight until then
  CHECK(bench.dram.counters().bytes_read == 10);
  CHECK(bench.dram.counters().bytes_written == 6);
  CHECK(bench.dram.counters().read_requests == 1);
  CHECK(bench.dram.counters().write_requests == 1);
  CHECK(bench.dram.counters().busy_cycles == 4);  // cycles with a transfer queued: 1-4

  // 2.5 B/cycle, no latency: credit 2.5 -> 2 bytes (0.5 left), 3.0 -> 3, 2.5 -> 2, 3.0 -> 3: 10 bytes in 4
  // cycles, as 10 / 2.5 says. An idle channel banks no credit: the next read starts again from 2.5.
  bench.dram.reset(2.5, 0);
  const std::uint64_t start = bench.cycle;
  const auto fractional = bench.dram.request(10, /*write=*/false);
  while (!bench.dram.complete(fractional)) bench.tick();
  CHECK(bench.cycle - start == 4);
  for (int i = 0; i < 5; ++i) bench.tick();
  const std::uint64_t again = bench.cycle;
  const auto two = bench.dram.request(2, /*write=*/false);
  const auto three = bench.dram.request(1, /*write=*/false);
  bench.tick();
  CHECK(bench.dram.complete(two));       // 2 of the 2.5 bytes
  CHECK_FALSE(bench.dram.complete(three));  // 0.5 byte of credit left: not a whole byte
  bench.tick();
  CHECK(bench.dram.complete(three));
  CHECK(bench.cycle - again == 2);
  CHECK(bench.dram.counters().bytes_read == 13);

  CHECK_THROWS_AS(bench.dram.request(0, false), std::invalid_argument);
  CHECK_THROWS_AS(bench.dram.reset(0, 10), std::invalid_argument);
}

namespace {

// Ticks until the transfer completes; returns the cycles since `start`.
std::uint64_t cycles_until_complete(ChannelBench& bench, std::uint64_t ticket, std::uint64_t start) {
  while (!bench.dram.complete(ticket)) bench.tick();
  return bench.cycle - start;
}

}  // namespace

TEST_CASE("DRAM channel as a device: row misses, turnaround and refresh, by hand", "[sim][dram]") {
  maeri::timing::DramDeviceCycles device;

  SECTION("row misses") {
    // 4 B/cycle, rows of 8 bytes in one bank, a miss costs 3 cycles. A 16-byte read: cycle 1 opens row 0 (cycles
    // 1-3 move nothing), cycles 4-5 move bytes 0-7, cycle 6 opens row 1 (6-8 idle), cycles 9-10 move bytes 8-15.
    ChannelBench bench;
    device.row_bytes = 8;
    device.row_miss = 3;
    bench.dram.reset(4, 0, device);
    CHECK(cycles_until_complete(bench, bench.dram.request(16, false), 0) == 10);
    CHECK(bench.dram.counters().row_misses == 2);
  }
  SECTION("read/write turnaround") {
    // A 4-byte read moves in cycle 1; the write behind it waits out the 2-cycle turnaround (cycles 2-3), then
    // moves in cycle 4 (its own region: a row miss, here free).
    ChannelBench bench;
    device.banks = 2;
    device.row_bytes = 1024;
    device.turnaround = 2;
    bench.dram.reset(4, 0, device);
    const auto read = bench.dram.request(4, false);
    const auto write = bench.dram.request(4, true);
    CHECK(cycles_until_complete(bench, read, 0) == 1);
    CHECK(cycles_until_complete(bench, write, 0) == 4);
    CHECK(bench.dram.counters().row_misses == 2);
  }
  SECTION("refresh") {
    // A refresh every 10 cycles takes 3: a 100-byte read at 4 B/cycle moves in cycles 1-9 (36 bytes), 13-19 (64),
    // 23-29 (92) and 33-34 (100): 34 cycles instead of 25, three refreshes.
    ChannelBench bench;
    device.row_bytes = 1 << 20;
    device.refresh_interval = 10;
    device.refresh = 3;
    bench.dram.reset(4, 0, device);
    CHECK(cycles_until_complete(bench, bench.dram.request(100, false), 0) == 34);
    CHECK(bench.dram.counters().refreshes == 3);
  }
  SECTION("a preset in nanoseconds becomes cycles at the clock") {
    // DDR4-2400 at 200 MHz (5 ns per cycle): row miss 28.32 ns -> 6 cycles, tREFI 7.8 us -> 1560, tRFC 350 ns -> 70,
    // turnaround 7.5 ns -> 2 (every time rounded up).
    maeri::contracts::DramDevice ddr4{"ddr4-2400", 16, 8192, 28.32, 7800, 350, 7.5};
    const auto cycles = maeri::timing::DramDeviceCycles::of(ddr4, 200);
    CHECK(cycles.row_miss == 6);
    CHECK(cycles.refresh_interval == 1560);
    CHECK(cycles.refresh == 70);
    CHECK(cycles.turnaround == 2);
  }
}

TEST_CASE("DRAM channel with the model's effective penalties: lost cycles as a debt of credit", "[sim][dram]") {
  // 4 B/cycle, rows of 8 bytes costing 1 cycle each: a 16-byte read enters row 0 in cycle 1 (its 4 bytes of credit
  // repay the miss), moves bytes 0-7 in cycles 2-3, enters row 1 in cycle 4, moves bytes 8-15 in cycles 5-6.
  ChannelBench bench;
  bench.dram.reset(4, 0, std::nullopt, {8, 1, 0});
  CHECK(cycles_until_complete(bench, bench.dram.request(16, false), 0) == 6);
  // A half-cycle turnaround costs 2 bytes: a 2-byte read moves in cycle 1, and the 6-byte write behind it pays the
  // turnaround with the cycle's 2 bytes left, then moves 4 bytes in cycle 2 and 2 in cycle 3.
  ChannelBench turn;
  turn.dram.reset(4, 0, std::nullopt, {0, 0, 0.5});
  const auto read = turn.dram.request(2, false);
  const auto write = turn.dram.request(6, true);
  CHECK(cycles_until_complete(turn, read, 0) == 1);
  CHECK(cycles_until_complete(turn, write, 0) == 3);
}
