// The HTML report of a chained run (`maeri run --report`, `maeri verify --chain --report`; docs/report.md): the
// run's results and its plan as report::ReportData — each operator's model-vs-RTL rows and verdict, each fabric
// layer's planned mapping and fused role, where its cycles went, its DRAM bytes against compulsory.
#pragma once

#include <string>

#include "contracts/network_plan.hpp"
#include "report/report_data.hpp"
#include "testbench/network_run.hpp"

namespace maeri::cli {

report::ReportData run_report(const std::string& title, const contracts::Network& network,
                              const contracts::NetworkPlan& plan, const testbench::NetworkRunResult& result);

}  // namespace maeri::cli
