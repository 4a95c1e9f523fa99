// Cross-check: the analytical model's prediction for a mapping against what the co-simulation did, metric by
// metric, with absolute and relative error: compute cycles against the run with ideal memory, total cycles and
// memory stalls against the run with the SDM/DRAM models, each activity count the RTL counters measure, the SDM
// and DRAM counts of the memory models, and the energy all these counts imply.
#pragma once

#include <string>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/post_processing_counts.hpp"
#include "sim/layer_runner.hpp"

namespace maeri::testbench {

enum class RowKind { ActivityCount, Cycles, Energy };

struct CrossCheckRow {
  std::string metric;
  double model = 0;
  double rtl = 0;
  RowKind kind = RowKind::ActivityCount;
  double error() const { return model - rtl; }
  double error_percent() const;  // relative to the RTL; 0 when both are 0, 100 when only the RTL's is 0
  bool relative_error_defined() const { return rtl != 0 || model == 0; }
  std::string error_percent_text() const;  // "1.23%", or "n/a" when the RTL's value is 0 and the model's not
};

// The runs of one (layer, mapping): either may be absent, but not both.
struct CoSimRuns {
  const sim::RtlLayerRun* ideal_memory = nullptr;
  const sim::RtlLayerRun* with_memory = nullptr;  // must carry its MemoryRun
};

inline const char* kComputeCycles = "cycles (compute)";
inline const char* kTotalCycles = "cycles (with DRAM)";
inline const char* kMemoryStallCycles = "memory stall cycles";

std::vector<CrossCheckRow> cross_check(const contracts::CostReport& model, const CoSimRuns& runs,
                                       const contracts::Hardware& hardware);

// One post-operator's rows (the post-processing unit beside the fabric): the model's cycles, counts and energy
// (mapper/model/post_processing_model.hpp) against what the co-simulated unit counted (sim/post_processing_unit.hpp);
// the same rows as a layer's, so cross_check_table prints them. `model` and `unit` are exact when they agree.
std::vector<CrossCheckRow> post_processing_cross_check(const contracts::PostProcessingCounts& model,
                                                       const contracts::PostProcessingCounts& unit,
                                                       const contracts::Hardware& hardware);

// The rows as the aligned text table `maeri sim` and `maeri verify` print (metric, model, co-sim, error, error %).
std::string cross_check_table(const std::vector<CrossCheckRow>& rows);

}  // namespace maeri::testbench
