// A self-contained SVG chart of x-y series (points, optionally joined by a line, optionally labelled) on linear or
// logarithmic axes: the plots of `maeri sweep` (cost against a swept parameter, the runtime-energy Pareto front).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace maeri::mapper {

struct ChartSeries {
  std::string label;   // legend entry ("" = none)
  std::string colour;  // any SVG colour
  std::vector<std::pair<double, double>> points;
  bool line = false;                      // join the points in the given order
  std::vector<std::string> point_labels;  // empty, or one text per point written beside it
};

struct ChartAxes {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;  // logarithmic axes skip points <= 0
};

std::string chart_svg(const ChartAxes& axes, const std::vector<ChartSeries>& series);

// Text safe inside SVG/XML elements and attributes.
std::string xml_escape(const std::string& text);

}  // namespace maeri::mapper
