// The HTML report of a mapped or run network (docs/report.md): one self-contained page — inline CSS and SVG, no
// scripts, fonts or images from anywhere — with the verdicts, the network as a graph with its fused groups, where
// the cycles go, DRAM against compulsory, and per layer its mapping drawn on the fabric and model against RTL.
#pragma once

#include <string>

#include "report/report_data.hpp"

namespace maeri::report {

// The page. Throws std::invalid_argument for data that cannot be drawn (an operator reading a later one, a group
// member or input out of range, a tile larger than the fabric), naming it.
std::string report_html(const ReportData& data);

// report_html() written atomically (util/atomic_file.hpp: temporary + rename); throws util::InputError naming
// the path when it cannot be written.
void write_report(const std::string& path, const ReportData& data);

}  // namespace maeri::report
