// The SDM / prefetcher rules and the DRAM channel as they were before issue 45's second speed-up
// (timing/memory_model.cpp and timing/dram_channel.cpp at main 60777f6), clocked every cycle: the memory side of the
// clock-by-clock reference replay (reference_replay.hpp). A frozen copy, so that a faster timing::MemoryModel or
// DramChannel is held equal to the rules it replaced rather than to itself. Test-only: nothing in the toolkit calls it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "timing/dram_channel.hpp"
#include "timing/memory_model.hpp"
#include "timing/memory_plan.hpp"

namespace maeri::test::reference {

// timing::DramChannel's clocked rules (reset, request, clock), without the fast-forward.
class DramChannel {
 public:
  void reset(double bytes_per_cycle, std::uint64_t latency_cycles, std::optional<timing::DramDeviceCycles> device,
             timing::DramPenalties penalties) {
    bytes_per_cycle_ = bytes_per_cycle;
    latency_cycles_ = latency_cycles;
    device_ = device;
    penalties_ = penalties;
    open_row_.assign(device_ ? std::size_t(device_->banks) : 0, -1);
    next_refresh_ = device_ && device_->refresh_interval > 0 ? device_->refresh_interval : 0;
  }

  std::uint64_t request(std::int64_t bytes, bool write) {
    const std::uint64_t ticket = done_cycle_.size();
    done_cycle_.push_back(std::numeric_limits<std::uint64_t>::max());
    std::int64_t& next_address = write ? next_write_address_ : next_read_address_;
    queue_.push_back({ticket, bytes, write, next_address});
    next_address += bytes;
    (write ? counters_.bytes_written : counters_.bytes_read) += std::uint64_t(bytes);
    ++(write ? counters_.write_requests : counters_.read_requests);
    return ticket;
  }
  bool complete(std::uint64_t ticket) const { return done_cycle_[ticket] <= cycle_; }
  bool idle() const { return queue_.empty() && last_done_ <= cycle_; }
  const timing::DramCounters& counters() const { return counters_; }

  void clock() {
    ++cycle_;
    if (device_ && next_refresh_ != 0 && cycle_ >= next_refresh_) {
      blocked_until_ = std::max(blocked_until_, cycle_ + device_->refresh);
      next_refresh_ += device_->refresh_interval;
      std::fill(open_row_.begin(), open_row_.end(), -1);
      ++counters_.refreshes;
    }
    if (queue_.empty()) {
      credit_ = 0;
      return;
    }
    ++counters_.busy_cycles;
    if (cycle_ < blocked_until_) return;
    credit_ += bytes_per_cycle_;
    while (!queue_.empty() && credit_ >= 1) {
      Transfer& head = queue_.front();
      if (device_) {
        if (!device_allows(head)) break;
      } else if (penalties_.any()) {
        if (!charge_penalties(head)) break;
      }
      const std::int64_t movable = movable_in_row(head);
      const std::int64_t moved = std::min(movable, std::int64_t(std::floor(credit_)));
      head.remaining -= moved;
      head.address += moved;
      credit_ -= double(moved);
      if (head.remaining > 0) {
        if (moved < movable) break;
        continue;
      }
      const std::uint64_t done = head.write ? cycle_ : cycle_ + latency_cycles_;
      done_cycle_[head.ticket] = done;
      last_done_ = std::max(last_done_, done);
      queue_.pop_front();
    }
  }

