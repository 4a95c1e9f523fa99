// A small hand-built ReportData for the HTML report's tests (tests/unit/test_html_report.cpp and the browser test's
// page writer, tests/cli/make_report_page.cpp): 64 multiplier switches, three fabric layers (two of them a fused
// group), two post-processing operators, a layer and a group with hostile names, one PASS and one FAIL verdict.
#pragma once

#include "report/report_data.hpp"

namespace maeri::test {

// Names in the sample that a page must escape.
inline constexpr const char* kHostileLayerName = "fc<script>alert('x')</script>&\"";
inline constexpr const char* kHostileGroupName = "g1 <b>bold</b> & 'quoted'";

report::ReportData sample_report();

}  // namespace maeri::test
