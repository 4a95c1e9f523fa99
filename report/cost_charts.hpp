// The report's two per-layer charts: where the cycles go (one stacked bar per operator: compute, memory stall,
// configuration, post-processing unit) and the DRAM bytes each fabric layer moved against its compulsory bytes.
#pragma once

#include <string>

#include "report/report_data.hpp"

namespace maeri::report {

// An inline <svg class="cycle-bars"> with one <g class="bar"> per operator that has cycles, its parts as
// <rect class="part compute|memory-stall|configuration|unit">; "" when no operator has cycles.
std::string cycle_bars_svg(const ReportData& data);

// An inline <svg class="dram-bars"> with a pair of bars (compulsory, moved) per fabric layer that has both numbers,
// and their ratio; "" when none has.
std::string dram_bars_svg(const ReportData& data);

}  // namespace maeri::report
