// Placement of a tile's VNs and elements (orderings documented in tile_placement.hpp).
#include "codegen/tile_placement.hpp"

#include <fmt/format.h>

#include <tuple>

namespace maeri::codegen {

bool PhaseShape::operator<(const PhaseShape& other) const {
  return std::tie(t_r, t_s, t_c, t_k, t_n, t_x, t_y, t_g) <
         std::tie(other.t_r, other.t_s, other.t_c, other.t_k, other.t_n, other.t_x, other.t_y, other.t_g);
}

TilePlacement place_tile(int num_ms, const PhaseShape& shape, bool forwarding) {
  const int size = shape.vn_size(), count = shape.vn_count();
  if (size * count > num_ms)
    throw LayoutError(fmt::format("the tile needs {} x {} = {} multiplier switches, the fabric has {}", count, size,
                                  size * count, num_ms));
  TilePlacement placement;
  placement.shape = shape;
  placement.layout = VnLayout::packed(num_ms, size, count);
  for (int g = 0; g < shape.t_g; ++g)
    for (int k = 0; k < shape.t_k; ++k)
      for (int n = 0; n < shape.t_n; ++n)
        for (int x = 0; x < shape.t_x; ++x)
          for (int y = 0; y < shape.t_y; ++y) placement.vn_offsets.push_back({k, n, x, y, g});
  placement.elements.resize(static_cast<size_t>(size));
  for (int r = 0; r < shape.t_r; ++r)
    for (int c = 0; c < shape.t_c; ++c)
      for (int s = 0; s < shape.t_s; ++s)
        placement.elements[static_cast<size_t>((r * shape.t_c + c) * shape.t_s + (shape.t_s - 1 - s))] = {r, s, c};
  placement.take_forward.assign(static_cast<size_t>(num_ms), false);
  if (forwarding)
    for (int v = 0; v < count; ++v)
      for (int e = 0; e < size; ++e)
        if (placement.elements[static_cast<size_t>(e)].s < shape.t_s - 1)
          placement.take_forward[static_cast<size_t>(v * size + e)] = true;
  return placement;
}

bool phase_forwards(const contracts::Layer& layer, const contracts::Mapping& tile, const PhaseShape& shape) {
  return contracts::phase_uses_mn_forwarding(layer, tile, shape.t_s);
}

}  // namespace maeri::codegen
