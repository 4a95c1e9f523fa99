// The network as a graph: a layered drawing of the operators (layer = longest path from an input), edges from each
// producer to its consumers, and every fused group as a box around its members.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/report_data.hpp"

namespace maeri::report {

// Layer of each operator in the drawing: 0 for one that reads no other operator, else one more than its deepest
// input. Throws std::invalid_argument when an operator reads itself or a later one (operators are in graph order).
std::vector<std::size_t> graph_depths(const std::vector<Operator>& operators);

// An inline <svg class="network-graph">: one <g class="node fabric|unit"> per operator, linking to its section
// (#op-i), one <path class="edge"> per input, one <rect class="group-box"> per fused group.
std::string network_graph_svg(const ReportData& data);

}  // namespace maeri::report
