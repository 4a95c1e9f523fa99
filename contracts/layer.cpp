// Derived sizes of a Layer (output extent, MAC count) and the shape rules.
#include "contracts/layer.hpp"

#include <fmt/format.h>

#include <string_view>
#include <tuple>

namespace maeri::contracts {

const char* to_string(LayerType type) {
  switch (type) {
    case LayerType::Convolution: return "conv";
    case LayerType::FullyConnected: return "fc";
    case LayerType::Gemm: return "gemm";
  }
  return "?";
}


std::int64_t Layer::macs() const { return N * K * group_channels() * R * S * output_x() * output_y(); }

Layer gemm_layer(std::int64_t batch, std::int64_t m, std::int64_t k, std::int64_t n) {
  Layer layer;
  layer.type = LayerType::Gemm;
  layer.N = batch;
  layer.K = n;  // B's columns are the filters
  layer.C = k;  // the reduction
  layer.X = m;  // A's rows are the input positions
  return layer;
}

bool same_shape(const Layer& a, const Layer& b) {
  if (a.type != b.type) return false;
  for (const LayerShapeField& field : kLayerShapeFields)
    if (a.*field.member != b.*field.member) return false;
  return true;
}

std::string shape_text(const Layer& layer) {
  return fmt::format("{} N={} K={} C={} R={} S={} X={} Y={} stride {}x{} padding {}x{} dilation {}x{} groups {}",
                     to_string(layer.type), layer.N, layer.K, layer.C, layer.R, layer.S, layer.X, layer.Y,
                     layer.stride_x, layer.stride_y, layer.padding_x, layer.padding_y, layer.dilation_x,
                     layer.dilation_y, layer.groups);
}

std::optional<ShapeViolation> workload_padding_violation(const Layer& layer) {
  if (layer.padding_x < layer.filter_span_x() && layer.padding_y < layer.filter_span_y()) return std::nullopt;
  return ShapeViolation{"padding", fmt::format("expected padding smaller than the dilated filter ((R-1)*dilation_x+1 "
                                               "= {}, (S-1)*dilation_y+1 = {}), found {}x{}",
                                               layer.filter_span_x(), layer.filter_span_y(), layer.padding_x,
                                               layer.padding_y)};
}

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
  const std::tuple<const char*, std::int64_t, std::int64_t, std::int64_t> per_axis[] = {
      {"stride_x", layer.stride_x, 1, kMaxStride},          {"stride_y", layer.stride_y, 1, kMaxStride},
      {"padding_x", layer.padding_x, 0, kMaxLayerDimension}, {"padding_y", layer.padding_y, 0, kMaxLayerDimension},
      {"dilation_x", layer.dilation_x, 1, kMaxDilation},    {"dilation_y", layer.dilation_y, 1, kMaxDilation},
      {"groups", layer.groups, 1, kMaxLayerDimension}};
  for (const auto& [field, value, min, max] : per_axis)
    if (value < min || value > max) return out_of_range(field, value, min, max);
  if (layer.C % layer.groups != 0 || layer.K % layer.groups != 0)
    return ShapeViolation{"groups", fmt::format("expected a divisor of C = {} and of K = {}, found {}", layer.C,
                                                layer.K, layer.groups)};
  if (layer.filter_span_x() > layer.X + 2 * layer.padding_x)
    return ShapeViolation{"R", fmt::format("expected (R-1)*dilation_x + 1 <= X + 2*padding_x = {}, found {}",
                                           layer.X + 2 * layer.padding_x, layer.filter_span_x())};
  if (layer.filter_span_y() > layer.Y + 2 * layer.padding_y)
    return ShapeViolation{"S", fmt::format("expected (S-1)*dilation_y + 1 <= Y + 2*padding_y = {}, found {}",
                                           layer.Y + 2 * layer.padding_y, layer.filter_span_y())};
  if (layer.type != LayerType::Convolution) {
    // FC is a convolution with R = S = X = Y = 1 and one group, a GEMM one with R = S = Y = 1 (X = M), both with
    // unit stride and dilation and no padding; a GEMM's groups are independent products, each with its own B (a
    // matrix product of two activations, contracts/matrix_product.hpp; docs/workload-spec.md).
    const bool fc = layer.type == LayerType::FullyConnected;
    const std::tuple<const char*, std::int64_t, std::int64_t> fixed[] = {
        {"R", layer.R, 1},
        {"S", layer.S, 1},
        {"X", fc ? layer.X : 1, 1},
        {"Y", layer.Y, 1},
        {"stride_x", layer.stride_x, 1},
        {"stride_y", layer.stride_y, 1},
        {"padding_x", layer.padding_x, 0},
        {"padding_y", layer.padding_y, 0},
        {"dilation_x", layer.dilation_x, 1},
        {"dilation_y", layer.dilation_y, 1},
        {"groups", fc ? layer.groups : 1, 1}};
    for (const auto& [field, value, expected] : fixed)
      if (value != expected)
        return ShapeViolation{field, fmt::format("a {} layer has {} = {}, found {}",
                                                 fc ? "fully connected" : "GEMM", field, expected, value)};
  }
  // Every derived size stays inside int64 (Layer's products are computed in it).
  const long double n = layer.N, k = layer.K, c = layer.C, r = layer.R, s = layer.S, x = layer.X, y = layer.Y;
  const long double group_c = static_cast<long double>(layer.group_channels());
  const long double output_x = static_cast<long double>(layer.output_x());
  const long double output_y = static_cast<long double>(layer.output_y());
  const std::pair<const char*, long double> sizes_of_tensors[] = {
      {"multiply-accumulates", n * k * group_c * r * s * output_x * output_y},
      {"input elements", n * c * x * y},
      {"weight elements", k * group_c * r * s},
      {"output elements", n * k * output_x * output_y}};
  for (const auto& [what, size] : sizes_of_tensors) {
    const bool macs = std::string_view(what) == "multiply-accumulates";
    if (size > (macs ? kMaxMacsForInt64Counts : kMaxTensorElementsForInt64Bytes))
      return ShapeViolation{"", fmt::format("layer too large: more than {} {}", macs ? "4e18" : "1e18", what)};
  }
  return std::nullopt;
}

}  // namespace maeri::contracts
