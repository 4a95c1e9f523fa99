// The DRAM channel's clocked behaviour (see dram_channel.hpp).
#include "sim/dram_channel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace maeri::sim {

void DramChannel::reset(double bytes_per_cycle, std::uint64_t latency_cycles) {
  if (!(bytes_per_cycle > 0)) throw std::invalid_argument("DRAM bandwidth must be positive");
  bytes_per_cycle_ = bytes_per_cycle;
  latency_cycles_ = latency_cycles;
  credit_ = 0;
  queue_.clear();
  done_cycle_.clear();
  last_done_ = 0;
  counters_ = DramCounters{};
}

std::uint64_t DramChannel::request(std::int64_t bytes, bool write) {
  if (bytes <= 0) throw std::invalid_argument("a DRAM transfer needs at least one byte");
  const std::uint64_t ticket = done_cycle_.size();
  done_cycle_.push_back(std::numeric_limits<std::uint64_t>::max());
  queue_.push_back({ticket, bytes, write});
  (write ? counters_.bytes_written : counters_.bytes_read) += std::uint64_t(bytes);
  ++(write ? counters_.write_requests : counters_.read_requests);
  return ticket;
}

void DramChannel::clock() {
  ++cycle_;
  if (queue_.empty()) {
    credit_ = 0;  // an idle channel does not bank bandwidth
  } else {
    ++counters_.busy_cycles;
    credit_ += bytes_per_cycle_;
    while (!queue_.empty() && credit_ >= 1) {
      Transfer& head = queue_.front();
      const std::int64_t moved = std::min(head.remaining, std::int64_t(std::floor(credit_)));
      head.remaining -= moved;
      credit_ -= double(moved);
      if (head.remaining > 0) break;
      const std::uint64_t done = head.write ? cycle_ : cycle_ + latency_cycles_;
      done_cycle_[head.ticket] = done;
      last_done_ = std::max(last_done_, done);
      queue_.pop_front();
    }
  }
}

}  // namespace maeri::sim
