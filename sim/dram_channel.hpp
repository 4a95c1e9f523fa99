// DramChannel: a SystemC model of the accelerator's DRAM interface — one channel that moves bytes_per_cycle bytes
// per clock (fractional rates accumulate) for the transfer at the head of a FIFO, and completes each transfer
// latency_cycles after its last byte crossed. Reads and writes share the channel in request order. Counts
// bytes and requests in each direction and the cycles the channel was busy.
#pragma once

#include <systemc>

#include <cstdint>
#include <deque>

namespace maeri::sim {

struct DramCounters {
  std::uint64_t bytes_read = 0, bytes_written = 0, read_requests = 0, write_requests = 0, busy_cycles = 0;
};

class DramChannel : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> clk;

  SC_HAS_PROCESS(DramChannel);
  explicit DramChannel(const sc_core::sc_module_name& name);

  // Drops every transfer and counter; the new rate and latency apply from the next clock.
  void reset(double bytes_per_cycle, std::uint64_t latency_cycles);

  // Queues a transfer of `bytes` (> 0) and returns its ticket; tickets complete in order.
  std::uint64_t request(std::int64_t bytes, bool write);
  bool complete(std::uint64_t ticket) const { return ticket < completed_; }
  bool idle() const { return completed_ == issued_; }
  const DramCounters& counters() const { return counters_; }

 private:
  void on_clock();

  struct Transfer {
    std::int64_t remaining;
  };
  double bytes_per_cycle_ = 1;
  std::uint64_t latency_cycles_ = 0;
  double credit_ = 0;
  std::uint64_t cycle_ = 0;
  std::uint64_t issued_ = 0, completed_ = 0;
  std::deque<Transfer> queue_;                // not yet fully transferred, in ticket order
  std::deque<std::uint64_t> completion_cycles_;  // transferred, waiting out the latency, in ticket order
  DramCounters counters_;
};

}  // namespace maeri::sim
