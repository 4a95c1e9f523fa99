// FabricDriver: drives one Verilated maeri_top (any size) cycle by cycle through its ports: reset, config port
// writes, DN root beats with destination masks, fires, and collection of the tagged results. Every wait is bounded
// by a watchdog that throws (failing the test) with what it was waiting for instead of hanging.
// The driver owns the clock: the model is Verilated as plain C++ (rtl/CMakeLists.txt) and evaluated on each edge
// from here, and the blocks beside the fabric (memory system, post-processing unit: sim/clocked_block.hpp) are
// clocked on the same edges. No SystemC process needs the edges, and going through SystemC's scheduler and its
// sc_bv ports cost a fifth of the co-simulation (docs/rtl.md, "Simulation speed").
// It is on the simulation's hot path: ports are filled and read as words (port_words.hpp) through buffers kept
// from clock to clock.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "codegen/dn_elements.hpp"
#include "codegen/fabric_config.hpp"
#include "codegen/reduction_reference.hpp"
#include "contracts/config_bus.hpp"
#include "sim/activity_counters.hpp"
#include "sim/clocked_block.hpp"
#include "sim/port_words.hpp"
#include "util/integer_math.hpp"
#include "verilated.h"
#include "verilated_vcd_c.h"

namespace maeri::sim {

// One lane of a DN root beat: a weight or an operand value for a set of multiplier switches. (The layer runner
// makes these from codegen::DnElement, which has no weight flag and carries its SDM address instead.)
struct DnBeatElement {
  bool weight = false;
  int64_t value = 0;
  std::vector<int> destinations;
};

struct Result {
  int vn = 0;
  int64_t value = 0;
};

template <class Model, int NumMs, int DnBw, int RnBw, int DataW, int AccW, int ConfigBw>
class FabricDriver {
 public:
  static constexpr int kNumMs = NumMs, kDnBw = DnBw, kRnBw = RnBw, kDataW = DataW, kAccW = AccW, kConfigBw = ConfigBw;
  static constexpr int kAddressW = contracts::config_address_bits(contracts::configuration_words(NumMs, ConfigBw));
  static constexpr int kVnW = util::ceil_log2(NumMs);

  // trace_path: VCD file of every signal of the fabric ("" = the MAERI_TRACE environment variable, if set). The
  // trace opens at the first clock.
  explicit FabricDriver(uint64_t watchdog_cycles = 100000, const std::string& trace_path = "")
      : watchdog_cycles_(watchdog_cycles) {
    const char* from_environment = std::getenv("MAERI_TRACE");
    trace_path_ = !trace_path.empty() ? trace_path : (from_environment ? from_environment : "");
    // MAERI_FAST_FORWARD=0 evaluates every clock (to compare with, or to rule fast-forward out when debugging).
    const char* fast_forward = std::getenv("MAERI_FAST_FORWARD");
    fast_forward_ = !(fast_forward && std::string(fast_forward) == "0");
    if (!trace_path_.empty()) Verilated::traceEverOn(true);
  }

  // The trace is written to a temporary beside its path and renamed into place when the driver is destroyed, so
  // a run that fails or is killed never leaves a truncated VCD under the requested name.
  ~FabricDriver() {
    if (trace_) {
      trace_->close();
      std::rename(trace_temporary().c_str(), trace_path_.c_str());
    }
  }
  FabricDriver(const FabricDriver&) = delete;
  FabricDriver& operator=(const FabricDriver&) = delete;

  // A block beside the fabric clocked on the fabric's edges from now on (it must outlive the driver's clocks).
  void attach(ClockedBlock& block) { blocks_.push_back(&block); }

  // One clock: the rising edge, then the falling edge, each evaluated in the model and then in the attached
  // blocks; collects whatever the output lanes carry after it. A clock in which the fabric is at rest (see
  // at_rest()) is not evaluated in the model: the attached blocks still get both edges (the controller waiting
  // for DRAM, the post-processing unit working between layers), and the model's cycle counter is made up
  // arithmetically (counters()), so every count and cycle is the one the evaluated clocks would give.
  void tick() {
    if (at_rest()) {
      skip_clock();
      return;
    }
    if (!trace_path_.empty() && !trace_) open_trace();
    if (presenting_ || root_dirty_ || top_->cfg_write || top_->counters_clear || top_->rst) last_input_cycle_ = cycle_;
    if (root_dirty_ && !presenting_) clear_root();
    top_->clk = 1;
    top_->eval();
    for (ClockedBlock* block : blocks_) block->rising_edge();
    if (trace_) trace_->dump(2 * cycle_);
    top_->clk = 0;
    top_->eval();
    for (ClockedBlock* block : blocks_) block->falling_edge();
    if (trace_) trace_->dump(2 * cycle_ + 1);
    ++cycle_;
    capture_results();
    if (observer_) observer_();
  }

