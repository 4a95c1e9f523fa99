// Cross-check: the analytical model's prediction for a mapping against what the RTL did, metric by metric
// (cycles and each activity count the RTL counters measure, and the energy they imply), with absolute and
// relative error. Until the DRAM model joins the co-simulation, cycles compare the model's compute cycles
// (total minus the DRAM stall) with the RTL's.
#pragma once

#include <string>
#include <vector>

#include "mapper/cost_report.hpp"
#include "mapper/hardware.hpp"
#include "sim/layer_runner.hpp"

namespace maeri::testbench {

struct CrossCheckRow {
  std::string metric;
  double model = 0;
  double rtl = 0;
  double error() const { return model - rtl; }
  double error_percent() const;  // relative to the RTL; 0 when both are 0
};

std::vector<CrossCheckRow> cross_check(const mapper::CostReport& model, const sim::RtlLayerRun& rtl,
                                       const mapper::Hardware& hardware);

}  // namespace maeri::testbench
