// SVG chart writer (see svg_chart.hpp). Linear axes get 5-ish "nice" ticks (1, 2, 5 × 10^k); logarithmic axes
// whole decades, or the data's own range when it spans less than one.
#include "util/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

namespace maeri::util {
namespace {

struct Axis {
  double low = 0, high = 1;
  bool log = false;
  std::vector<double> ticks;
  double fraction(double v) const {
    return log ? (std::log10(v) - std::log10(low)) / (std::log10(high) - std::log10(low)) : (v - low) / (high - low);
  }
};

// `axis` names the axis in the error for a value plottable_value refuses.
Axis make_axis(std::vector<double> values, bool log, const char* axis_name) {
  Axis axis;
  axis.log = log;
  for (const double v : values)
    if (!plottable_value(v, log))
      throw std::invalid_argument(fmt::format("{} value {} cannot be placed on a {} axis (magnitudes up to {:g})",
                                              axis_name, v, log ? "logarithmic" : "linear", kMaxChartMagnitude));
  if (log) values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0); }), values.end());
  if (values.empty()) values = {1, 10};
  const auto [min_it, max_it] = std::minmax_element(values.begin(), values.end());
  double low = *min_it, high = *max_it;
  if (log) {
    double decade_low = std::floor(std::log10(low)), decade_high = std::ceil(std::log10(high));
    if (decade_high == decade_low) decade_high += 1;
    axis.low = std::pow(10.0, decade_low);
    axis.high = std::pow(10.0, decade_high);
    for (double d = decade_low; d <= decade_high; ++d) axis.ticks.push_back(std::pow(10.0, d));
    return axis;
  }
  // Values a few ulps apart have no nice step the doubles can count in: they are drawn as one value.
  if (high - low <= std::max(std::abs(low), std::abs(high)) * 1e-12) {
    low -= std::max(1.0, std::abs(low) * 0.1);
    high += std::max(1.0, std::abs(high) * 0.1);
  }
  const double raw_step = (high - low) / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw_step)));
  double step = magnitude;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw_step) {
      step = m * magnitude;
      break;
    }
  axis.low = std::floor(low / step) * step;
  axis.high = std::ceil(high / step) * step;
  // Counted, not stepped until past the end: a step below the doubles' resolution would never get there.
  const long steps = std::lround((axis.high - axis.low) / step);
  double t = axis.low;
  for (long i = 0; i <= steps; ++i, t += step) axis.ticks.push_back(t);
  return axis;
}

std::string tick_text(double v) {
  if (v == 0) return "0";
  const double magnitude = std::abs(v);
  if (magnitude >= 1e5 || magnitude < 1e-3) return fmt::format("{:.3g}", v);
  return fmt::format("{:g}", v);
}

}  // namespace

bool plottable_value(double value, bool log_axis) {
  if (!std::isfinite(value) || std::abs(value) > kMaxChartMagnitude) return false;
  return !log_axis || value <= 0 || value >= 1 / kMaxChartMagnitude;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

namespace {

constexpr double kWidth = 720, kHeight = 520, kLeft = 90, kRight = 30, kTop = 40, kBottom = 60;
constexpr double kPlotWidth = kWidth - kLeft - kRight, kPlotHeight = kHeight - kTop - kBottom;

// The title's lines and font size: one line at 15 px when it fits the chart's width, else two lines (broken
// between words), at the largest size from 14 down to 9 px at which both fit; a title too long even then ends in
// "…". Widths are estimated at 0.6 em per character (wider than sans-serif's average), as SVG has no text metrics.
struct TitleLayout {
  std::vector<std::string> lines;
  int font_size;
};

TitleLayout title_layout(const std::string& title) {
  constexpr double kTitleWidth = kWidth - 20, kEm = 0.6;
  const auto characters = [](const std::string& text) {
    return std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  };
  const auto fits = [&](const std::string& text, int size) { return double(characters(text)) * kEm * size <= kTitleWidth; };
  if (fits(title, 15)) return {{title}, 15};
  std::vector<std::string> words;
  for (std::size_t at = 0; at < title.size();) {
    const std::size_t space = std::min(title.find(' ', at), title.size());
    if (space > at) words.push_back(title.substr(at, space - at));
    at = space + 1;
  }
  for (int size = 14; size >= 9; --size) {
    std::vector<std::string> lines(1);
    for (const std::string& word : words) {
      const std::string longer = lines.back().empty() ? word : lines.back() + " " + word;
      if (fits(longer, size) || lines.back().empty()) {
        lines.back() = longer;
      } else {
        lines.push_back(word);
      }
    }
    if (lines.size() <= 2 && fits(lines.front(), size) && fits(lines.back(), size)) return {lines, size};
  }
  // Two lines of `keep` characters, cut between characters (so they stay valid UTF-8), the rest as "…".
  const std::size_t keep = std::size_t(kTitleWidth / (kEm * 9)) - 1;
  std::vector<std::string> lines(1);
  std::size_t count = 0;
  for (std::size_t at = 0; at < title.size(); ++at) {
    const bool starts_character = (static_cast<unsigned char>(title[at]) & 0xC0) != 0x80;
    if (starts_character && count == keep) {
      if (lines.size() == 2) {
        lines.back() += "…";
        break;
      }
      lines.emplace_back();
      count = 0;
    }
    lines.back() += title[at];
    if (starts_character) ++count;
  }
  return {lines, 9};
}

// The title as one <text> line per line of its layout, centred above the plot.
std::string title_svg(const std::string& title) {
  const TitleLayout layout = title_layout(title);
  if (layout.lines.size() == 1)
    return fmt::format("<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"{}\">{}</text>\n", kWidth / 2,
                       layout.font_size, xml_escape(layout.lines.front()));
  std::string svg;
  const int line_height = layout.font_size + 3;
  for (std::size_t i = 0; i < layout.lines.size(); ++i)
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"{}\">{}</text>\n", kWidth / 2,
                       30 - line_height * int(layout.lines.size() - 1 - i), layout.font_size,
                       xml_escape(layout.lines[i]));
  return svg;
}

// The document, its title, the plot's frame, the y axis's grid lines and ticks and both axis labels.
std::string chart_frame(const ChartAxes& axes, const Axis& y_axis) {
  const auto py = [&](double v) { return kTop + kPlotHeight - y_axis.fraction(v) * kPlotHeight; };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      kWidth, kHeight);
  svg += title_svg(axes.title);
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", kLeft,
                     kTop, kPlotWidth, kPlotHeight);
  for (const double t : y_axis.ticks)
    svg += fmt::format("<line x1=\"{0}\" y1=\"{2:.1f}\" x2=\"{1}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                       kLeft, kLeft + kPlotWidth, py(t), kLeft - 6, py(t) + 4, tick_text(t));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", kLeft + kPlotWidth / 2,
                     kHeight - 18, xml_escape(axes.x_label));
  svg += fmt::format("<text x=\"18\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {0})\">{1}</text>\n",
                     kTop + kPlotHeight / 2, xml_escape(axes.y_label));
  return svg;
}

