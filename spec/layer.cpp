// Derived sizes of a Layer (output extent, MAC count) and Network totals.
#include "spec/layer.hpp"

#include <fmt/format.h>

#include <string_view>
#include <tuple>

namespace maeri::spec {

const char* to_string(LayerType type) {
  return type == LayerType::Convolution ? "conv" : "fc";
}

std::int64_t Layer::output_x() const { return (X + 2 * padding - R) / stride + 1; }
std::int64_t Layer::output_y() const { return (Y + 2 * padding - S) / stride + 1; }

std::int64_t Layer::macs() const { return N * K * C * R * S * output_x() * output_y(); }

std::optional<ShapeViolation> shape_violation(const Layer& layer) {
  const auto out_of_range = [](const char* field, std::int64_t value, std::int64_t min, std::int64_t max) {
    return std::optional<ShapeViolation>(
        ShapeViolation{field, fmt::format("expected an integer in [{}, {}], found {}", min, max, value)});
  };
  if (layer.N < 1 || layer.N > kMaxBatch) return out_of_range("N", layer.N, 1, kMaxBatch);
  const std::pair<const char*, std::int64_t> sizes[] = {{"K", layer.K}, {"C", layer.C}, {"R", layer.R},
                                                        {"S", layer.S}, {"X", layer.X}, {"Y", layer.Y}};
  for (const auto& [field, value] : sizes)
    if (value < 1 || value > kMaxLayerDimension) return out_of_range(field, value, 1, kMaxLayerDimension);
  if (layer.stride < 1 || layer.stride > kMaxStride) return out_of_range("stride", layer.stride, 1, kMaxStride);
  if (layer.padding < 0 || layer.padding > kMaxLayerDimension)
    return out_of_range("padding", layer.padding, 0, kMaxLayerDimension);
  if (layer.R > layer.X + 2 * layer.padding)
    return ShapeViolation{"R", fmt::format("expected R <= X + 2*padding = {}, found {}", layer.X + 2 * layer.padding,
                                           layer.R)};
  if (layer.S > layer.Y + 2 * layer.padding)
    return ShapeViolation{"S", fmt::format("expected S <= Y + 2*padding = {}, found {}", layer.Y + 2 * layer.padding,
                                           layer.S)};
  if (layer.type == LayerType::FullyConnected) {
    // FC is a convolution with R = S = X = Y = 1, stride 1 and no padding (docs/workload-spec.md).
    const std::tuple<const char*, std::int64_t, std::int64_t> fixed[] = {
        {"R", layer.R, 1}, {"S", layer.S, 1}, {"X", layer.X, 1}, {"Y", layer.Y, 1}, {"stride", layer.stride, 1},
        {"padding", layer.padding, 0}};
    for (const auto& [field, value, expected] : fixed)
      if (value != expected)
        return ShapeViolation{field, fmt::format("a fully connected layer has {} = {}, found {}", field, expected,
                                                 value)};
  }
  // Every derived size stays inside int64 (Layer's products are computed in it).
  const long double n = layer.N, k = layer.K, c = layer.C, r = layer.R, s = layer.S, x = layer.X, y = layer.Y;
  const long double output_x = static_cast<long double>(layer.output_x());
  const long double output_y = static_cast<long double>(layer.output_y());
  const std::pair<const char*, long double> sizes_of_tensors[] = {
      {"multiply-accumulates", n * k * c * r * s * output_x * output_y},
      {"input elements", n * c * x * y},
      {"weight elements", k * c * r * s},
      {"output elements", n * k * output_x * output_y}};
  for (const auto& [what, size] : sizes_of_tensors) {
    const bool macs = std::string_view(what) == "multiply-accumulates";
    if (size > (macs ? kMaxLayerMacs : kMaxTensorElements))
      return ShapeViolation{"", fmt::format("layer too large: more than {} {}", macs ? "4e18" : "1e18", what)};
  }
  return std::nullopt;
}

std::int64_t Network::total_macs() const {
  std::int64_t total = 0;
  for (const auto& layer : layers) total += layer.macs();
  return total;
}

}  // namespace maeri::spec
