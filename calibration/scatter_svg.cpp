// SVG scatter plot writer (see scatter_svg.hpp).
#include "calibration/scatter_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/svg_chart.hpp"

namespace maeri::calibration {
using util::xml_escape;

std::string scatter_svg(const std::string& title, const std::string& x_label, const std::string& y_label,
                        const std::vector<ScatterSeries>& series) {
  constexpr double kWidth = 640, kHeight = 520, kLeft = 80, kRight = 20, kTop = 40, kBottom = 60;
  double low = std::numeric_limits<double>::max(), high = 0;
  for (const ScatterSeries& s : series)
    for (const auto& [x, y] : s.points) {
      low = std::min({low, x, y});
      high = std::max({high, x, y});
    }
  if (high <= 0) low = 1, high = 10;
  // Whole decades around the data, so the diagonal and the ticks are easy to read.
  const double decade_low = std::floor(std::log10(std::max(low, 1e-9)));
  const double decade_high = std::max(decade_low + 1, std::ceil(std::log10(high)));
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const auto px = [&](double v) { return kLeft + (std::log10(v) - decade_low) / (decade_high - decade_low) * plot_w; };
  const auto py = [&](double v) {
    return kTop + plot_h - (std::log10(v) - decade_low) / (decade_high - decade_low) * plot_h;
  };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">{3}</text>\n",
      kWidth, kHeight, kWidth / 2, util::xml_escape(title));
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", kLeft,
                     kTop, plot_w, plot_h);
  for (double d = decade_low; d <= decade_high; ++d) {
    const double v = std::pow(10.0, d);
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">1e{4}</text>\n",
                       px(v), kTop, kTop + plot_h, kTop + plot_h + 16, int(d));
    svg += fmt::format("<line x1=\"{0}\" y1=\"{2:.1f}\" x2=\"{1}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">1e{5}</text>\n",
                       kLeft, kLeft + plot_w, py(v), kLeft - 6, py(v) + 4, int(d));
  }
  const double a = std::pow(10.0, decade_low), b = std::pow(10.0, decade_high);
  svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"gray\" "
                     "stroke-dasharray=\"4 3\"/>\n",
                     px(a), py(a), px(b), py(b));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", kLeft + plot_w / 2, kHeight - 18,
                     util::xml_escape(x_label));
  svg += fmt::format("<text x=\"18\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {0})\">{1}</text>\n",
                     kTop + plot_h / 2, util::xml_escape(y_label));
  for (size_t i = 0; i < series.size(); ++i) {
    const ScatterSeries& s = series[i];
    for (const auto& [x, y] : s.points)
      if (x > 0 && y > 0)
        svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" fill-opacity=\"0.6\"/>\n", px(x),
                           py(y), s.colour);
    svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                       kLeft + 16, kTop + 18 + 18 * double(i), s.colour, kLeft + 28, kTop + 22 + 18 * double(i),
                       util::xml_escape(s.label));
  }
  return svg + "</svg>\n";
}

}  // namespace maeri::calibration
