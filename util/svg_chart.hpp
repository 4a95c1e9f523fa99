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
  std::string title, x_label, y_label;  // a title too wide for the chart wraps onto two lines, then shrinks
  bool log_x = false, log_y = false;    // logarithmic axes skip points <= 0
};

// The values an axis can place: finite, of magnitude at most kMaxChartMagnitude and, on a logarithmic axis, positive
// ones at least 1/kMaxChartMagnitude (it skips the others). Beyond these, an axis's span, ticks or decades leave the
// doubles (1e308 − (−1e308) is infinite, 10^−324 is 0).
inline constexpr double kMaxChartMagnitude = 1e300;
bool plottable_value(double value, bool log_axis);

// Throw std::invalid_argument for a value plottable_value refuses (callers with values from users check them
// first, with the row they came from).
std::string chart_svg(const ChartAxes& axes, const std::vector<ChartSeries>& series);

struct BarSeries {
  std::string label;  // legend entry
  std::string colour;
  std::vector<double> values;  // one per category; the bars start at 0 (negative values point down)
};

// One group of bars per category, one bar per series, on a linear y axis that always includes 0
// (axes.log_x/log_y are ignored).
// Throws std::invalid_argument like chart_svg.
std::string bar_chart_svg(const ChartAxes& axes, const std::vector<std::string>& categories,
                          const std::vector<BarSeries>& series);

// Colours for the n-th series of a chart (cycles through ten distinguishable colours).
const char* series_colour(std::size_t n);

// Text safe inside SVG/XML elements and attributes.
std::string xml_escape(const std::string& text);

}  // namespace maeri::util
