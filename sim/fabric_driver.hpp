// FabricDriver: drives one Verilated maeri_top (any size) cycle by cycle through its SystemC ports: reset, config
// port writes, DN root beats with destination masks, fires, and collection of the tagged results. Every wait
// is bounded by a watchdog that throws (failing the test) with what it was waiting for instead of hanging.
// It is on the simulation's hot path: ports are filled and read as words (port_words.hpp) through buffers kept
// from clock to clock.
#pragma once

#include <systemc>

#include <algorithm>
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
#include "sim/activity_counters.hpp"
#include "sim/port_words.hpp"
#include "util/integer_math.hpp"
#include "verilated_vcd_sc.h"

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
  // Verilator's SystemC ports: bool for one bit, sc_bv for more (--pins-bv 2). One-bit ports occur for dn_bw or
  // rn_bw 1 (valid, weight flags), a one-word config bus (address) and 2 MS with rn_bw 1 (VN id).
  template <int W>
  using Port = std::conditional_t<W == 1, bool, sc_dt::sc_bv<W>>;
  template <int W>
  static Port<W> to_port(const sc_dt::sc_bv<W>& bits) {
    if constexpr (W == 1) return bits[0].to_bool(); else return bits;
  }
  static constexpr int kVnW = util::ceil_log2(NumMs);
  // maeri_top's `counts` port: every counter of kActivityCounters, counter c in the c-th 64-bit slice.
  using CountsBits = sc_dt::sc_bv<kNumActivityCounters * kActivityCounterBits>;
  static const char* unique(const char* base) { return sc_core::sc_gen_unique_name(base); }

  // trace_path: VCD file of every signal of the fabric ("" = the MAERI_TRACE environment variable, if set). The
  // trace opens at the first clock, so other modules (the memory system) can still join the design until then.
  explicit FabricDriver(uint64_t watchdog_cycles = 100000, const std::string& trace_path = "")
      : watchdog_cycles_(watchdog_cycles) {
    const char* from_environment = std::getenv("MAERI_TRACE");
    trace_path_ = !trace_path.empty() ? trace_path : (from_environment ? from_environment : "");
    if (!trace_path_.empty()) Verilated::traceEverOn(true);
    top.clk(clk);
    top.rst(rst);
    top.cfg_write(cfg_write);
    top.cfg_address(cfg_address);
    top.cfg_data(cfg_data);
    top.dn_valid(dn_valid);
    top.dn_weight(dn_weight);
    top.dn_data(dn_data);
    top.dn_mask(dn_mask);
    top.dn_fire(dn_fire);
    top.dn_fire_forward(dn_fire_forward);
    top.dn_ready(dn_ready);
    top.out_valid(out_valid);
    top.out_vn(out_vn);
    top.out_value(out_value);
    top.busy(busy);
    top.error_dn_overflow(error_dn_overflow);
    top.error_collector_overrun(error_collector_overrun);
    top.error_config(error_config);
    top.counters_clear(counters_clear);
    top.counts(counts);
  }

  // The trace is written to a temporary beside its path and renamed into place when the driver is destroyed, so
  // a run that fails or is killed never leaves a truncated VCD under the requested name.
  ~FabricDriver() {
    if (!trace_) return;
    trace_->close();
    std::rename(trace_temporary().c_str(), trace_path_.c_str());
  }

  // One rising edge; collects whatever the output lanes carry after it.
  void tick() {
    if (!trace_path_.empty() && !trace_) open_trace();
    if (root_dirty_ && !presenting_) clear_root();
    clk.write(true);
    sc_core::sc_start(half_period_);
    clk.write(false);
    sc_core::sc_start(half_period_);
    ++cycle_;
    capture_results();
    if (observer_) observer_();
  }

  // Called after every clock, once that clock's results are in `results` (the controller retires steps there).
  void set_tick_observer(std::function<void()> observer) { observer_ = std::move(observer); }

 private:
  // The port helpers of port_words.hpp, also for one-bit ports (bool).
  template <int W>
  static uint64_t port_bits(const Port<W>& port, int lsb, int width) {
    if constexpr (W == 1) return port ? 1 : 0; else return get_bits(port, lsb, width);
  }
  template <int W>
  static bool any_bit(const Port<W>& port) {
    if constexpr (W == 1) return port; else return any_bit_set(port);
  }
  template <int W>
  static void load_port(Port<W>& port, const std::vector<uint32_t>& words) {
    if constexpr (W == 1) port = (words[0] & 1) != 0; else load_words(port, words);
  }

  void capture_results() {
    const Port<RnBw>& valid = out_valid.read();
    if (!any_bit<RnBw>(valid)) return;  // most cycles carry no result
    const Port<RnBw * kVnW>& vn = out_vn.read();
    const Port<RnBw * AccW>& value = out_value.read();
    for (int lane = 0; lane < RnBw; ++lane) {
      if (port_bits<RnBw>(valid, lane, 1) == 0) continue;
      Result result;
      result.vn = int(port_bits<RnBw * kVnW>(vn, lane * kVnW, kVnW));
      result.value = codegen::wrap_to_width(int64_t(port_bits<RnBw * AccW>(value, lane * AccW, AccW)), AccW);
      results.push_back(result);
      result_cycles.push_back(cycle_);
    }
  }

 public:

  void reset() {
    clear_root();
    cfg_write.write(false);
    counters_clear.write(false);
    rst.write(true);
    tick();
    tick();
    rst.write(false);
    tick();
    results.clear();
    result_cycles.clear();
  }

  // A full configuration: contracts::configuration_words(NumMs, ConfigBw) writes, one per cycle.
  void configure(const codegen::FabricConfig& config) {
    if (config.num_ms != NumMs) throw std::invalid_argument("configuration built for another fabric size");
    for (const codegen::ConfigWord& word : codegen::config_words(config, ConfigBw)) write_config(word.address, word.limbs);
    cfg_write.write(false);
  }

  // One config-port write: word `address`, bit j of the word in bit j % 64 of limbs[j / 64].
  void write_config(uint32_t address, const std::vector<uint64_t>& limbs) {
    sc_dt::sc_bv<ConfigBw> data;
    for (int w = 0; w < port_words(ConfigBw); ++w) {
      const uint64_t limb = size_t(w / 2) < limbs.size() ? limbs[size_t(w / 2)] : 0;
      data.set_word(w, uint32_t(limb >> (32 * (w % 2))));
    }
    cfg_write.write(true);
    cfg_address.write(to_port<kAddressW>(sc_dt::sc_bv<kAddressW>(address)));
    cfg_data.write(data);
    tick();
    cfg_write.write(false);
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
    if (fire) wait_for([this] { return dn_ready.read(); }, "dn_ready before a fire");
    for (std::vector<uint32_t>* words : {&valid_words_, &weight_words_, &data_words_, &mask_words_})
      std::fill(words->begin(), words->end(), 0u);
    for (size_t lane = 0; lane < count; ++lane) {
      const Element& element = first[lane];
      valid_words_[lane / 32] |= 1u << (lane % 32);
      if (is_weight(element)) weight_words_[lane / 32] |= 1u << (lane % 32);
      put_bits(data_words_, lane * DataW, DataW, uint64_t(element.value) & ((uint64_t(1) << DataW) - 1));
      for (int leaf : element.destinations) {
        const size_t bit = lane * size_t(NumMs) + size_t(leaf);
        mask_words_[bit / 32] |= 1u << (bit % 32);
      }
    }
    load_port<DnBw>(valid_, valid_words_);
    load_port<DnBw>(weight_, weight_words_);
    load_words(data_, data_words_);
    load_words(mask_, mask_words_);
    dn_valid.write(valid_);
    dn_weight.write(weight_);
    dn_data.write(data_);
    dn_mask.write(mask_);
    dn_fire.write(fire);
    dn_fire_forward.write(forward);
    presenting_ = true;  // the root is cleared lazily, before the next clock that presents no beat
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
    wait_for([this] { return !busy.read(); }, "the fabric to become idle");
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

  Counters counters() const {
    const CountsBits all = counts.read();
    Counters totals;
    for (const ActivityCounterInfo& counter : kActivityCounters) {
      const int lsb = int(counter.index) * kActivityCounterBits;
      totals.*counter.field = all.range(lsb + kActivityCounterBits - 1, lsb).to_uint64();
    }
    return totals;
  }

  void clear_counters() {
    counters_clear.write(true);
    tick();
    counters_clear.write(false);
  }

  uint64_t cycle() const { return cycle_; }
  uint64_t watchdog_cycles() const { return watchdog_cycles_; }
  bool any_error() const {
    return error_dn_overflow.read() || error_collector_overrun.read() || error_config.read();
  }

  std::vector<Result> results;
  std::vector<uint64_t> result_cycles;

  // Unique names so that several harnesses can live in one process (the benchmark runs two sizes).
  sc_core::sc_signal<bool> clk{unique("clk")};
  sc_core::sc_signal<bool> rst{unique("rst")};
  sc_core::sc_signal<bool> cfg_write{unique("cfg_write")};
  sc_core::sc_signal<bool> dn_fire{unique("dn_fire")};
  sc_core::sc_signal<bool> dn_fire_forward{unique("dn_fire_forward")};
  sc_core::sc_signal<bool> dn_ready{unique("dn_ready")};
  sc_core::sc_signal<bool> busy{unique("busy")};
  sc_core::sc_signal<bool> error_dn_overflow{unique("error_dn_overflow")};
  sc_core::sc_signal<bool> error_collector_overrun{unique("error_collector_overrun")};
  sc_core::sc_signal<bool> error_config{unique("error_config")};
  sc_core::sc_signal<bool> counters_clear{unique("counters_clear")};
  sc_core::sc_signal<Port<kAddressW>> cfg_address{unique("cfg_address")};
  sc_core::sc_signal<sc_dt::sc_bv<ConfigBw>> cfg_data{unique("cfg_data")};
  sc_core::sc_signal<Port<DnBw>> dn_valid{unique("dn_valid")};
  sc_core::sc_signal<Port<DnBw>> dn_weight{unique("dn_weight")};
  sc_core::sc_signal<sc_dt::sc_bv<DnBw * DataW>> dn_data{unique("dn_data")};
  sc_core::sc_signal<sc_dt::sc_bv<DnBw * NumMs>> dn_mask{unique("dn_mask")};
  sc_core::sc_signal<Port<RnBw>> out_valid{unique("out_valid")};
  sc_core::sc_signal<Port<RnBw * kVnW>> out_vn{unique("out_vn")};
  sc_core::sc_signal<sc_dt::sc_bv<RnBw * AccW>> out_value{unique("out_value")};
  sc_core::sc_signal<CountsBits> counts{unique("counts")};  // counter c at bits [64c+63 : 64c]
  Model top{unique("maeri_top")};

 private:
  void clear_root() {
    root_dirty_ = false;
    dn_valid.write(Port<DnBw>());
    dn_weight.write(Port<DnBw>());
    dn_data.write(zero_data_);
    dn_mask.write(zero_mask_);
    dn_fire.write(false);
    dn_fire_forward.write(false);
  }

  void open_trace() {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate before attaching the trace
    trace_ = std::make_unique<VerilatedVcdSc>();
    top.trace(trace_.get(), 99);
    trace_->open(trace_temporary().c_str());
  }

  std::string trace_temporary() const { return trace_path_ + ".partial"; }

  uint64_t watchdog_cycles_;
  uint64_t cycle_ = 0;
  bool presenting_ = false, root_dirty_ = false;
  const sc_core::sc_time half_period_{1, sc_core::SC_NS};
  // A root beat's ports, and their 32-bit words (bit j in word j / 32), reused from beat to beat.
  std::vector<uint32_t> valid_words_ = std::vector<uint32_t>(port_words(DnBw)),
                        weight_words_ = std::vector<uint32_t>(port_words(DnBw)),
                        data_words_ = std::vector<uint32_t>(port_words(DnBw * DataW)),
                        mask_words_ = std::vector<uint32_t>(port_words(DnBw * NumMs));
  Port<DnBw> valid_, weight_;
  sc_dt::sc_bv<DnBw * DataW> data_;
  sc_dt::sc_bv<DnBw * NumMs> mask_;
  const sc_dt::sc_bv<DnBw * DataW> zero_data_;
  const sc_dt::sc_bv<DnBw * NumMs> zero_mask_;
  std::string trace_path_;
  std::function<void()> observer_;
  std::unique_ptr<VerilatedVcdSc> trace_;
};

}  // namespace maeri::sim
