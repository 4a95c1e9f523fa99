// The DRAM channel's clocked behaviour (see dram_channel.hpp).
#include "timing/dram_channel.hpp"

#include "contracts/dram_timing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace maeri::timing {

__extension__ typedef __int128 Wide;  // a skip's sums: a rate times up to 2^64 clocks

DramDeviceCycles DramDeviceCycles::of(const contracts::DramDevice& device, double clock_mhz) {
  if (const auto violation = contracts::dram_timing_violation(device, clock_mhz))
    throw std::invalid_argument("DRAM timing: " + *violation);  // the hardware loader refuses such a spec
  const contracts::DramTimingCycles cycles = contracts::dram_timing_cycles(device, clock_mhz);
  DramDeviceCycles result;
  result.banks = device.banks;
  result.row_bytes = device.row_bytes;
  result.row_miss = cycles.row_miss;
  result.refresh_interval = cycles.refresh_interval;
  result.refresh = cycles.refresh;
  result.turnaround = cycles.turnaround;
  return result;
}

void DramChannel::reset(double bytes_per_cycle, std::uint64_t latency_cycles, std::optional<DramDeviceCycles> device,
                        DramPenalties penalties) {
  if (!(bytes_per_cycle > 0)) throw std::invalid_argument("DRAM bandwidth must be positive");
  bytes_per_cycle_ = bytes_per_cycle;
  latency_cycles_ = latency_cycles;
  credit_ = 0;
  queue_.clear();
  done_cycle_.clear();
  completions_.clear();
  last_done_ = 0;
  counters_ = DramCounters{};
  device_ = device;
  next_read_address_ = 0;
  next_write_address_ = std::int64_t(1) << 48;  // a region of its own: writes never share a row with reads
  open_row_.assign(device_ ? std::size_t(device_->banks) : 0, -1);
  writing_ = false;
  blocked_until_ = cycle_;
  next_refresh_ = device_ && device_->refresh_interval > 0 ? cycle_ + device_->refresh_interval : 0;
  penalties_ = penalties;
  penalised_ = penalties.any();
  last_row_[0] = last_row_[1] = -1;
}

bool DramChannel::charge_penalties(const Transfer& head) {
  if (head.write != writing_) {
    writing_ = head.write;
    credit_ -= penalties_.turnaround * bytes_per_cycle_;
  }
  if (penalties_.row_bytes >= 1) {
    const auto row = std::int64_t(double(head.address) / penalties_.row_bytes);
    if (row != last_row_[head.write]) {
      last_row_[head.write] = row;
      credit_ -= penalties_.row_miss * bytes_per_cycle_;
    }
  }
  return credit_ >= 1;
}

bool DramChannel::device_allows(const Transfer& head) {
  const auto block = [this](std::uint64_t cycles) {  // false: the channel waits `cycles` from now
    if (cycles == 0) return true;
    blocked_until_ = cycle_ + cycles;
    credit_ = 0;
    return false;
  };
  if (head.write != writing_) {
    writing_ = head.write;
    if (!block(device_->turnaround)) return false;
  }
  const std::int64_t row_index = head.address / device_->row_bytes;
  const std::size_t bank = std::size_t(row_index % device_->banks);
  const std::int64_t row = row_index / device_->banks;
  if (open_row_[bank] != row) {
    open_row_[bank] = row;
    ++counters_.row_misses;
    if (!block(device_->row_miss)) return false;
  }
  return true;
}

std::uint64_t DramChannel::request(std::int64_t bytes, bool write) {
  if (bytes <= 0) throw std::invalid_argument("a DRAM transfer needs at least one byte");
  const std::uint64_t ticket = done_cycle_.size();
  done_cycle_.push_back(std::numeric_limits<std::uint64_t>::max());
  std::int64_t& next_address = write ? next_write_address_ : next_read_address_;
  queue_.push_back({ticket, bytes, write, next_address});
  next_address += bytes;
  (write ? counters_.bytes_written : counters_.bytes_read) += std::uint64_t(bytes);
  ++(write ? counters_.write_requests : counters_.read_requests);
  return ticket;
}

void DramChannel::clock() {
  ++cycle_;
  if (device_ && next_refresh_ != 0 && cycle_ >= next_refresh_) {
    blocked_until_ = std::max(blocked_until_, cycle_ + device_->refresh);
    next_refresh_ += device_->refresh_interval;
    std::fill(open_row_.begin(), open_row_.end(), -1);
    ++counters_.refreshes;
  }
  if (queue_.empty()) {
    credit_ = 0;  // an idle channel does not bank bandwidth
    return;
  }
  ++counters_.busy_cycles;
  if (cycle_ < blocked_until_) return;  // a row miss, turnaround or refresh: nothing moves, nothing accrues
  credit_ += bytes_per_cycle_;
  while (!queue_.empty() && credit_ >= 1) {
    Transfer& head = queue_.front();
    if (device_) {
      if (!device_allows(head)) break;
    } else if (penalised_) {
      if (!charge_penalties(head)) break;
    }
    const std::int64_t movable = device_ || penalised_ ? movable_in_row(head) : head.remaining;
    const std::int64_t moved = std::min(movable, std::int64_t(std::floor(credit_)));
    head.remaining -= moved;
    head.address += moved;
    credit_ -= double(moved);
    if (head.remaining > 0) {
      if (moved < movable) break;  // out of credit; else the transfer continues in the next row
      continue;
    }
    const std::uint64_t done = head.write ? cycle_ : cycle_ + latency_cycles_;
    done_cycle_[head.ticket] = done;
    last_done_ = std::max(last_done_, done);
    if (done > cycle_) completions_.push_back(done);
    queue_.pop_front();
  }
}

