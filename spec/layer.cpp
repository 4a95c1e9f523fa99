// Derived sizes of a Layer (output extent, MAC count) and Network totals.
#include "spec/layer.hpp"

namespace maeri::spec {

const char* to_string(LayerType type) {
  return type == LayerType::Convolution ? "conv" : "fc";
}

std::int64_t Layer::output_x() const { return (X + 2 * padding - R) / stride + 1; }
std::int64_t Layer::output_y() const { return (Y + 2 * padding - S) / stride + 1; }

std::int64_t Layer::macs() const { return N * K * C * R * S * output_x() * output_y(); }

std::int64_t Network::total_macs() const {
  std::int64_t total = 0;
  for (const auto& layer : layers) total += layer.macs();
  return total;
}

}  // namespace maeri::spec
