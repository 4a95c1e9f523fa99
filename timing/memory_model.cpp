// The SDM / prefetcher behaviour (see memory_model.hpp and docs/cosim.md, "Memory system").
#include "timing/memory_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace maeri::timing {

MemoryRun sum_memory(const MemoryRun& a, const MemoryRun& b) {
  MemoryRun m = a;
  m.dram.bytes_read += b.dram.bytes_read;
  m.dram.bytes_written += b.dram.bytes_written;
  m.dram.read_requests += b.dram.read_requests;
  m.dram.write_requests += b.dram.write_requests;
  m.dram.busy_cycles += b.dram.busy_cycles;
  m.dram.row_misses += b.dram.row_misses;
  m.dram.refreshes += b.dram.refreshes;
  m.sdm.fill_writes += b.sdm.fill_writes;
  m.sdm.input_reads += b.sdm.input_reads;
  m.sdm.weight_reads += b.sdm.weight_reads;
  m.sdm.psum_reads += b.sdm.psum_reads;
  m.sdm.output_writes += b.sdm.output_writes;
  m.sdm.peak_stream_bytes = std::max(a.sdm.peak_stream_bytes, b.sdm.peak_stream_bytes);
  m.sdm.peak_output_bytes = std::max(a.sdm.peak_output_bytes, b.sdm.peak_output_bytes);
  m.stall_cycles += b.stall_cycles;
  m.data_stall_cycles += b.data_stall_cycles;
  m.output_stall_cycles += b.output_stall_cycles;
  m.drain_cycles += b.drain_cycles;
  m.resident = a.resident && b.resident;
  m.stream_buffer_bytes = std::max(a.stream_buffer_bytes, b.stream_buffer_bytes);
  m.output_buffer_bytes = std::max(a.output_buffer_bytes, b.output_buffer_bytes);
  return m;
}

void MemoryModel::start(MemoryPlan plan, double dram_bytes_per_cycle, std::uint64_t dram_latency_cycles,
                        std::optional<DramDeviceCycles> dram_device, DramPenalties dram_penalties) {
  owned_plan_ = std::move(plan);
  start_with(owned_plan_, dram_bytes_per_cycle, dram_latency_cycles, dram_device, dram_penalties);
}

void MemoryModel::start_with(const MemoryPlan& plan, double dram_bytes_per_cycle, std::uint64_t dram_latency_cycles,
                             std::optional<DramDeviceCycles> dram_device, DramPenalties dram_penalties) {
  if (!(dram_bytes_per_cycle > 0))
    throw std::invalid_argument("the hardware's DRAM bandwidth (dram.bytes_per_cycle) must be positive");
  const std::int64_t stream = plan.budget.stream_buffer_bytes;
  std::int64_t largest = 0;
  for (const MemoryEvent& event : plan.events) largest = std::max(largest, event.read_bytes);
  if (largest > stream)
    throw std::invalid_argument(fmt::format(
        "the SDM is too small for this mapping: one step or weight phase needs {} bytes from DRAM, but the stream "
        "buffer has {} bytes ({} bytes of SDM minus {} bytes of output buffer)",
        largest, stream, stream + plan.budget.output_buffer_bytes, plan.budget.output_buffer_bytes));
  plan_ = &plan;
  in_place_ = plan.budget.psums_in_sdm || plan.budget.blocked;
  dram.reset(dram_bytes_per_cycle, dram_latency_cycles, dram_device, dram_penalties);
  tickets_.assign(plan.events.size(), kNoRead);
  next_issue_ = 0;
  stream_used_ = 0;
  output_used_ = outputs_in_place() ? plan.budget.output_buffer_bytes : 0;
  int slices = 0;
  for (const MemoryEvent& event : plan.events) slices = std::max(slices, event.slice + 1);
  slice_bytes_.assign(std::size_t(slices), 0);
  first_held_ = 0;
  current_slice_ = 0;
  writes_.clear();
  run_ = MemoryRun{};
  run_.resident = plan.budget.resident;
  run_.stream_buffer_bytes = stream;
  run_.output_buffer_bytes = plan.budget.output_buffer_bytes;
  note_peaks();
}

