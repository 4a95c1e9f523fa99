// JSON and CSV forms of CostReports, shared by `maeri map` and the later verify/calibrate reports.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "spec/cost_report.hpp"

namespace maeri::mapper {

nlohmann::json to_json(const spec::CostReport& report);
std::string csv_header();  // columns of csv_row, without the leading context columns
std::string csv_row(const spec::CostReport& report);

}  // namespace maeri::mapper