std::int64_t DramChannel::movable_in_row(const Transfer& head) const {
  std::int64_t movable = head.remaining;
  if (device_) {
    movable = std::min(movable, device_->row_bytes - head.address % device_->row_bytes);
  } else if (penalties_.any() && penalties_.row_bytes >= 1) {
    const double row_end = (std::floor(double(head.address) / penalties_.row_bytes) + 1) * penalties_.row_bytes;
    movable = std::min(movable, std::max<std::int64_t>(1, std::int64_t(std::ceil(row_end)) - head.address));
  }
  return movable;
}

// The clocked arithmetic adds the rate to the credit and subtracts whole bytes moved: with both multiples of
// 2^-exponent and every value below 2^53 of those units, each operation is exact, so n clocks of it are the
// integer sums below.
bool DramChannel::fixed_point(int& exponent, std::int64_t& rate, std::int64_t& credit) const {
  for (exponent = 0; exponent <= 60; ++exponent) {
    const double scaled_rate = std::ldexp(bytes_per_cycle_, exponent), scaled_credit = std::ldexp(credit_, exponent);
    if (scaled_rate != std::floor(scaled_rate) || scaled_credit != std::floor(scaled_credit)) continue;
    if (!(std::ldexp(std::fabs(credit_) + 2 * bytes_per_cycle_ + 2, exponent) < 0x1p53)) return false;
    rate = std::int64_t(scaled_rate);
    credit = std::int64_t(scaled_credit);
    return true;
  }
  return false;
}

std::uint64_t DramChannel::quiet_clocks() const {
  std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
  if (device_ && next_refresh_ != 0) {
    if (next_refresh_ <= cycle_ + 1) return 0;
    limit = next_refresh_ - cycle_ - 1;
  }
  if (queue_.empty()) return limit;        // idle: nothing moves, the credit stays 0
  if (cycle_ + 1 < blocked_until_) return std::min(limit, blocked_until_ - cycle_ - 1);  // waiting out a penalty
  if (cycle_ + 1 == blocked_until_) return 0;  // the clock that resumes checks the head's row again
  const Transfer& head = queue_.front();
  if (device_) {  // the head must already be in the channel's direction and its bank's open row
    const std::int64_t row_index = head.address / device_->row_bytes;
    if (head.write != writing_ || open_row_[std::size_t(row_index % device_->banks)] != row_index / device_->banks)
      return 0;
  } else if (penalties_.any()) {  // the head's direction and row already charged
    if (head.write != writing_) return 0;
    if (penalties_.row_bytes >= 1 &&
        std::int64_t(double(head.address) / penalties_.row_bytes) != last_row_[head.write])
      return 0;
  }
  int exponent = 0;
  std::int64_t rate = 0, credit = 0;
  if (!fixed_point(exponent, rate, credit)) return 0;
  // The first clock t at which the motion reaches the row's end or the transfer's: credit + t·rate ≥ movable.
  const Wide need = (Wide(movable_in_row(head)) << exponent) - credit;
  if (need <= 0) return 0;
  const Wide reach = (need + rate - 1) / rate;
  return std::min<std::uint64_t>(limit, std::uint64_t(reach - 1));
}

void DramChannel::skip(std::uint64_t clocks) {
  if (clocks == 0) return;
  cycle_ += clocks;
  if (queue_.empty()) {
    credit_ = 0;
    return;
  }
  counters_.busy_cycles += clocks;
  if (cycle_ < blocked_until_) return;
  int exponent = 0;
  std::int64_t rate = 0, credit = 0;
  if (!fixed_point(exponent, rate, credit)) throw std::logic_error("DramChannel::skip beyond its quiet clocks");
  const Wide total = Wide(credit) + Wide(rate) * clocks;
  const std::int64_t moved = total > 0 ? std::int64_t(total >> exponent) : 0;
  Transfer& head = queue_.front();
  head.remaining -= moved;
  head.address += moved;
  credit_ = std::ldexp(double(std::int64_t(total - (Wide(moved) << exponent))), -exponent);
}

std::uint64_t DramChannel::next_completion() {
  while (!completions_.empty() && completions_.front() <= cycle_) completions_.pop_front();
  return completions_.empty() ? std::numeric_limits<std::uint64_t>::max() : completions_.front();
}

}  // namespace maeri::timing
