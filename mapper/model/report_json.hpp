// JSON and CSV forms of CostReports, shared by `maeri map` and the later verify/calibrate reports.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "contracts/cost_report.hpp"

namespace maeri::mapper {

// Every field of the report (docs/model.md, "Report (JSON)"), and the derived dram_ratio (counts.dram_bytes /
// compulsory_dram_bytes).
nlohmann::json to_json(const contracts::CostReport& report);
// The inverse of to_json: cost_report_from_json(to_json(r)) has every field of r, and to_json(cost_report_from_json(j))
// == j. How a report crosses a process or MPI boundary (`maeri sweep` under mpirun). Throws nlohmann::json::exception
// on a document that to_json did not write.
contracts::CostReport cost_report_from_json(const nlohmann::json& json);
// The CSV's columns (without the leading context columns) and a report's row. `with_group_tile` adds a T_G column
// after T_Y, for a table that holds a grouped layer; a table of ungrouped layers keeps its columns.
std::string csv_header(bool with_group_tile = false);
std::string csv_row(const contracts::CostReport& report, bool with_group_tile = false);

}  // namespace maeri::mapper
