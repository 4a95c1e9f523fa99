// Reads a workload spec (kind: workload): an ordered list of CONV and FC layers sharing one batch size.
// Output sizes are derived and checked here, so every later stage can trust a Layer.
#include <fmt/format.h>

#include <set>

#include "mapper/spec_loader.hpp"
#include "mapper/strict_yaml.hpp"

namespace maeri::mapper {
namespace {

constexpr std::int64_t kMaxDimension = std::int64_t{1} << 24;
constexpr std::int64_t kMaxStride = 64;
constexpr long double kMaxProduct = 4.0e18L;  // keeps every product of sizes, and a network's total, inside int64

Layer read_convolution(StrictMap& entry, Layer layer) {
  layer.K = entry.integer("K", 1, kMaxDimension);
  layer.C = entry.integer("C", 1, kMaxDimension);
  layer.R = entry.integer("R", 1, kMaxDimension);
  layer.S = entry.integer("S", 1, kMaxDimension);
  layer.X = entry.integer("X", 1, kMaxDimension);
  layer.Y = entry.integer("Y", 1, kMaxDimension);
  layer.stride = entry.integer("stride", 1, kMaxStride);
  layer.padding = entry.integer("padding", 0, kMaxDimension);
  if (layer.padding >= layer.R || layer.padding >= layer.S) {
    entry.fail("padding", fmt::format("expected padding smaller than the filter (R={}, S={}), found {}",
                                      layer.R, layer.S, layer.padding));
  }
  if (layer.R > layer.X + 2 * layer.padding) {
    entry.fail("R", fmt::format("expected R <= X + 2*padding = {}, found {}",
                                layer.X + 2 * layer.padding, layer.R));
  }
  if (layer.S > layer.Y + 2 * layer.padding) {
    entry.fail("S", fmt::format("expected S <= Y + 2*padding = {}, found {}",
                                layer.Y + 2 * layer.padding, layer.S));
  }
  // Optional declared output sizes catch shape mistakes in hand-written networks.
  if (const auto declared = entry.optional_integer("X_out", 1, kMaxDimension)) {
    if (*declared != layer.output_x()) {
      entry.fail("X_out", fmt::format("declared {} but (X + 2*padding - R)/stride + 1 = {}", *declared,
                                      layer.output_x()));
    }
  }
  if (const auto declared = entry.optional_integer("Y_out", 1, kMaxDimension)) {
    if (*declared != layer.output_y()) {
      entry.fail("Y_out", fmt::format("declared {} but (Y + 2*padding - S)/stride + 1 = {}", *declared,
                                      layer.output_y()));
    }
  }
  return layer;
}

Layer read_fully_connected(StrictMap& entry, Layer layer) {
  layer.K = entry.integer("K", 1, kMaxDimension);
  layer.C = entry.integer("C", 1, kMaxDimension);
  return layer;
}

}  // namespace

std::optional<std::string> layer_size_violation(const Layer& layer) {
  const long double n = layer.N, k = layer.K, c = layer.C, r = layer.R, s = layer.S, x = layer.X, y = layer.Y;
  const long double output_x = static_cast<long double>(layer.output_x());
  const long double output_y = static_cast<long double>(layer.output_y());
  const std::pair<const char*, long double> sizes[] = {{"multiply-accumulates", n * k * c * r * s * output_x * output_y},
                                                       {"input elements", n * c * x * y},
                                                       {"weight elements", k * c * r * s},
                                                       {"output elements", n * k * output_x * output_y}};
  for (const auto& [what, size] : sizes) {
    if (size > kMaxProduct) return fmt::format("layer too large: more than 4e18 {}", what);
  }
  return std::nullopt;
}

Network load_workload(const std::string& path) {
  StrictMap root(load_yaml_file(path), path, "");
  if (root.choice("kind", {"hardware", "workload"}) != "workload") {
    root.fail("kind", "expected 'workload' (this file is a hardware spec; use it with --hardware)");
  }
  Network network;
  network.name = root.text("name");
  const std::int64_t batch = root.has("batch") ? root.integer("batch", 1, 4096) : 1;
  const YAML::Node layers = root.sequence("layers");
  std::set<std::string> names;
  long double total_macs = 0;  // Network::total_macs() must fit int64 too
  for (std::size_t index = 0; index < layers.size(); ++index) {
    StrictMap entry = root.element_map("layers", layers, index);
    Layer layer;
    layer.name = entry.text("name");
    if (!names.insert(layer.name).second) {
      entry.fail("name", fmt::format("duplicate layer name '{}' (names must be unique)", layer.name));
    }
    layer.N = batch;
    layer.type = entry.choice("type", {"conv", "fc"}) == "conv" ? LayerType::Convolution
                                                                : LayerType::FullyConnected;
    layer = layer.type == LayerType::Convolution ? read_convolution(entry, layer)
                                                 : read_fully_connected(entry, layer);
    if (const auto violation = layer_size_violation(layer)) entry.fail_here(*violation);
    entry.finish();
    total_macs += static_cast<long double>(layer.macs());
    if (total_macs > kMaxProduct) {
      entry.fail_here("workload too large: its layers add up to more than 4e18 multiply-accumulates");
    }
    network.layers.push_back(layer);
  }
  root.finish();
  return network;
}

}  // namespace maeri::mapper
