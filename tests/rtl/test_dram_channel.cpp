// The DRAM channel on transfers small enough to follow by hand: bytes per clock (also fractional rates),
// reads completing a latency after their last byte, posted writes, FIFO order and the idle condition.
#include <catch2/catch.hpp>

#include "sim/dram_channel.hpp"

using maeri::sim::DramChannel;

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
