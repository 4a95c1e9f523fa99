// The HTML report of `maeri map --report` (docs/report.md): each fabric layer with the mapping the network runs it
// with, costed in its role (a fused member's cost, not its standalone best), the model's numbers only; the unit's
// operators with the post-processing model's cycles; the fused groups; the network's totals.
#pragma once

#include "contracts/hardware.hpp"
#include "contracts/network.hpp"
#include "flow/workload_mapping.hpp"
#include "report/report_data.hpp"

namespace maeri::cli {

report::ReportData map_report(const contracts::Network& network, const contracts::Hardware& hardware,
                              const flow::WorkloadMapping& mapping);

}  // namespace maeri::cli
