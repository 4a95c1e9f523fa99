// The CostReport contract: what the analytical model predicts for one (layer, hardware, tile) —
// cycles with their parts, utilisation, activity counts and the energy derived from them. The RTL
// counts the same activities with hardware counters, so model and RTL are compared count by count.
#pragma once

#include <cstdint>
#include <functional>

#include "contracts/activity_counts.hpp"
#include "contracts/tile.hpp"

namespace maeri::contracts {

struct CycleBreakdown {
  double streaming = 0;        // sum over control steps of max(DN cycles, RN cycles, 1)
  double weight_load = 0;      // sum over weight phases of ceil(unique weights / dn_bw)
  double phase_overlap = 0;    // <= 0: weight beats hidden behind fire spacing, first fires that need not wait
  double fill_drain = 0;       // pipeline fill per phase (DN + MS) and the final RN drain
  double control_overhead = 0; // per-step and per-phase overheads (calibrated)
  double reconfiguration = 0;  // writing the switch configuration words through the config port
  double memory_stall = 0;     // DRAM latency and any DRAM time not hidden behind compute
  double total = 0;
  // Cycles with an ideal memory: what the RTL takes when the SDM always has the data (cross-checked exactly).
  double compute() const { return total - memory_stall; }
};

struct EnergyBreakdown {  // picojoules
  double multiply = 0, add = 0, dn = 0, mn = 0, rn = 0, sdm = 0, dram = 0, total = 0;
};

struct CostReport {
  Mapping mapping;
  std::int64_t vn_size = 0;
  std::int64_t vn_count = 0;
  std::int64_t idle_ms = 0;          // num_ms - mapped multiplier switches
  std::int64_t reduction_folds = 0;  // ceil(R/T_R)·ceil(S/T_S)·ceil(C/T_C): partial sums per output
  std::int64_t dn_limited_steps = 0; // steps whose length is set by DN serialisation
  std::int64_t rn_limited_steps = 0; // steps whose length is set by RN output serialisation
  bool uses_forwarding = false;      // MN neighbour forwarding (stride 1, T_Y' = 1, T_S > 1)
  bool sdm_resident = false;         // partial sums + one channel slice + one phase's weights fit the SDM
  std::int64_t compulsory_dram_bytes = 0;  // every touched input and weight read once, every output written once
  double peak_utilisation = 0;       // mapped multiplier switches / num_ms
  double average_utilisation = 0;    // Eq. 3: mean over steps of active multiplier switches / num_ms
  double compute_efficiency = 0;     // MACs / (num_ms · total cycles)
  CycleBreakdown cycles;
  ActivityCounts counts;             // with the steps (fires), weight phases and configurations
  EnergyBreakdown energy_pj;
  double edp() const { return cycles.total * energy_pj.total; }
};

// Puts these DN/RN traversal counts into the report and recomputes its energy (the rest of the report does not
// depend on them).
void set_traffic(CostReport& report, std::int64_t dn_traversals, std::int64_t rn_traversals,
                 const Hardware& hardware);

// Energy of a set of activity counts under an energy table (shared with the RTL counter path).
EnergyBreakdown energy_of(const ActivityCounts& counts, const EnergyTable& table);

// How the exact DN/RN traversal counts of a mapping enter its report (set_traffic); codegen computes them from the
// VN placement and the ART words, and the search asks for them through this function (mapper::SearchOptions::exact).
using ExactTrafficRefinement = std::function<void(CostReport&)>;

// The refinement of a layer on a hardware (codegen::exact_traffic_for, which the mapper cannot call): with it each
// layer is ranked exactly as `maeri map` ranks it; without it, by the model's estimates.
using ExactTrafficFor = std::function<ExactTrafficRefinement(const Layer&, const Hardware&)>;

}  // namespace maeri::contracts
