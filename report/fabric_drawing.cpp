// The mapping drawn on the DN, MN and RN (fabric_drawing.hpp). Geometry: leaf i of a tree of 2^L leaves sits at
// the centre of its 1/2^L of the width, a node at level l (2^l nodes) over the middle of its leaves; levels with
// more than kMaxDrawnNodes nodes are left out (a note says how many), so any fabric size gives a page of one size.
#include "report/fabric_drawing.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "report/html_text.hpp"

namespace maeri::report {
namespace {

constexpr double kWidth = 1100, kMargin = 20, kLevelGap = 24, kNodeHeight = 10, kMsHeight = 26;
constexpr std::int64_t kMaxDrawnNodes = 128;

int tree_levels(std::int64_t num_ms) {
  int levels = 0;
  while ((std::int64_t{1} << levels) < num_ms) ++levels;
  return levels;
}

double node_x(int level, std::int64_t index) {
  const double span = (kWidth - 2 * kMargin) / double(std::int64_t{1} << level);
  return kMargin + (double(index) + 0.5) * span;
}

double node_width(int level) {
  const double span = (kWidth - 2 * kMargin) / double(std::int64_t{1} << level);
  return std::min(16.0, span * 0.7);
}

bool drawn(int level) { return (std::int64_t{1} << level) <= kMaxDrawnNodes / 2; }

// "1 DN level (128 switches)", "3 DN levels (128 to 512 switches each)": the tree levels first…last left out.
std::string levels_text(int first, int last, const char* tree, const char* nodes) {
  if (first == last) return fmt::format("1 {} level ({} {})", tree, std::int64_t{1} << first, nodes);
  return fmt::format("{} {} levels ({} to {} {} each)", last - first + 1, tree, std::int64_t{1} << first,
                     std::int64_t{1} << last, nodes);
}

// The DN from its root at y0 down: switches of drawn levels and the links to their children (or to the switches).
std::string dn_tree(int levels, double y0, double ms_y, double& y_after) {
  std::string svg = fmt::format("<text class=\"net-label\" x=\"{}\" y=\"{}\">DN</text>\n", 2, y0 + 8);
  double y = y0;
  int last_drawn = -1;
  for (int l = 0; l < levels && drawn(l); ++l, y += kLevelGap) last_drawn = l;
  y = y0;
  for (int l = 0; l <= last_drawn; ++l, y += kLevelGap) {
    // Links go to both children when they are drawn (switches or the MS row), else one line down to the row.
    const bool children_drawn = l < last_drawn || (l == levels - 1 && (std::int64_t{1} << levels) <= kMaxDrawnNodes);
    for (std::int64_t i = 0; i < (std::int64_t{1} << l); ++i) {
      const double x = node_x(l, i);
      for (int side = 0; side < 2; ++side) {
        const double cx = children_drawn ? node_x(l + 1, 2 * i + side) : x;
        const double cy = l < last_drawn ? y + kLevelGap : ms_y;
        if (!children_drawn && side == 1) break;
        svg += fmt::format("<line class=\"link\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", x,
                           y + kNodeHeight, cx, cy);
      }
      const double w = node_width(l);
      svg += fmt::format("<rect class=\"dn-switch\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\"/>\n",
                         x - w / 2, y, w, kNodeHeight);
    }
  }
  if (last_drawn + 1 < levels)
    svg += fmt::format("<text class=\"note\" x=\"{}\" y=\"{:.1f}\">… {} not drawn</text>\n", kWidth / 2, y + 8,
                       levels_text(last_drawn + 1, levels - 1, "DN", "switches"));
  y_after = y;
  return svg;
}

std::string switch_row(const contracts::FabricTile& tile, const std::vector<int>& vns, double y) {
  const auto num_ms = static_cast<std::int64_t>(vns.size());
  const double span = (kWidth - 2 * kMargin) / double(num_ms);
  std::string svg = fmt::format("<text class=\"net-label\" x=\"{}\" y=\"{}\">MS</text>\n", 2, y + 17);
  if (num_ms <= kMaxDrawnNodes) {
    for (std::int64_t i = 0; i < num_ms; ++i) {
      const int vn = vns[std::size_t(i)];
      const double x = kMargin + double(i) * span;
      const std::string title = vn < 0 ? fmt::format("MS {}: idle", i)
                                       : fmt::format("MS {}: VN {} ({})", i, vn, vn_offsets_text(tile, vn));
      svg += fmt::format("<rect class=\"ms {}\" data-vn=\"{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
                         "fill=\"{}\"><title>{}</title></rect>", vn < 0 ? "idle" : "vn", vn, x + 0.5, y,
                         span - 1, kMsHeight, vn < 0 ? "#e4e4e4" : vn_colour(vn), title);
      if (vn >= 0 && span >= 12)
        svg += fmt::format("<text class=\"vn-id\" x=\"{:.1f}\" y=\"{}\">{}</text>", x + span / 2, y + 17, vn);
      svg += "\n";
    }
    return svg;
  }
  for (std::int64_t first = 0; first < num_ms;) {
    const int vn = vns[std::size_t(first)];
    std::int64_t end = first;
    while (end < num_ms && vns[std::size_t(end)] == vn) ++end;
    svg += fmt::format("<rect class=\"ms-run {}\" data-vn=\"{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
                       "fill=\"{}\"><title>MS {}–{}: {}</title></rect>\n", vn < 0 ? "idle" : "vn", vn,
                       kMargin + double(first) * span, y, double(end - first) * span, kMsHeight,
                       vn < 0 ? "#e4e4e4" : vn_colour(vn), first, end - 1,
                       vn < 0 ? std::string("idle") : fmt::format("VN {}", vn));
    first = end;
  }
  return svg;
}

// The reduction network under the switches, its root at the bottom. An adder whose leaves all belong to one VN adds
// only that VN's products (coloured like it); one over several VNs keeps their tokens apart or joins them over an
// ART forwarding link (docs/config-bits.md, "The fabric compiler"), drawn grey.
std::string rn_tree(const std::vector<int>& vns, int levels, double y0, double& y_after) {
  const auto num_ms = static_cast<std::int64_t>(vns.size());
  std::string svg;
  double y = y0;
  int skipped = 0;
  for (int l = levels - 1; l >= 0; --l) {
    if (!drawn(l)) { ++skipped; continue; }
    if (skipped > 0) {
      svg += fmt::format("<text class=\"note\" x=\"{}\" y=\"{:.1f}\">… {} not drawn</text>\n", kWidth / 2, y + 8,
                         levels_text(l + 1, l + skipped, "RN", "adders"));
      y += kLevelGap;
      skipped = 0;
    }
    const std::int64_t leaves = num_ms >> l;
    for (std::int64_t i = 0; i < (std::int64_t{1} << l); ++i) {
      const int first = vns[std::size_t(i * leaves)], last = vns[std::size_t((i + 1) * leaves - 1)];
      const bool one_vn = first >= 0 && first == last;
      const bool active = first >= 0;
      const double x = node_x(l, i), w = node_width(l);
      const bool children_drawn = l + 1 < levels ? drawn(l + 1) : num_ms <= kMaxDrawnNodes;
      if (children_drawn)
        for (int side = 0; side < 2; ++side)
          svg += fmt::format("<line class=\"link\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", x, y,
                             node_x(l + 1, 2 * i + side), y - kLevelGap + kNodeHeight);
      if (l > 0 && i % 2 == 1 && i + 1 < (std::int64_t{1} << l))
        svg += fmt::format("<line class=\"art-link\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>",
                           x + w / 2, y + kNodeHeight / 2, node_x(l, i + 1) - w / 2, y + kNodeHeight / 2);
      svg += fmt::format("<rect class=\"rn-adder {}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" "
                         "fill=\"{}\"/>\n", one_vn ? "vn" : active ? "shared" : "idle", x - w / 2, y, w, kNodeHeight,
                         one_vn ? vn_colour(first) : active ? "#9aa3ad" : "#f2f2f2");
    }
    y += kLevelGap;
  }
  svg += fmt::format("<text class=\"net-label\" x=\"{}\" y=\"{}\">RN</text>\n", 2, y0 + 8);
  y_after = y;
  return svg;
}

}  // namespace

std::vector<int> switch_vns(const contracts::FabricTile& tile, std::int64_t num_ms) {
  if (tile.mapped_ms() > num_ms)
    throw std::invalid_argument(fmt::format("the tile {} needs {} multiplier switches, the fabric has {}",
                                            contracts::to_compact_string(tile), tile.mapped_ms(), num_ms));
  std::vector<int> vns(static_cast<std::size_t>(num_ms), -1);
  const std::int64_t size = tile.vn_size();
  for (std::int64_t v = 0; v < tile.vn_count(); ++v)
    for (std::int64_t e = 0; e < size; ++e) vns[std::size_t(v * size + e)] = int(v);
  return vns;
}

std::string vn_offsets_text(const contracts::FabricTile& tile, int vn) {
  std::int64_t v = vn;
  const std::int64_t y = v % tile[contracts::kDimY];
  v /= tile[contracts::kDimY];
  const std::int64_t x = v % tile[contracts::kDimX];
  v /= tile[contracts::kDimX];
  const std::int64_t n = v % tile[contracts::kDimN];
  v /= tile[contracts::kDimN];
  const std::int64_t k = v % tile[contracts::kDimK], g = v / tile[contracts::kDimK];
  const std::string offsets = fmt::format("k={} n={} x'={} y'={}", k, n, x, y);
  return tile.groups > 1 ? fmt::format("g={} {}", g, offsets) : offsets;
}

std::string fabric_svg(const contracts::FabricTile& tile, std::int64_t num_ms) {
  const std::vector<int> vns = switch_vns(tile, num_ms);
  const int levels = tree_levels(num_ms);
  int dn_drawn = 0;
  while (dn_drawn < levels && drawn(dn_drawn)) ++dn_drawn;
  const double ms_y = 10 + kLevelGap * (dn_drawn + (dn_drawn < levels ? 1 : 0)) + 8;
  double after_dn = 0, after_rn = 0;
  std::string body = dn_tree(levels, 10, ms_y, after_dn);
  body += switch_row(tile, vns, ms_y);
  body += rn_tree(vns, levels, ms_y + kMsHeight + 14, after_rn);
  return fmt::format("<svg class=\"fabric\" viewBox=\"0 0 {} {:.0f}\" "
                     "width=\"{}\" height=\"{:.0f}\" role=\"img\">\n{}</svg>\n",
                     kWidth, after_rn + 4, kWidth, after_rn + 4, body);
}

}  // namespace maeri::report
