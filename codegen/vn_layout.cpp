// Construction and validation of VN layouts.
#include "codegen/vn_layout.hpp"

#include <fmt/format.h>

namespace maeri::codegen {

VnLayout VnLayout::packed(int num_ms, int size, int count, int first_ms) {
  VnLayout layout{num_ms, {}};
  for (int v = 0; v < count; ++v) layout.vns.push_back({first_ms + v * size, size});
  return layout;
}

void validate_layout(const VnLayout& layout) {
  const int m = layout.num_ms;
  if (m < 2 || (m & (m - 1)) != 0)
    throw LayoutError(fmt::format("num_ms must be a power of two >= 2, got {}", m));
  if (layout.vns.empty()) throw LayoutError("the layout has no VN");
  if (static_cast<int>(layout.vns.size()) > m)
    throw LayoutError(fmt::format("{} VNs do not fit on {} multiplier switches", layout.vns.size(), m));
  int next_free = 0;
  for (size_t v = 0; v < layout.vns.size(); ++v) {
    const VnPlacement& vn = layout.vns[v];
    if (vn.size < 1) throw LayoutError(fmt::format("VN {} has size {}; a VN needs at least one switch", v, vn.size));
    if (vn.size > m)
      throw LayoutError(fmt::format("VN {} has size {}, larger than the {} multiplier switches", v, vn.size, m));
    if (vn.first_ms < 0 || vn.first_ms + vn.size > m)
      throw LayoutError(fmt::format("VN {} covers switches {}..{}, outside 0..{}", v, vn.first_ms,
                                    vn.first_ms + vn.size - 1, m - 1));
    if (vn.first_ms < next_free)
      throw LayoutError(fmt::format("VN {} (switches {}..{}) overlaps or precedes VN {} (which ends at switch {})", v,
                                    vn.first_ms, vn.first_ms + vn.size - 1, v - 1, next_free - 1));
    next_free = vn.first_ms + vn.size;
  }
}

std::vector<int> vn_of_switch(const VnLayout& layout) {
  validate_layout(layout);
  std::vector<int> owner(static_cast<size_t>(layout.num_ms), -1);
  for (size_t v = 0; v < layout.vns.size(); ++v)
    for (int i = 0; i < layout.vns[v].size; ++i) owner[static_cast<size_t>(layout.vns[v].first_ms + i)] = int(v);
  return owner;
}

}  // namespace maeri::codegen
