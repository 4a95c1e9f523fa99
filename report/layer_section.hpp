// One operator's section of the HTML report: for a fabric layer its shape, its mapping (tile, SDM level, VN
// structure) drawn on the fabric, its fused group and role, and the model-vs-RTL table; for an operator of the
// post-processing unit its kind and cycles.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/report_data.hpp"

namespace maeri::report {

// <table class="metrics">: metric, model, RTL, error. The error is (model − RTL) / RTL; a row where both sides are
// there and differ has class "inexact" (highlighted), an equal one "exact".
std::string metrics_table(const std::vector<MetricRow>& rows);

// <section class="layer" id="op-i"> for a fabric layer, <section class="unit-op" id="op-i"> for the others.
std::string operator_section(const ReportData& data, std::size_t index);

}  // namespace maeri::report
