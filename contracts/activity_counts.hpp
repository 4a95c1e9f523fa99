// The activity counts: one list (MAERI_ACTIVITY_COUNTS) of every count the analytical model reports, from which
// the model's ActivityCounts, the functional model's counters (codegen/functional_model.hpp), the RTL counters'
// C++ side (sim/activity_counters.hpp), the report's JSON (mapper/model/report_json.cpp), the model-vs-RTL
// cross-check rows (testbench/cross_check.cpp) and the Python module's dicts are all made. A count has one name in
// all of them; adding one is one line here (and, for a fabric count, the counter in the RTL).
#pragma once

#include <cstdint>
#include <stdexcept>

namespace maeri::contracts {

// X(name, label, meaning). `label` is how the tables `maeri run`, `sim` and `verify` print (and verify's JSON
// names) the count. The counts are in three groups by who counts them; docs/model.md gives the model's formulas.

// Counted by the RTL, the functional model and the analytical model, in the order of the RTL enum
// maeri_config_pkg::activity_counter_e after COUNT_CYCLES (item COUNT_<NAME>); docs/rtl.md defines each exactly.
#define MAERI_FABRIC_COUNTS(X)                                                                                   \
  X(fires, "steps (fires)", "steps: fires reaching the multiplier switches")                                     \
  X(multiplications, "multiplications", "active multiplier switches x fires (every configured VN, used or not)") \
  X(additions, "RN additions", "two-input additions of real operands in adder switches (VN of size s: s-1)")     \
  X(dn_traversals, "DN traversals", "element-lane arrivals at DN switches")                                      \
  X(rn_traversals, "RN traversals", "values entering an adder switch (from a child that sends, or over a link)") \
  X(mn_forwards, "MN forwards", "multiplications whose operand came over a forwarding link")                     \
  X(results, "RN outputs", "results on the output lanes (every configured VN, every step)")

// Counted by the functional model and the analytical model (the RTL has no counter for them).
#define MAERI_PROGRAM_COUNTS(X)                                                                                  \
  X(configurations, "configurations", "fabric configurations written (each time the phase shape changes)")       \
  X(weight_phases, "weight phases", "(reduction fold, filter tile) pairs: the weights change between them")      \
  X(vn_results, "VN results", "results that belong to an output, collected (= outputs x reduction folds)")       \
  X(accumulation_additions, "accumulations", "partial sums added to earlier partial sums")

// Counted by the analytical model only (the SDM and DRAM counts are cross-checked against the memory models).
#define MAERI_MODEL_COUNTS(X)                                                                                    \
  X(useful_multiplications, "useful multiplications", "multiplications that belong to an output (= MACs)")       \
  X(mn_operand_loads, "MN operand loads", "operands latched into multiplier switches from the DN")               \
  X(mn_weight_loads, "MN weight loads", "weights latched into multiplier switches (all replicas)")               \
  X(sdm_input_reads, "SDM input reads", "input elements read from the SDM into the DN")                          \
  X(sdm_weight_reads, "SDM weight reads", "weight elements read from the SDM into the DN")                       \
  X(sdm_psum_reads, "SDM psum reads", "earlier partial sums read back for accumulation")                         \
  X(sdm_output_writes, "SDM output writes", "VN results (partial or final sums) written to the SDM")             \
  X(sdm_fill_writes, "SDM fill writes", "elements written into the SDM from DRAM")                               \
  X(dram_bytes, "DRAM bytes", "bytes moved between DRAM and the SDM")

#define MAERI_ACTIVITY_COUNTS(X) MAERI_FABRIC_COUNTS(X) MAERI_PROGRAM_COUNTS(X) MAERI_MODEL_COUNTS(X)

// What the analytical model predicts for a mapping, one field per count.
struct ActivityCounts {
#define MAERI_COUNT_FIELD(name, label, meaning) std::int64_t name = 0;
  MAERI_ACTIVITY_COUNTS(MAERI_COUNT_FIELD)
#undef MAERI_COUNT_FIELD
};

struct ActivityCountInfo {
  const char* name;   // the field, the JSON key and the Python key
  const char* label;  // in printed tables
  const char* meaning;
  std::int64_t ActivityCounts::*field;
};

// Every count, in the order of MAERI_ACTIVITY_COUNTS.
inline constexpr ActivityCountInfo kActivityCounts[] = {
#define MAERI_COUNT_INFO(name, label, meaning) {#name, label, meaning, &ActivityCounts::name},
    MAERI_ACTIVITY_COUNTS(MAERI_COUNT_INFO)
#undef MAERI_COUNT_INFO
};

// The row of kActivityCounts that describes `field`.
inline const ActivityCountInfo& activity_count(std::int64_t ActivityCounts::*field) {
  for (const ActivityCountInfo& count : kActivityCounts)
    if (count.field == field) return count;
  throw std::logic_error("activity_count: not a field of ActivityCounts");
}

}  // namespace maeri::contracts
