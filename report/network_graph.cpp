// The layered network drawing (network_graph.hpp): rows by depth from top to bottom, operators of a row in graph
// order, each row centred; group boxes are drawn first so that nodes and edges lie on top of them.
#include "report/network_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "report/html_text.hpp"

namespace maeri::report {
namespace {

constexpr double kNodeWidth = 150, kNodeHeight = 32, kColumnGap = 22, kRowGap = 34, kMargin = 24;

struct Box {
  double x = 0, y = 0;  // top-left corner
};

std::vector<Box> node_boxes(const std::vector<std::size_t>& depths, double& width, double& height) {
  const std::size_t rows = depths.empty() ? 0 : *std::max_element(depths.begin(), depths.end()) + 1;
  std::vector<std::size_t> row_size(rows, 0), column(depths.size(), 0);
  for (std::size_t i = 0; i < depths.size(); ++i) column[i] = row_size[depths[i]]++;
  const std::size_t widest = rows == 0 ? 1 : *std::max_element(row_size.begin(), row_size.end());
  width = 2 * kMargin + double(widest) * (kNodeWidth + kColumnGap) + kColumnGap;  // room for edges around rows
  height = 2 * kMargin + double(rows) * (kNodeHeight + kRowGap) - kRowGap + 8;
  std::vector<Box> boxes(depths.size());
  for (std::size_t i = 0; i < depths.size(); ++i) {
    const double row_width = double(row_size[depths[i]]) * (kNodeWidth + kColumnGap) - kColumnGap;
    boxes[i].x = (width - row_width) / 2 + double(column[i]) * (kNodeWidth + kColumnGap);
    boxes[i].y = kMargin + 8 + double(depths[i]) * (kNodeHeight + kRowGap);
  }
  return boxes;
}

std::string group_colour(std::size_t index) { return fmt::format("hsl({},65%,38%)", (index * 137 + 10) % 360); }

std::string group_box(const FusedGroup& group, std::size_t index, const std::vector<Box>& boxes) {
  if (group.members.empty()) return "";
  double left = 1e300, top = 1e300, right = -1e300, bottom = -1e300;
  for (const std::size_t member : group.members) {
    if (member >= boxes.size())
      throw std::invalid_argument(fmt::format("fused group {} names operator {}, the network has {}", group.name,
                                              member, boxes.size()));
    left = std::min(left, boxes[member].x);
    top = std::min(top, boxes[member].y);
    right = std::max(right, boxes[member].x + kNodeWidth);
    bottom = std::max(bottom, boxes[member].y + kNodeHeight);
  }
  const double pad = 8, label = 12;  // the group's name sits inside the box, above its first row
  return fmt::format("<g class=\"group\"><rect class=\"group-box\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                     "height=\"{:.1f}\" rx=\"8\" stroke=\"{}\"/><text class=\"group-name\" x=\"{:.1f}\" y=\"{:.1f}\" "
                     "fill=\"{}\">{}</text></g>\n", left - pad, top - pad - label, right - left + 2 * pad,
                     bottom - top + 2 * pad + label, group_colour(index), left - pad + 6, top - pad,
                     group_colour(index), escaped(short_label(group.name, 40)));
}

std::string node(const Operator& op, std::size_t index, const Box& box) {
  const std::string kind = op.fabric ? "fabric" : "unit";
  return fmt::format("<a href=\"#op-{}\"><g class=\"node {}\"><title>{} ({})</title><rect x=\"{:.1f}\" y=\"{:.1f}\" "
                     "width=\"{}\" height=\"{}\" rx=\"4\"/><text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>"
                     "<text class=\"kind\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text></g></a>\n",
                     index, kind, escaped(op.name), escaped(op.kind), box.x, box.y, kNodeWidth, kNodeHeight,
                     box.x + kNodeWidth / 2, box.y + 14, escaped(short_label(op.name, 20)), box.x + kNodeWidth / 2,
                     box.y + 27, escaped(short_label(op.kind, 20)));
}

// An edge to the next row goes straight from the producer's bottom to the consumer's top; one that skips rows
// would cross the nodes between them, so it leaves the producer's right side and bends around to the consumer's.
std::string edge(const Box& from, const Box& to) {
  if (to.y - from.y < kNodeHeight + kRowGap + 1) {
    const double x1 = from.x + kNodeWidth / 2, y1 = from.y + kNodeHeight, x2 = to.x + kNodeWidth / 2, y2 = to.y;
    const double bend = (y2 - y1) / 2;
    return fmt::format("<path class=\"edge\" d=\"M{:.1f},{:.1f} C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" "
                       "marker-end=\"url(#arrow)\"/>\n", x1, y1, x1, y1 + bend, x2, y2 - bend, x2, y2);
  }
  const double x1 = from.x + kNodeWidth, y1 = from.y + kNodeHeight / 2;
  const double x2 = to.x + kNodeWidth, y2 = to.y + kNodeHeight / 2;
  const double side = std::max(x1, x2) + kColumnGap * 1.5;
  return fmt::format("<path class=\"edge\" d=\"M{:.1f},{:.1f} C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" "
                     "marker-end=\"url(#arrow)\"/>\n", x1, y1, side, y1, side, y2, x2, y2);
}

}  // namespace

std::vector<std::size_t> graph_depths(const std::vector<Operator>& operators) {
  std::vector<std::size_t> depths(operators.size(), 0);
  for (std::size_t i = 0; i < operators.size(); ++i)
    for (const std::size_t input : operators[i].inputs) {
      if (input >= i)
        throw std::invalid_argument(fmt::format("operator {} ({}) reads operator {}, which is not an earlier one", i,
                                                operators[i].name, input));
      depths[i] = std::max(depths[i], depths[input] + 1);
    }
  return depths;
}

std::string network_graph_svg(const ReportData& data) {
  double width = 0, height = 0;
  const std::vector<Box> boxes = node_boxes(graph_depths(data.operators), width, height);
  std::string svg = fmt::format("<svg class=\"network-graph\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" "
                                "height=\"{:.0f}\" role=\"img\">\n<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" "
                                "refX=\"8\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
                                "<path d=\"M0,0 L8,4 L0,8 z\" fill=\"#555\"/></marker></defs>\n",
                                width, height, width, height);
  for (std::size_t g = 0; g < data.groups.size(); ++g) svg += group_box(data.groups[g], g, boxes);
  for (std::size_t i = 0; i < data.operators.size(); ++i)
    for (const std::size_t input : data.operators[i].inputs) svg += edge(boxes[input], boxes[i]);
  for (std::size_t i = 0; i < data.operators.size(); ++i) svg += node(data.operators[i], i, boxes[i]);
  return svg + "</svg>\n";
}

}  // namespace maeri::report
