// A self-contained SVG scatter plot (log-log) of predicted against measured values for one or more series, with
// the y = x diagonal: the calibration report's picture of the model before and after fitting.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace maeri::calibration {

struct ScatterSeries {
  std::string label;
  std::string colour;  // any SVG colour
  std::vector<std::pair<double, double>> points;  // (measured, predicted), both > 0
};

std::string scatter_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<ScatterSeries>& series);

}  // namespace maeri::calibration