 private:
  struct Transfer {
    std::uint64_t ticket;
    std::int64_t remaining;
    bool write;
    std::int64_t address;
  };
  bool charge_penalties(const Transfer& head) {
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
  bool device_allows(const Transfer& head) {
    const auto block = [this](std::uint64_t cycles) {
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
  std::int64_t movable_in_row(const Transfer& head) const {
    std::int64_t movable = head.remaining;
    if (device_) {
      movable = std::min(movable, device_->row_bytes - head.address % device_->row_bytes);
    } else if (penalties_.any() && penalties_.row_bytes >= 1) {
      const double row_end = (std::floor(double(head.address) / penalties_.row_bytes) + 1) * penalties_.row_bytes;
      movable = std::min(movable, std::max<std::int64_t>(1, std::int64_t(std::ceil(row_end)) - head.address));
    }
    return movable;
  }

  double bytes_per_cycle_ = 1;
  std::uint64_t latency_cycles_ = 0;
  double credit_ = 0;
  std::uint64_t cycle_ = 0;
  std::deque<Transfer> queue_;
  std::vector<std::uint64_t> done_cycle_;
  std::uint64_t last_done_ = 0;
  timing::DramCounters counters_;
  std::optional<timing::DramDeviceCycles> device_;
  std::int64_t next_read_address_ = 0, next_write_address_ = std::int64_t(1) << 48;
  std::vector<std::int64_t> open_row_;
  bool writing_ = false;
  std::uint64_t blocked_until_ = 0, next_refresh_ = 0;
  timing::DramPenalties penalties_;
  std::int64_t last_row_[2] = {-1, -1};
};

// timing::MemoryModel's rules (start, data_ready, output_room, begin, weights_sent, step_retired, drained,
// clock_sdm, run), clocked every cycle.
class MemoryModel {
 public:
  DramChannel dram;
  using Wait = timing::MemoryModel::Wait;

  void start(const timing::MemoryPlan& plan, double dram_bytes_per_cycle, std::uint64_t dram_latency_cycles,
             std::optional<timing::DramDeviceCycles> dram_device, timing::DramPenalties dram_penalties) {
    if (!(dram_bytes_per_cycle > 0))
      throw std::invalid_argument("the hardware's DRAM bandwidth (dram.bytes_per_cycle) must be positive");
    std::int64_t largest = 0;
    for (const timing::MemoryEvent& event : plan.events) largest = std::max(largest, event.read_bytes);
    if (largest > plan.budget.stream_buffer_bytes) throw std::invalid_argument("the SDM is too small for this mapping");
    plan_ = &plan;
    dram.reset(dram_bytes_per_cycle, dram_latency_cycles, dram_device, dram_penalties);
    tickets_.assign(plan.events.size(), 0);
    has_read_.assign(plan.events.size(), false);
    output_used_ = outputs_in_place() ? plan.budget.output_buffer_bytes : 0;
    run_.resident = plan.budget.resident;
    run_.stream_buffer_bytes = plan.budget.stream_buffer_bytes;
    run_.output_buffer_bytes = plan.budget.output_buffer_bytes;
    note_peaks();
  }

  bool data_ready(std::size_t event) const {
    return event < next_issue_ && (!has_read_[event] || dram.complete(tickets_[event]));
  }
  bool output_room(std::size_t event) const {
    if (outputs_in_place()) return true;
    return output_used_ + plan_->events[event].staging_bytes <= plan_->budget.output_buffer_bytes;
  }
  void begin(std::size_t event) {
    const timing::MemoryEvent& e = plan_->events[event];
    if (e.weights) {
      run_.sdm.weight_reads += std::uint64_t(e.sdm_reads);
      if (e.slice != current_slice_) {
        for (auto it = slice_bytes_.begin(); it != slice_bytes_.end() && it->first < e.slice;)
          stream_used_ -= it->second, it = slice_bytes_.erase(it);
        current_slice_ = e.slice;
      }
    } else {
      run_.sdm.input_reads += std::uint64_t(e.sdm_reads);
      if (!outputs_in_place()) output_used_ += e.staging_bytes;
      note_peaks();
    }
  }
  void weights_sent(std::size_t event) { stream_used_ -= plan_->events[event].read_bytes; }
  void step_retired(std::size_t event) {
    const timing::MemoryEvent& e = plan_->events[event];
    run_.sdm.psum_reads += std::uint64_t(e.psum_reads);
    run_.sdm.output_writes += std::uint64_t(e.output_writes);
    stream_used_ -= e.hold == timing::SdmHold::UntilUsed ? e.read_bytes : e.read_bytes - e.held_bytes;
    if (!outputs_in_place()) output_used_ -= e.staging_bytes - e.write_bytes;
    if (e.write_bytes > 0) writes_.push_back({dram.request(e.write_bytes, /*write=*/true), e.write_bytes});
  }
  bool drained() const { return writes_.empty() && dram.idle(); }
  void count_stall(Wait reason) {
    ++run_.stall_cycles;
    ++(reason == Wait::Data ? run_.data_stall_cycles
                            : reason == Wait::OutputRoom ? run_.output_stall_cycles : run_.drain_cycles);
  }
  timing::MemoryRun run() const {
    timing::MemoryRun run = run_;
    run.dram = dram.counters();
    return run;
  }

  void clock_sdm() {
    while (!writes_.empty() && dram.complete(writes_.front().ticket)) {
      if (!outputs_in_place()) output_used_ -= writes_.front().bytes;
      writes_.pop_front();
    }
    while (next_issue_ < plan_->events.size()) {
      const timing::MemoryEvent& e = plan_->events[next_issue_];
      if (stream_used_ + e.read_bytes > plan_->budget.stream_buffer_bytes) break;
      if (e.read_bytes > 0) {
        tickets_[next_issue_] = dram.request(e.read_bytes, /*write=*/false);
        has_read_[next_issue_] = true;
        stream_used_ += e.read_bytes;
        if (e.hold == timing::SdmHold::UntilSliceEnds) slice_bytes_[e.slice] += e.held_bytes;
      }
      run_.sdm.fill_writes += std::uint64_t(e.fill_elements);
      ++next_issue_;
    }
    note_peaks();
  }

 private:
  bool outputs_in_place() const { return plan_->budget.psums_in_sdm || plan_->budget.blocked; }
  void note_peaks() {
    run_.sdm.peak_stream_bytes = std::max(run_.sdm.peak_stream_bytes, stream_used_);
    run_.sdm.peak_output_bytes = std::max(run_.sdm.peak_output_bytes, output_used_);
  }
  struct PendingWrite {
    std::uint64_t ticket;
    std::int64_t bytes;
  };
  const timing::MemoryPlan* plan_ = nullptr;
  std::vector<std::uint64_t> tickets_;
  std::vector<bool> has_read_;
  std::size_t next_issue_ = 0;
  std::int64_t stream_used_ = 0, output_used_ = 0;
  std::map<int, std::int64_t> slice_bytes_;
  int current_slice_ = 0;
  std::deque<PendingWrite> writes_;
  timing::MemoryRun run_;
};

}  // namespace maeri::test::reference