  // Called after every clock, once that clock's results are in `results` (the controller retires steps there).
  void set_tick_observer(std::function<void()> observer) { observer_ = std::move(observer); }

  // Whether clocks at rest are skipped in the model (on unless MAERI_FAST_FORWARD=0; off, every clock is
  // evaluated: the tests compare the two). Tracing evaluates every clock whatever this says.
  void set_fast_forward(bool enabled) { fast_forward_ = enabled; }
  // Clocks not evaluated in the model since the driver was made.
  uint64_t skipped_clocks() const { return skipped_clocks_total_; }

 private:
  // Cycles after the last input (a beat, its clearing, a configuration write, a counter clear, reset) until the
  // fabric has settled: the DN's LEVELS stages and traversal releases, the step activity decoded after a write,
  // the MN, RN and collector (busy covers a step; a weight beat is not a step).
  static constexpr uint64_t kInputSettleCycles = 2 * uint64_t(kVnW) + 8;
  // Cycles after the last fire until maeri_top's `since_fire` saturates (INTERVAL_W = vn_count_bits + 1 bits);
  // from then on dn_ready is the same whether or not the clocks in between were evaluated.
  static constexpr uint64_t kFireSettleCycles = uint64_t(1) << (contracts::vn_count_bits(NumMs) + 1);

  // At rest: no input is presented this clock and none was for long enough that every register of the fabric
  // holds a fixed point — except the cycle counter, which counts, and the ring pointer of the DN's split levels
  // and the RN's emit-row clock, which turn but address only stale entries until the next step writes them.
  // So skipping the clock changes no output and no count but `cycles`.
  bool at_rest() const {
    return fast_forward_ && trace_path_.empty() && !presenting_ && !root_dirty_ && !top_->cfg_write &&
           !top_->counters_clear && !top_->rst && !top_->busy && cycle_ - last_input_cycle_ > kInputSettleCycles &&
           (!fired_ || cycle_ - last_fire_cycle_ > kFireSettleCycles);
  }

  void skip_clock() {
    for (ClockedBlock* block : blocks_) block->rising_edge();
    for (ClockedBlock* block : blocks_) block->falling_edge();
    ++cycle_;
    ++skipped_cycles_;
    ++skipped_clocks_total_;
    if (observer_) observer_();
  }

  void capture_results() {
    if (!any_bit_set(top_->out_valid)) return;  // most cycles carry no result
    for (int lane = 0; lane < RnBw; ++lane) {
      if (get_bits(top_->out_valid, lane, 1) == 0) continue;
      Result result;
      result.vn = int(get_bits(top_->out_vn, lane * kVnW, kVnW));
      result.value = codegen::wrap_to_width(int64_t(get_bits(top_->out_value, lane * AccW, AccW)), AccW);
      results.push_back(result);
      result_cycles.push_back(cycle_);
    }
  }

 public:

  void reset() {
    skipped_cycles_ = 0;  // reset clears the counters
    fired_ = false;       // and saturates since_fire
    clear_root();
    top_->cfg_write = 0;
    top_->counters_clear = 0;
    top_->rst = 1;
    tick();
    tick();
    top_->rst = 0;
    tick();
    results.clear();
    result_cycles.clear();
  }

  // A full configuration: contracts::configuration_words(NumMs, ConfigBw) writes, one per cycle.
  void configure(const codegen::FabricConfig& config) {
    if (config.num_ms != NumMs) throw std::invalid_argument("configuration built for another fabric size");
    for (const codegen::ConfigWord& word : codegen::config_words(config, ConfigBw)) write_config(word.address, word.limbs);
    top_->cfg_write = 0;
  }

