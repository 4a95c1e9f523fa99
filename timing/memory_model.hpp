// MemoryModel: the SDM (prefetch buffer) and its DRAM channel around the fabric, as plain C++ clocked by its owner
// (the co-simulation's SystemC MemorySystem, or the model's memory replay: one set of rules for both). A prefetcher
// walks the layer's MemoryPlan in program order and issues each event's DRAM read as soon as the stream buffer
// has room for it; the controller (LayerRunner) asks whether an event's data has arrived before playing it, tells
// the SDM when data has been used, and hands each retired step's results to the output buffer, which drains them
// to DRAM. The SDM counts its reads and writes and its peak occupancy; the DRAM channel counts bytes and requests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "timing/dram_channel.hpp"
#include "timing/memory_plan.hpp"

namespace maeri::timing {

struct SdmCounters {
  std::uint64_t fill_writes = 0;    // elements written by DRAM reads (inputs and weights)
  std::uint64_t input_reads = 0;    // input elements sent into the DN
  std::uint64_t weight_reads = 0;   // weight elements sent into the DN
  std::uint64_t psum_reads = 0;     // partial sums read for accumulation
  std::uint64_t output_writes = 0;  // results written
  std::int64_t peak_stream_bytes = 0, peak_output_bytes = 0;
};

struct MemoryRun {
  DramCounters dram;
  SdmCounters sdm;
  std::uint64_t stall_cycles = 0;  // cycles the controller waited, in total:
  std::uint64_t data_stall_cycles = 0;    //   for data from DRAM
  std::uint64_t output_stall_cycles = 0;  //   for room in the output buffer
  std::uint64_t drain_cycles = 0;         //   after the last result, for the last writes to reach DRAM
  bool resident = false;
  std::int64_t stream_buffer_bytes = 0, output_buffer_bytes = 0;
};

// The SDM and DRAM counts of two runs, summed (peaks and buffer sizes: the larger): pieces or shards of one layer.
MemoryRun sum_memory(const MemoryRun& a, const MemoryRun& b);

class MemoryModel {
 public:
  DramChannel dram;

  MemoryModel() = default;
  MemoryModel(const MemoryModel&) = delete;  // it points into itself (plan_)
  MemoryModel& operator=(const MemoryModel&) = delete;

  // Starts a layer. Throws std::invalid_argument when one event's data cannot fit the stream buffer, or the
  // hardware has no DRAM bandwidth.
  void start(MemoryPlan plan, double dram_bytes_per_cycle, std::uint64_t dram_latency_cycles,
             std::optional<DramDeviceCycles> dram_device = {}, DramPenalties dram_penalties = {});
  // The same following a plan the caller keeps alive until the run ends (no copy: the model's replay).
  void start_with(const MemoryPlan& plan, double dram_bytes_per_cycle, std::uint64_t dram_latency_cycles,
                  std::optional<DramDeviceCycles> dram_device = {}, DramPenalties dram_penalties = {});

  bool data_ready(std::size_t event) const {
    return event < next_issue_ && (tickets_[event] == kNoRead || dram.complete(tickets_[event]));
  }
  // The step's results fit the output buffer (always, when results accumulate in place).
  bool output_room(std::size_t event) const {
    return outputs_in_place() ||
           output_used_ + plan_->events[event].staging_bytes <= plan_->budget.output_buffer_bytes;
  }
  void begin(std::size_t event);              // the controller starts playing the event (counts SDM reads)
  void weights_sent(std::size_t event);       // the weights are in the multiplier switches
  void step_retired(std::size_t event);       // every result of the step has been collected
  bool drained() const;                       // every write has reached DRAM
  enum class Wait { Data, OutputRoom, Drain };
  void count_stall(Wait reason) { count_stalls(reason, 1); }
  void count_stalls(Wait reason, std::uint64_t cycles);
  MemoryRun run() const;

  // The prefetcher and write retirement, once per clock after the DRAM moved (the falling edge).
  void clock_sdm();

  // For an owner that jumps over cycles where nothing happens (the model's memory replay): how many of the next
  // clocks (DRAM, then SDM) change nothing but the DRAM's motion — no transfer finishes or completes, no write
  // retires, the prefetcher waits for room — and skip(n) for n of them (DramChannel::quiet_clocks, skip).
  std::uint64_t quiet_clocks();
  void skip(std::uint64_t clocks) { dram.skip(clocks); }

 private:
  void release_stream(std::int64_t bytes);
  // Results stay in the SDM's output buffer (no staging to free per step): the partial sums of a resident layer,
  // or the outputs of a two-level mapping's block.
  bool outputs_in_place() const { return in_place_; }
  void note_peaks() {
    run_.sdm.peak_stream_bytes = std::max(run_.sdm.peak_stream_bytes, stream_used_);
    run_.sdm.peak_output_bytes = std::max(run_.sdm.peak_output_bytes, output_used_);
  }

  struct PendingWrite {
    std::uint64_t ticket;
    std::int64_t bytes;
  };
  static constexpr std::uint64_t kNoRead = ~std::uint64_t(0);
  MemoryPlan owned_plan_;              // what start() was given
  const MemoryPlan* plan_ = &owned_plan_;  // what the run follows
  bool in_place_ = false;                  // outputs_in_place() of the plan
  std::vector<std::uint64_t> tickets_;  // per issued event: its read's ticket (kNoRead: it reads nothing)
  std::size_t next_issue_ = 0;
  std::int64_t stream_used_ = 0, output_used_ = 0;
  std::vector<std::int64_t> slice_bytes_;  // resident inputs held per channel slice (index: the slice)
  int first_held_ = 0;                     // every slice below it holds nothing
  int current_slice_ = 0;
  std::deque<PendingWrite> writes_;
  MemoryRun run_;
};

}  // namespace maeri::timing
