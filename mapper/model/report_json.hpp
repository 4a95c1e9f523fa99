// JSON and CSV forms of CostReports, shared by `maeri map` and the later verify/calibrate reports.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "contracts/cost_report.hpp"

namespace maeri::mapper {

nlohmann::json to_json(const contracts::CostReport& report);
// The inverse of to_json for the fields it writes (others stay default), so that to_json(from_json(j)) == j: how a
// report crosses a process or MPI boundary (`maeri sweep` under mpirun). Throws nlohmann::json::exception on a
// document that to_json did not write.
contracts::CostReport cost_report_from_json(const nlohmann::json& json);
std::string csv_header();  // columns of csv_row, without the leading context columns
std::string csv_row(const contracts::CostReport& report);

}  // namespace maeri::mapper