std::string legend_entry(int row, const std::string& colour, const std::string& label) {
  return fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                     kLeft + 16, kTop + 18 + 18 * row, colour, kLeft + 28, kTop + 22 + 18 * row, xml_escape(label));
}

}  // namespace

const char* series_colour(std::size_t n) {
  static const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return kColours[n % (sizeof kColours / sizeof kColours[0])];
}

std::string chart_svg(const ChartAxes& axes, const std::vector<ChartSeries>& series) {
  const double plot_w = kPlotWidth, plot_h = kPlotHeight;
  std::vector<double> xs, ys;
  for (const ChartSeries& s : series)
    for (const auto& [x, y] : s.points) {
      xs.push_back(x);
      ys.push_back(y);
    }
  const Axis x_axis = make_axis(xs, axes.log_x, "x"), y_axis = make_axis(ys, axes.log_y, "y");
  const auto px = [&](double v) { return kLeft + x_axis.fraction(v) * plot_w; };
  const auto py = [&](double v) { return kTop + plot_h - y_axis.fraction(v) * plot_h; };
  const auto plottable = [&](double x, double y) { return (!axes.log_x || x > 0) && (!axes.log_y || y > 0); };

  std::string svg = chart_frame(axes, y_axis);
  for (const double t : x_axis.ticks)
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                       px(t), kTop, kTop + plot_h, kTop + plot_h + 16, tick_text(t));
  int legend_row = 0;
  for (const ChartSeries& s : series) {
    if (s.line) {
      std::string path;
      for (const auto& [x, y] : s.points)
        if (plottable(x, y)) path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", px(x), py(y));
      if (!path.empty())
        svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n", path, s.colour);
    }
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const auto& [x, y] = s.points[i];
      if (!plottable(x, y)) continue;
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" fill-opacity=\"0.7\"/>\n", px(x),
                         py(y), s.colour);
      if (i < s.point_labels.size() && !s.point_labels[i].empty())
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"{}\">{}</text>\n", px(x) + 6,
                           py(y) - 6, s.colour, xml_escape(s.point_labels[i]));
    }
    if (!s.label.empty()) {
      svg += legend_entry(legend_row++, s.colour, s.label);
    }
  }
  return svg + "</svg>\n";
}

std::string bar_chart_svg(const ChartAxes& axes, const std::vector<std::string>& categories,
                          const std::vector<BarSeries>& series) {
  std::vector<double> ys{0.0};
  for (const BarSeries& s : series) ys.insert(ys.end(), s.values.begin(), s.values.end());
  const Axis y_axis = make_axis(ys, false, "y");
  const auto py = [&](double v) { return kTop + kPlotHeight - y_axis.fraction(v) * kPlotHeight; };
  std::string svg = chart_frame(axes, y_axis);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{2:.1f}\" x2=\"{1}\" y2=\"{2:.1f}\" stroke=\"black\"/>\n", kLeft,
                     kLeft + kPlotWidth, py(0));
  const double group = kPlotWidth / double(std::max<std::size_t>(1, categories.size()));
  const double bar = 0.8 * group / double(std::max<std::size_t>(1, series.size()));
  for (std::size_t c = 0; c < categories.size(); ++c) {
    const double centre = kLeft + (double(c) + 0.5) * group;
    svg += fmt::format("<text x=\"{0:.1f}\" y=\"{1}\" text-anchor=\"end\" font-size=\"10\" "
                       "transform=\"rotate(-30 {0:.1f} {1})\">{2}</text>\n",
                       centre, kTop + kPlotHeight + 14, xml_escape(categories[c]));
    for (std::size_t s = 0; s < series.size(); ++s) {
      if (c >= series[s].values.size()) continue;
      const double value = series[s].values[c];
      const double top = std::min(py(value), py(0)), height = std::abs(py(value) - py(0));
      svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
                         "<title>{}: {}</title></rect>\n",
                         kLeft + double(c) * group + 0.1 * group + double(s) * bar, top, bar, height,
                         series[s].colour, xml_escape(categories[c] + " " + series[s].label), tick_text(value));
    }
  }
  int legend_row = 0;
  for (const BarSeries& s : series)
    if (!s.label.empty()) svg += legend_entry(legend_row++, s.colour, s.label);
  return svg + "</svg>\n";
}

}  // namespace maeri::util
