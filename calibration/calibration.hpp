// Calibration runs: choosing (layer, mapping) cases that span good and poor mappings, co-simulating each with
// ideal memory and with the SDM/DRAM models, and measuring the analytical model against them — cycle errors
// (MAPE, max) for any set of model parameters, and how a parameter change moves the mapper's ranking.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/network.hpp"
#include "calibration/model_fit.hpp"
#include "contracts/tile.hpp"
#include "sim/fabric_session.hpp"

namespace maeri::calibration {

struct CalibrationCase {
  contracts::Layer layer;
  contracts::Mapping mapping;
  contracts::CostReport model;  // the analytical model's report under the hardware file being calibrated
  // The model's cycles with DRAM under a hardware's parameters: the memory replay of the case's program (kept with
  // its memory plan, which the model parameters do not change).
  std::function<double(const contracts::Hardware&)> predict_total;
  std::string origin;      // "top N" or "spread"
  bool holdout = false;
  bool bit_exact = false;
  double rtl_compute_cycles = 0;  // ideal memory
  double rtl_total_cycles = 0;    // with the SDM/DRAM models
  int count_metrics = 0;          // activity-count cross-check rows compared
  double count_max_error_percent = 0;
};

// Co-simulates one case twice (ideal memory, then SDM/DRAM), checks the outputs and compares every count.
CalibrationCase co_simulate_case(sim::FabricSession& fabric, const contracts::Layer& layer, const contracts::Mapping& tile,
                                 const contracts::Hardware& hardware, std::uint64_t seed);

// Which cases a calibration co-simulates: per layer the best `top` and `spread` further mappings
// (flow::calibration_mappings), the layers in `holdout` kept out of the fit (a single-layer workload alternates its cases).
// Under a budget the cases are taken in rounds over the layers — every layer's best mapping first, then every
// layer's second, … — skipping a case whose predicted cycles exceed what is left, so each layer, large or small,
// gets its cases in turn; they then run layer by layer.
struct CalibrationPlan {
  int top = 3;
  int spread = 3;
  double max_cycles = 200000;
  std::uint64_t seed = 1;
  std::set<std::string> holdout;
  // Co-simulated cycles all cases may take together, as the model predicts them (compute cycles plus cycles with
  // DRAM: each case runs twice); 0: no budget. A budget makes a real-size workload's calibration as long as the user
  // can wait, deterministically (a budget in seconds would choose different cases on a busy machine).
  double budget_cycles = 0;
};

// One case the plan asks for, before it runs: the layer (index into the network's layers), its mapping and why it
// was chosen.
struct PlannedCase {
  std::size_t layer = 0;
  contracts::Mapping mapping;
  std::string origin;  // "top N" or "spread"
  bool holdout = false;
  std::uint64_t seed = 1;  // of the case's tensors
};

// The cases of the plan, in the order they run (layer by layer), chosen by the mapper (no co-simulation): their
// number is known before the first case runs, for a progress line.
std::vector<PlannedCase> planned_cases(const contracts::Network& network, const contracts::Hardware& hardware,
                                       const CalibrationPlan& plan);

// Co-simulates the planned cases, calling `progress` after each with the seconds it took and how many are done.
using CaseDone = std::function<void(const CalibrationCase&, double seconds, std::size_t done)>;
std::vector<CalibrationCase> co_simulate_cases(sim::FabricSession& fabric, const contracts::Network& network,
                                               const contracts::Hardware& hardware,
                                               const std::vector<PlannedCase>& planned, const CaseDone& progress);

// The fitting cases as samples of their cycles with the SDM/DRAM models.
std::vector<calibration::FitSample> fit_samples(const std::vector<CalibrationCase>& cases);

struct CycleError {
  double mape_percent = 0, max_percent = 0;
  int cases = 0;
};
enum class CycleMetric { Total, Compute };
// Which cases an error covers: the fitting or the held-out ones, and of those all or only the memory-bound ones.
struct CaseSubset {
  bool holdout = false;
  bool memory_bound_only = false;
};
// A case the memory system slows: on the RTL its cycles with the SDM/DRAM models are at least
// kMemoryBoundRatio × its ideal-memory cycles (the cases where the DRAM device and its model matter).
inline constexpr double kMemoryBoundRatio = 1.1;
bool is_memory_bound(const CalibrationCase& c);
// The model's error under `hardware.model` on the cases of `subset`.
CycleError cycle_error(const std::vector<CalibrationCase>& cases, const contracts::Hardware& hardware,
                       CaseSubset subset, CycleMetric metric);

struct RankChange {
  int k = 0;
  double top_k_overlap = 0;  // |best k before ∩ best k after| / k
  double spearman = 1;       // rank correlation of the two models' cycles over the union of both top-k sets
};
RankChange rank_change(const contracts::Layer& layer, const contracts::Hardware& before, const contracts::Hardware& after,
                       int k);

// Per case: layer, tile, origin, split, co-simulated and predicted cycles before/after, errors.
std::string calibration_csv(const std::vector<CalibrationCase>& cases, const contracts::Hardware& before,
                            const contracts::Hardware& after);

}  // namespace maeri::calibration
