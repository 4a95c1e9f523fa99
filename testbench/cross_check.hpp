// Cross-check: the analytical model's prediction for a mapping against what the co-simulation did, metric by
// metric, with absolute and relative error: compute cycles against the run with ideal memory, total cycles and
// memory stalls against the run with the SDM/DRAM models, each activity count the RTL counters measure, the SDM
// and DRAM counts of the memory models, and the energy all these counts imply.
#pragma once

#include <string>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
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

// The rows as the aligned text table `maeri sim` and `maeri verify` print (metric, model, co-sim, error, error %).
std::string cross_check_table(const std::vector<CrossCheckRow>& rows);

}  // namespace maeri::testbench
