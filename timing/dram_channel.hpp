// DramChannel: the accelerator's DRAM interface as plain C++ clocked by its owner — one channel that moves
// bytes_per_cycle bytes per clock (fractional rates accumulate) for the transfer at the head of a FIFO. A read
// completes (its data is in the SDM) latency_cycles after its last byte crossed; a write is posted: it completes
// (its SDM space is free) as soon as its last byte crossed. Reads and writes share the channel in request order.
// Counts bytes and requests in each direction and the cycles the channel was busy. Optionally (a hardware spec's
// `dram.timing`) the channel is a DRAM device: transfers get consecutive addresses (reads and
// writes in separate regions), the address picks a bank and row, and the channel moves nothing for the row-miss
// time when a transfer enters a bank's closed row, for the turnaround time when it switches between reading and
// writing, and for the refresh time every refresh interval (which closes every row). The co-simulation clocks it on
// the fabric's rising edge (sim/memory_system.hpp); the model's memory replay (timing/memory_replay.hpp) clocks the
// same class, so both follow one set of rules.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "contracts/hardware.hpp"

namespace maeri::timing {

struct DramCounters {
  std::uint64_t bytes_read = 0, bytes_written = 0, read_requests = 0, write_requests = 0, busy_cycles = 0;
  std::uint64_t row_misses = 0, refreshes = 0;  // with a DRAM device only
};

// The model's effective DRAM (ModelParameters::dram_row_bytes, dram_row_miss, dram_turnaround): the channel loses
// row_miss cycles of bandwidth (as a debt of credit, so fractions count) when a transfer enters a new row of its
// direction's address stream, and turnaround cycles when it switches between reading and writing.
struct DramPenalties {
  double row_bytes = 0, row_miss = 0, turnaround = 0;
  bool any() const { return (row_bytes > 0 && row_miss > 0) || turnaround > 0; }
};

// A DramDevice in cycles of the accelerator clock (each time rounded up).
struct DramDeviceCycles {
  std::int64_t banks = 1, row_bytes = 1;
  std::uint64_t row_miss = 0, refresh_interval = 0, refresh = 0, turnaround = 0;
  static DramDeviceCycles of(const contracts::DramDevice& device, double clock_mhz);
};

class DramChannel {
 public:
  // Drops every transfer and counter; the new rate, latency and device apply from the next clock.
  void reset(double bytes_per_cycle, std::uint64_t latency_cycles, std::optional<DramDeviceCycles> device = {},
             DramPenalties penalties = {});

  // One rising clock edge: the head transfers move bytes_per_cycle bytes (plus what earlier clocks left over).
  void clock();

  // Queues a transfer of `bytes` (> 0) and returns its ticket.
  std::uint64_t request(std::int64_t bytes, bool write);
  bool complete(std::uint64_t ticket) const { return done_cycle_[ticket] <= cycle_; }
  bool idle() const { return queue_.empty() && last_done_ <= cycle_; }
  const DramCounters& counters() const { return counters_; }
  std::uint64_t cycle() const { return cycle_; }

  // Fast-forward for an owner that jumps over cycles where nothing happens (the model's memory replay; the
  // co-simulation clocks every cycle). quiet_clocks(): how many of the next clocks are certainly pure motion —
  // the head transfer moves bytes (or a row miss, turnaround or refresh keeps waiting) without finishing, entering
  // a new row, a refresh starting or the channel's fractional credit leaving the range where double arithmetic is
  // exact — 0 when not known. skip(n), n ≤ quiet_clocks(): the state and counters n clocks give, in O(1).
  // next_completion(): the earliest cycle after now at which a transfer completes (a read's latency ends), or
  // UINT64_MAX.
  std::uint64_t quiet_clocks() const;
  void skip(std::uint64_t clocks);
  std::uint64_t next_completion();

 private:
  struct Transfer {
    std::uint64_t ticket;
    std::int64_t remaining;
    bool write;
    std::int64_t address;  // of the next byte to move (a DRAM device's bank and row)
  };
  // With a device: whether the head transfer may move data this cycle (else a penalty starts).
  bool device_allows(const Transfer& head);
  // With penalties: charges the head transfer's row and direction changes to the credit; false when in debt.
  bool charge_penalties(const Transfer& head);
  // The bytes the head may move before its next row (with a device or penalties; else all it has left).
  std::int64_t movable_in_row(const Transfer& head) const;
  // The credit as an integer count of 2^-exponent bytes, when it and the rate are exact at that scale and every sum
  // of a skip stays exact in a double (else false).
  bool fixed_point(int& exponent, std::int64_t& rate, std::int64_t& credit) const;
  double bytes_per_cycle_ = 1;
  std::uint64_t latency_cycles_ = 0;
  double credit_ = 0;
  std::uint64_t cycle_ = 0;
  std::deque<Transfer> queue_;           // not yet fully transferred, in ticket order
  std::vector<std::uint64_t> done_cycle_;  // per ticket: when it completes (never, until transferred)
  // Reads' done cycles not yet reached, ascending (each is its last byte's cycle + the latency; writes complete at once).
  std::deque<std::uint64_t> completions_;
  std::uint64_t last_done_ = 0;
  DramCounters counters_;
  std::optional<DramDeviceCycles> device_;
  std::int64_t next_read_address_ = 0, next_write_address_ = 0;
  std::vector<std::int64_t> open_row_;  // per bank, -1 = closed
  bool writing_ = false;                // direction of the last data moved
  std::uint64_t blocked_until_ = 0, next_refresh_ = 0;
  DramPenalties penalties_;
  bool penalised_ = false;  // penalties_.any()
  std::int64_t last_row_[2] = {-1, -1};  // per direction (read, write): the row the last moved byte was in
};

}  // namespace maeri::timing
