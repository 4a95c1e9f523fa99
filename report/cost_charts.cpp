// The per-layer cost charts (cost_charts.hpp): horizontal bars on one linear scale per chart, names on the left.
#include "report/cost_charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "report/html_text.hpp"

namespace maeri::report {
namespace {

constexpr double kWidth = 1100, kLabelWidth = 210, kValueWidth = 150, kRowHeight = 22, kTop = 34;
constexpr double kBarWidth = kWidth - kLabelWidth - kValueWidth;

struct Part {
  const char* css_class;
  const char* label;
  const char* colour;
  double CycleSplit::*field;
};
constexpr std::array<Part, 4> kParts{{{"compute", "compute", "#3b7dd8", &CycleSplit::compute},
                                      {"memory-stall", "memory stall", "#e8833a", &CycleSplit::memory_stall},
                                      {"configuration", "configuration", "#8a63c9", &CycleSplit::configuration},
                                      {"unit", "post-processing unit", "#3aa865", &CycleSplit::unit}}};

std::string row_label(const Operator& op, std::size_t index, double y) {
  return fmt::format("<a href=\"#op-{}\"><text class=\"row-label\" x=\"{}\" y=\"{:.1f}\">{}<title>{}</title></text>"
                     "</a>", index, kLabelWidth - 8, y + 15, escaped(short_label(op.name, 26)), escaped(op.name));
}

std::string svg_open(const char* css_class, double height) {
  return fmt::format("<svg class=\"{}\" viewBox=\"0 0 {} {:.0f}\" width=\"{}\" height=\"{:.0f}\" role=\"img\">\n",
                     css_class, kWidth, height, kWidth, height);
}

}  // namespace

std::string cycle_bars_svg(const ReportData& data) {
  double longest = 0;
  std::size_t rows = 0;
  for (const Operator& op : data.operators)
    if (op.cycles) longest = std::max(longest, op.cycles->total()), ++rows;
  if (rows == 0) return "";
  std::string svg = svg_open("cycle-bars", kTop + double(rows) * kRowHeight + 8);
  double legend_x = kLabelWidth;
  for (const Part& part : kParts) {
    svg += fmt::format("<rect x=\"{:.0f}\" y=\"8\" width=\"12\" height=\"12\" fill=\"{}\"/><text class=\"legend\" "
                       "x=\"{:.0f}\" y=\"18\">{}</text>", legend_x, part.colour, legend_x + 16, part.label);
    legend_x += 40 + 7.5 * double(std::char_traits<char>::length(part.label));
  }
  svg += "\n";
  double y = kTop;
  for (std::size_t i = 0; i < data.operators.size(); ++i) {
    const Operator& op = data.operators[i];
    if (!op.cycles) continue;
    svg += fmt::format("<g class=\"bar\">{}", row_label(op, i, y));
    double x = kLabelWidth;
    for (const Part& part : kParts) {
      const double value = (*op.cycles).*part.field;
      const double width = longest > 0 ? kBarWidth * value / longest : 0;
      if (value > 0)
        svg += fmt::format("<rect class=\"part {}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"16\" "
                           "fill=\"{}\"><title>{}: {} cycles</title></rect>", part.css_class, x, y + 2,
                           std::max(width, 0.5), part.colour, part.label, number_text(value));
      x += width;
    }
    svg += fmt::format("<text class=\"value\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text></g>\n", x + 6, y + 15,
                       number_text(op.cycles->total()));
    y += kRowHeight;
  }
  return svg + "</svg>\n";
}

std::string dram_bars_svg(const ReportData& data) {
  double largest = 0;
  std::size_t rows = 0;
  for (const Operator& op : data.operators)
    if (op.fabric && op.fabric->dram_bytes && op.fabric->compulsory_dram_bytes) {
      largest = std::max({largest, double(*op.fabric->dram_bytes), double(*op.fabric->compulsory_dram_bytes)});
      ++rows;
    }
  if (rows == 0) return "";
  std::string svg = svg_open("dram-bars", kTop + double(rows) * kRowHeight + 8);
  svg += fmt::format("<rect x=\"{0}\" y=\"8\" width=\"12\" height=\"12\" fill=\"#b9c0c8\"/><text class=\"legend\" "
                     "x=\"{1}\" y=\"18\">compulsory (inputs, weights, outputs once)</text><rect x=\"{2}\" y=\"8\" "
                     "width=\"12\" height=\"12\" fill=\"#d8663b\"/><text class=\"legend\" x=\"{3}\" y=\"18\">moved"
                     "</text>\n", kLabelWidth, kLabelWidth + 16, kLabelWidth + 330, kLabelWidth + 346);
  double y = kTop;
  for (std::size_t i = 0; i < data.operators.size(); ++i) {
    const Operator& op = data.operators[i];
    if (!op.fabric || !op.fabric->dram_bytes || !op.fabric->compulsory_dram_bytes) continue;
    const double moved = double(*op.fabric->dram_bytes), compulsory = double(*op.fabric->compulsory_dram_bytes);
    const auto bar = [&](double value) { return largest > 0 ? std::max(kBarWidth * value / largest, 0.5) : 0.5; };
    svg += fmt::format("<g class=\"bar\">{}<rect class=\"compulsory\" x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                       "height=\"8\" fill=\"#b9c0c8\"><title>compulsory: {} bytes</title></rect><rect class=\"moved\" "
                       "x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"8\" fill=\"#d8663b\"><title>moved: {} bytes"
                       "</title></rect><text class=\"value\" x=\"{:.1f}\" y=\"{:.1f}\">{} B, ×{}</text></g>\n",
                       row_label(op, i, y), kLabelWidth, y + 2, bar(compulsory), number_text(compulsory),
                       kLabelWidth, y + 10, bar(moved), number_text(moved),
                       kLabelWidth + std::max(bar(compulsory), bar(moved)) + 6, y + 15, number_text(moved),
                       compulsory > 0 ? fmt::format("{:.2f}", moved / compulsory) : std::string("—"));
    y += kRowHeight;
  }
  return svg + "</svg>\n";
}

}  // namespace maeri::report