  // One config-port write: word `address`, bit j of the word in bit j % 64 of limbs[j / 64].
  void write_config(uint32_t address, const std::vector<uint64_t>& limbs) {
    std::vector<uint32_t> data(size_t(port_words(ConfigBw)), 0u);
    for (size_t w = 0; w < data.size(); ++w) {
      const uint64_t limb = w / 2 < limbs.size() ? limbs[w / 2] : 0;
      data[w] = uint32_t(limb >> (32 * (w % 2)));
    }
    if (ConfigBw % 32 != 0) data.back() &= (uint32_t(1) << (ConfigBw % 32)) - 1;
    top_->cfg_write = 1;
    load_words(top_->cfg_address, {address});
    load_words(top_->cfg_data, data);
    tick();
    top_->cfg_write = 0;
  }

  // Presents one root beat (at most DnBw elements). A beat with fire waits, with idle cycles, until the
  // fabric is ready to accept a fire.
  void beat(const std::vector<DnBeatElement>& elements, bool fire = false, bool forward = false) {
    beat(elements.data(), elements.data() + elements.size(), fire, forward);
  }
  void beat(const DnBeatElement* first, const DnBeatElement* last, bool fire = false, bool forward = false) {
    present(first, last, [](const DnBeatElement& element) { return element.weight; }, fire, forward);
  }
  // The layer runner's elements (weights or operands, as `weight` says), without copying them into DnBeatElements.
  void beat(const codegen::DnElement* first, const codegen::DnElement* last, bool weight, bool fire, bool forward) {
    present(first, last, [weight](const codegen::DnElement&) { return weight; }, fire, forward);
  }

 private:
  // Element: anything with `value` and `destinations`; is_weight(element) gives its flag.
  template <class Element, class IsWeight>
  void present(const Element* first, const Element* last, IsWeight is_weight, bool fire, bool forward) {
    const size_t count = size_t(last - first);
    if (int(count) > DnBw) throw std::invalid_argument("more elements than DN lanes in one beat");
    if (fire) wait_for([this] { return top_->dn_ready != 0; }, "dn_ready before a fire");
    for (std::vector<uint32_t>* words : {&valid_words_, &weight_words_, &data_words_})
      std::fill(words->begin(), words->end(), 0u);
    // The mask port (DnBw × NumMs bits, 16 384 at 256 MS) is written in place: the last beat's lanes cleared, this
    // beat's destination bits set; every other bit of it is already 0.
    clear_mask_lanes();
    for (size_t lane = 0; lane < count; ++lane) {
      const Element& element = first[lane];
      valid_words_[lane / 32] |= 1u << (lane % 32);
      if (is_weight(element)) weight_words_[lane / 32] |= 1u << (lane % 32);
      put_bits(data_words_, lane * DataW, DataW, uint64_t(element.value) & ((uint64_t(1) << DataW) - 1));
      for (int leaf : element.destinations) set_port_bit(top_->dn_mask, lane * size_t(NumMs) + size_t(leaf));
    }
    mask_lanes_ = count;
    load_words(top_->dn_valid, valid_words_);
    load_words(top_->dn_weight, weight_words_);
    load_words(top_->dn_data, data_words_);
    top_->dn_fire = fire;
    top_->dn_fire_forward = forward;
    presenting_ = true;  // the root is cleared lazily, before the next clock that presents no beat
    if (fire) {
      fired_ = true;  // accepted: dn_ready was high (waited for above)
      last_fire_cycle_ = cycle_;
    }
    tick();
    presenting_ = false;
    root_dirty_ = true;
  }

 public:

  // Sends elements in as many beats as needed, the last one carrying the fire.
  void step(const std::vector<DnBeatElement>& elements, bool forward = false) {
    size_t next = 0;
    do {
      const size_t end = std::min(elements.size(), next + size_t(DnBw));
      beat(elements.data() + next, elements.data() + end, end == elements.size(), forward);
      next = end;
    } while (next < elements.size());
  }

  // Unicast weights, DnBw per beat, no fire.
  void load_weights(const std::vector<int64_t>& weight_of_switch, const std::vector<bool>& active) {
    std::vector<DnBeatElement> elements;
    for (int i = 0; i < NumMs; ++i)
      if (active[size_t(i)]) elements.push_back({true, weight_of_switch[size_t(i)], {i}});
    for (size_t next = 0; next < elements.size(); next += size_t(DnBw)) {
      const size_t end = std::min(elements.size(), next + size_t(DnBw));
      beat(elements.data() + next, elements.data() + end);
    }
  }

  void idle(int cycles) {
    for (int c = 0; c < cycles; ++c) tick();
  }

  // Idles until no step is in flight.
  void drain() {
    wait_for([this] { return top_->busy == 0; }, "the fabric to become idle");
  }

