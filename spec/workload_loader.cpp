// Reads a workload spec (kind: workload): an ordered list of CONV and FC layers sharing one batch size.
// Output sizes are derived and checked here, so every later stage can trust a Layer.
#include <fmt/format.h>

#include <set>

#include "spec/spec_loader.hpp"
#include "spec/strict_yaml.hpp"

namespace maeri::spec {
namespace {

// Sizes are read within the shared limits (spec/layer.hpp); the rules between them are checked once the whole
// layer is read, by shape_violation().
Layer read_convolution(StrictMap& entry, Layer layer) {
  layer.K = entry.integer("K", 1, kMaxLayerDimension);
  layer.C = entry.integer("C", 1, kMaxLayerDimension);
  layer.R = entry.integer("R", 1, kMaxLayerDimension);
  layer.S = entry.integer("S", 1, kMaxLayerDimension);
  layer.X = entry.integer("X", 1, kMaxLayerDimension);
  layer.Y = entry.integer("Y", 1, kMaxLayerDimension);
  layer.stride = entry.integer("stride", 1, kMaxStride);
  layer.padding = entry.integer("padding", 0, kMaxLayerDimension);
  // An authoring rule for hand-written networks: padding as wide as the filter gives outputs that see only
  // zeros, most likely a typo (the fabric itself would compute them).
  if (layer.padding >= layer.R || layer.padding >= layer.S) {
    entry.fail("padding", fmt::format("expected padding smaller than the filter (R={}, S={}), found {}",
                                      layer.R, layer.S, layer.padding));
  }
  return layer;
}

// Optional declared output sizes catch shape mistakes in hand-written networks.
void check_declared_outputs(StrictMap& entry, const Layer& layer) {
  if (const auto declared = entry.optional_integer("X_out", 1, kMaxLayerDimension)) {
    if (*declared != layer.output_x()) {
      entry.fail("X_out", fmt::format("declared {} but (X + 2*padding - R)/stride + 1 = {}", *declared,
                                      layer.output_x()));
    }
  }
  if (const auto declared = entry.optional_integer("Y_out", 1, kMaxLayerDimension)) {
    if (*declared != layer.output_y()) {
      entry.fail("Y_out", fmt::format("declared {} but (Y + 2*padding - S)/stride + 1 = {}", *declared,
                                      layer.output_y()));
    }
  }
}

Layer read_fully_connected(StrictMap& entry, Layer layer) {
  layer.K = entry.integer("K", 1, kMaxLayerDimension);
  layer.C = entry.integer("C", 1, kMaxLayerDimension);
  return layer;
}

}  // namespace

void check_layer_shape(const StrictMap& map, const Layer& layer) {
  const auto violation = shape_violation(layer);
  if (!violation) return;
  if (violation->field.empty()) map.fail_here(violation->message);
  map.fail(violation->field, violation->message);
}

Network load_workload(const std::string& path) {
  StrictMap root(load_yaml_file(path), path, "");
  if (root.choice("kind", {"hardware", "workload"}) != "workload") {
    root.fail("kind", "expected 'workload' (this file is a hardware spec; use it with --hardware)");
  }
  Network network;
  network.name = root.text("name");
  const std::int64_t batch = root.has("batch") ? root.integer("batch", 1, kMaxBatch) : 1;
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
    check_layer_shape(entry, layer);
    if (layer.type == LayerType::Convolution) check_declared_outputs(entry, layer);
    entry.finish();
    total_macs += static_cast<long double>(layer.macs());
    if (total_macs > kMaxLayerMacs) {
      entry.fail_here("workload too large: its layers add up to more than 4e18 multiply-accumulates");
    }
    network.layers.push_back(layer);
  }
  root.finish();
  return network;
}

}  // namespace maeri::spec
