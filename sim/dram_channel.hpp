// DramChannel: the accelerator's DRAM interface as plain C++ clocked by its owner — one channel that moves
// bytes_per_cycle bytes per clock (fractional rates accumulate) for the transfer at the head of a FIFO. A read
// completes (its data is in the SDM) latency_cycles after its last byte crossed; a write is posted: it completes
// (its SDM space is free) as soon as its last byte crossed. Reads and writes share the channel in request order.
// Counts bytes and requests in each direction and the cycles the channel was busy. The co-simulation clocks it on
// the fabric's rising edge (sim/memory_system.hpp); the model's memory replay (sim/memory_replay.hpp) clocks the
// same class, so both follow one set of rules.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace maeri::sim {

struct DramCounters {
  std::uint64_t bytes_read = 0, bytes_written = 0, read_requests = 0, write_requests = 0, busy_cycles = 0;
};

class DramChannel {
 public:
  // Drops every transfer and counter; the new rate and latency apply from the next clock.
  void reset(double bytes_per_cycle, std::uint64_t latency_cycles);

  // One rising clock edge: the head transfers move bytes_per_cycle bytes (plus what earlier clocks left over).
  void clock();

  // Queues a transfer of `bytes` (> 0) and returns its ticket.
  std::uint64_t request(std::int64_t bytes, bool write);
  bool complete(std::uint64_t ticket) const { return done_cycle_[ticket] <= cycle_; }
  bool idle() const { return queue_.empty() && last_done_ <= cycle_; }
  const DramCounters& counters() const { return counters_; }

 private:
  struct Transfer {
    std::uint64_t ticket;
    std::int64_t remaining;
    bool write;
  };
  double bytes_per_cycle_ = 1;
  std::uint64_t latency_cycles_ = 0;
  double credit_ = 0;
  std::uint64_t cycle_ = 0;
  std::deque<Transfer> queue_;           // not yet fully transferred, in ticket order
  std::vector<std::uint64_t> done_cycle_;  // per ticket: when it completes (never, until transferred)
  std::uint64_t last_done_ = 0;
  DramCounters counters_;
};

}  // namespace maeri::sim