void MemoryModel::begin(std::size_t event) {
  const MemoryEvent& e = plan_->events[event];
  if (e.weights) {
    run_.sdm.weight_reads += std::uint64_t(e.sdm_reads);
    if (e.slice != current_slice_) {  // a new channel slice: the previous slices' resident inputs are done
      for (; first_held_ < e.slice; ++first_held_)
        release_stream(slice_bytes_[std::size_t(first_held_)]), slice_bytes_[std::size_t(first_held_)] = 0;
      current_slice_ = e.slice;
    }
  } else {
    run_.sdm.input_reads += std::uint64_t(e.sdm_reads);
    if (!outputs_in_place()) output_used_ += e.staging_bytes;
    note_peaks();
  }
}

void MemoryModel::weights_sent(std::size_t event) { release_stream(plan_->events[event].read_bytes); }

void MemoryModel::step_retired(std::size_t event) {
  const MemoryEvent& e = plan_->events[event];
  run_.sdm.psum_reads += std::uint64_t(e.psum_reads);
  run_.sdm.output_writes += std::uint64_t(e.output_writes);
  release_stream(e.hold == SdmHold::UntilUsed ? e.read_bytes : e.read_bytes - e.held_bytes);
  if (!outputs_in_place()) output_used_ -= e.staging_bytes - e.write_bytes;  // unused VNs' slots
  if (e.write_bytes > 0) writes_.push_back({dram.request(e.write_bytes, /*write=*/true), e.write_bytes});
}

void MemoryModel::count_stalls(Wait reason, std::uint64_t cycles) {
  run_.stall_cycles += cycles;
  (reason == Wait::Data ? run_.data_stall_cycles
                        : reason == Wait::OutputRoom ? run_.output_stall_cycles : run_.drain_cycles) += cycles;
}

bool MemoryModel::drained() const { return writes_.empty() && dram.idle(); }

MemoryRun MemoryModel::run() const {
  MemoryRun run = run_;
  run.dram = dram.counters();
  return run;
}

void MemoryModel::clock_sdm() {
  // Writes that reached DRAM free their place in the output buffer (partial sums kept in the SDM hold none).
  while (!writes_.empty() && dram.complete(writes_.front().ticket)) {
    if (!outputs_in_place()) output_used_ -= writes_.front().bytes;
    writes_.pop_front();
  }
  // Prefetch in program order while the stream buffer has room.
  while (next_issue_ < plan_->events.size()) {
    const MemoryEvent& e = plan_->events[next_issue_];
    if (stream_used_ + e.read_bytes > plan_->budget.stream_buffer_bytes) break;
    if (e.read_bytes > 0) {
      tickets_[next_issue_] = dram.request(e.read_bytes, /*write=*/false);
      stream_used_ += e.read_bytes;
      if (e.hold == SdmHold::UntilSliceEnds) {
        slice_bytes_[std::size_t(e.slice)] += e.held_bytes;
        first_held_ = std::min(first_held_, e.slice);
      }
    }
    run_.sdm.fill_writes += std::uint64_t(e.fill_elements);
    ++next_issue_;
  }
  note_peaks();
}

std::uint64_t MemoryModel::quiet_clocks() {
  if (next_issue_ < plan_->events.size() &&
      stream_used_ + plan_->events[next_issue_].read_bytes <= plan_->budget.stream_buffer_bytes)
    return 0;  // the next clock issues a read
  const std::uint64_t completion = dram.next_completion();
  const std::uint64_t until_completion =
      completion == std::numeric_limits<std::uint64_t>::max() ? completion : completion - dram.cycle() - 1;
  return std::min(dram.quiet_clocks(), until_completion);
}

void MemoryModel::release_stream(std::int64_t bytes) { stream_used_ -= bytes; }

}  // namespace maeri::timing
