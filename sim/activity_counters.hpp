// The activity counters of the Verilated fabric on the C++ side: one list (MAERI_ACTIVITY_COUNTERS) from which the
// index enum, the totals struct and the table of names and meanings are made. The RTL lists the same counters as
// maeri_config_pkg::activity_counter_e (rtl/maeri_config_pkg.sv), counter c being element c of maeri_top's
// `counts` port; tests/unit/test_activity_counters.cpp parses that enum and checks it against kActivityCounters.
// Plain C++ (no SystemC), so tools and unit tests can use the table without a Verilated model.
#pragma once

#include <cstddef>
#include <cstdint>

#include "contracts/activity_counts.hpp"

namespace maeri::sim {

// X(name, label, meaning), in the order of the RTL enum (item COUNT_<NAME> has the value of the row's position): the
// clock, then the fabric counts of contracts/activity_counts.hpp, which the model and the functional model count
// under the same names. What exactly each counter counts is defined in docs/rtl.md.
#define MAERI_ACTIVITY_COUNTERS(X) X(cycles, "cycles", "clock cycles") MAERI_FABRIC_COUNTS(X)

// Index of a counter in maeri_top's `counts` port.
enum class ActivityCounter : int {
#define MAERI_COUNTER_INDEX(name, label, meaning) name,
  MAERI_ACTIVITY_COUNTERS(MAERI_COUNTER_INDEX)
#undef MAERI_COUNTER_INDEX
};

// The totals the fabric has counted since reset or counters_clear, one field per counter.
struct Counters {
#define MAERI_COUNTER_FIELD(name, label, meaning) std::uint64_t name = 0;
  MAERI_ACTIVITY_COUNTERS(MAERI_COUNTER_FIELD)
#undef MAERI_COUNTER_FIELD
};

struct ActivityCounterInfo {
  ActivityCounter index;
  const char* name;                 // lower case; the RTL enum item is COUNT_ followed by the name in upper case
  const char* meaning;
  std::uint64_t Counters::*field;   // where Counters holds its total
};

inline constexpr ActivityCounterInfo kActivityCounters[] = {
#define MAERI_COUNTER_INFO(name, label, meaning) {ActivityCounter::name, #name, meaning, &Counters::name},
    MAERI_ACTIVITY_COUNTERS(MAERI_COUNTER_INFO)
#undef MAERI_COUNTER_INFO
};

inline constexpr int kNumActivityCounters = int(sizeof(kActivityCounters) / sizeof(kActivityCounters[0]));

// Width of one counter in the `counts` port: maeri_top's COUNTER_W, which the Verilated models keep at its
// default.
inline constexpr int kActivityCounterBits = 64;

}  // namespace maeri::sim