  template <class Condition>
  void wait_for(Condition condition, const std::string& what) {
    const uint64_t start = cycle_;
    while (!condition()) {
      if (cycle_ - start > watchdog_cycles_)
        throw std::runtime_error("watchdog: no progress for " + std::to_string(watchdog_cycles_) +
                                 " cycles waiting for " + what);
      tick();
    }
  }

  // maeri_top's `counts` port: every counter of kActivityCounters, counter c in the c-th 64-bit slice.
  Counters counters() const {
    Counters totals;
    for (const ActivityCounterInfo& counter : kActivityCounters)
      totals.*counter.field = get_bits(top_->counts, int(counter.index) * kActivityCounterBits, kActivityCounterBits);
    totals.cycles += skipped_cycles_;  // the clocks at rest that were not evaluated (tick())
    return totals;
  }

  void clear_counters() {
    skipped_cycles_ = 0;
    top_->counters_clear = 1;
    tick();
    top_->counters_clear = 0;
  }

  uint64_t cycle() const { return cycle_; }
  uint64_t watchdog_cycles() const { return watchdog_cycles_; }
  // The sticky error flags.
  bool error_dn_overflow() const { return top_->error_dn_overflow != 0; }
  bool error_collector_overrun() const { return top_->error_collector_overrun != 0; }
  bool error_config() const { return top_->error_config != 0; }
  bool any_error() const { return error_dn_overflow() || error_collector_overrun() || error_config(); }
  bool dn_ready() const { return top_->dn_ready != 0; }
  bool busy() const { return top_->busy != 0; }

  std::vector<Result> results;
  std::vector<uint64_t> result_cycles;

 private:
  // Verilated scopes are named by their model; several drivers can live in one process (the benchmark runs every
  // size), so each gets its own name.
  static std::string unique_name() {
    static std::atomic<int> drivers{0};
    return "maeri_top_" + std::to_string(drivers++);
  }

  template <class Port>
  static void clear_port(Port& port) {
    if constexpr (std::is_integral_v<Port>) port = 0;
    else for (size_t w = 0; w < sizeof(Port) / 4; ++w) port[w] = 0;
  }

  // Clears the mask port's lanes the last beat used (the only bits of it that can be set).
  void clear_mask_lanes() {
    clear_low_words(top_->dn_mask, mask_lanes_ * size_t(NumMs));
    mask_lanes_ = 0;
  }

  void clear_root() {
    root_dirty_ = false;
    clear_port(top_->dn_valid);
    clear_port(top_->dn_weight);
    clear_port(top_->dn_data);
    clear_mask_lanes();
    top_->dn_fire = 0;
    top_->dn_fire_forward = 0;
  }

  void open_trace() {
    trace_ = std::make_unique<VerilatedVcdC>();
    top_->trace(trace_.get(), 99);
    trace_->set_time_unit("1ns");
    trace_->set_time_resolution("1ns");
    trace_->open(trace_temporary().c_str());
  }

  std::string trace_temporary() const { return trace_path_ + ".partial"; }

  std::unique_ptr<Model> top_ = std::make_unique<Model>(unique_name().c_str());
  uint64_t watchdog_cycles_;
  uint64_t cycle_ = 0;
  bool presenting_ = false, root_dirty_ = false;
  // Fast-forward over clocks at rest (tick()): the last clock that carried an input or a fire, and the clocks
  // skipped since the counters were last cleared (added to `cycles`) and in all.
  bool fast_forward_ = true, fired_ = false;
  uint64_t last_input_cycle_ = 0, last_fire_cycle_ = 0, skipped_cycles_ = 0, skipped_clocks_total_ = 0;
  // A root beat's ports, and their 32-bit words (bit j in word j / 32), reused from beat to beat.
  std::vector<uint32_t> valid_words_ = std::vector<uint32_t>(port_words(DnBw)),
                        weight_words_ = std::vector<uint32_t>(port_words(DnBw)),
                        data_words_ = std::vector<uint32_t>(port_words(DnBw * DataW));
  // Lanes of the mask port the last beat set (clear_mask_lanes); DnBw at first: the model's ports start unknown.
  size_t mask_lanes_ = DnBw;
  std::vector<ClockedBlock*> blocks_;
  std::string trace_path_;
  std::function<void()> observer_;
  std::unique_ptr<VerilatedVcdC> trace_;
};

}  // namespace maeri::sim
