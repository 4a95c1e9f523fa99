// Self-contained SVG charts: x-y series (points, optionally joined by a line, optionally labelled) on linear or
// logarithmic axes — the plots of `maeri sweep` (cost against a swept parameter, the runtime-energy Pareto front) —
// and grouped bars over named categories (`maeri plot --bars`, e.g. improvement over the baseline per layer).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace maeri::util {

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

struct BarSeries {
  std::string label;  // legend entry
  std::string colour;
  std::vector<double> values;  // one per category; the bars start at 0 (negative values point down)
};

// One group of bars per category, one bar per series, on a linear y axis that always includes 0
// (axes.log_x/log_y are ignored).
std::string bar_chart_svg(const ChartAxes& axes, const std::vector<std::string>& categories,
                          const std::vector<BarSeries>& series);

// Colours for the n-th series of a chart (cycles through ten distinguishable colours).
const char* series_colour(std::size_t n);

// Text safe inside SVG/XML elements and attributes.
std::string xml_escape(const std::string& text);

}  // namespace maeri::util
