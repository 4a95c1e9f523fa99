// Reads a workload spec (kind: workload): an ordered list of CONV, FC and GEMM layers sharing one batch size.
// Output sizes are derived and checked here, so every later stage can trust a Layer.
#include <fmt/format.h>

#include <set>

#include "contracts/spec_loader.hpp"
#include "contracts/strict_yaml.hpp"

namespace maeri::contracts {
namespace {

// Sizes are read within the shared limits (contracts/layer.hpp); the rules between them are checked once the whole
// layer is read, by shape_violation().
Layer read_convolution(StrictMap& entry, Layer layer) {
  layer.K = entry.integer("K", 1, kMaxLayerDimension);
  layer.C = entry.integer("C", 1, kMaxLayerDimension);
  layer.R = entry.integer("R", 1, kMaxLayerDimension);
  layer.S = entry.integer("S", 1, kMaxLayerDimension);
  layer.X = entry.integer("X", 1, kMaxLayerDimension);
  layer.Y = entry.integer("Y", 1, kMaxLayerDimension);
  // Per-axis fields take one integer for both axes or a list [along X, along Y].
  const auto stride = entry.optional_integer_pair("stride", 1, kMaxStride);
  if (!stride)
    entry.fail("stride", fmt::format("missing required field (expected an integer in [1, {}] or a list [along X, "
                                     "along Y])",
                                     kMaxStride));
  const auto padding = entry.optional_integer_pair("padding", 0, kMaxLayerDimension);
  if (!padding) entry.fail("padding", "missing required field (expected an integer >= 0 or a list [along X, along Y])");
  const auto dilation = entry.optional_integer_pair("dilation", 1, kMaxDilation).value_or(std::array<std::int64_t, 2>{1, 1});
  layer.stride_x = (*stride)[0];
  layer.stride_y = (*stride)[1];
  layer.padding_x = (*padding)[0];
  layer.padding_y = (*padding)[1];
  layer.dilation_x = dilation[0];
  layer.dilation_y = dilation[1];
  layer.groups = entry.optional_integer("groups", 1, kMaxLayerDimension).value_or(1);
  if (const auto violation = workload_padding_violation(layer)) entry.fail(violation->field, violation->message);
  return layer;
}

// A GEMM M×K by K×N (per batch element) as the 1×1 convolution N = batch, K = N, C = K, X = M, Y = 1
// (docs/workload-spec.md): the B operand's columns are the filters, the A operand's rows the input positions.
Layer read_gemm(StrictMap& entry, Layer layer) {
  const std::int64_t m = entry.integer("M", 1, kMaxLayerDimension);
  const std::int64_t k = entry.integer("K", 1, kMaxLayerDimension);
  const std::int64_t n = entry.integer("N", 1, kMaxLayerDimension);
  const std::int64_t batch = entry.optional_integer("batch", 1, kMaxBatch).value_or(1);
  if (layer.N * batch > kMaxBatch)
    entry.fail("batch", fmt::format("expected the workload's batch ({}) times the layer's at most {}, found {}",
                                    layer.N, kMaxBatch, layer.N * batch));
  Layer gemm = gemm_layer(layer.N * batch, m, k, n);
  gemm.name = layer.name;
  return gemm;
}

// Optional declared output sizes catch shape mistakes in hand-written networks.
void check_declared_outputs(StrictMap& entry, const Layer& layer) {
  if (const auto declared = entry.optional_integer("X_out", 1, kMaxLayerDimension)) {
    if (*declared != layer.output_x()) {
      entry.fail("X_out", fmt::format("declared {} but (X + 2*padding_x - (R-1)*dilation_x - 1)/stride_x + 1 = {}", *declared,
                                      layer.output_x()));
    }
  }
  if (const auto declared = entry.optional_integer("Y_out", 1, kMaxLayerDimension)) {
    if (*declared != layer.output_y()) {
      entry.fail("Y_out", fmt::format("declared {} but (Y + 2*padding_y - (S-1)*dilation_y - 1)/stride_y + 1 = {}", *declared,
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

LayerType layer_type_of(const std::string& name) {
  if (name == "fc") return LayerType::FullyConnected;
  if (name == "gemm") return LayerType::Gemm;
  return LayerType::Convolution;
}

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
  const std::string name = root.text("name");
  const std::int64_t batch = root.has("batch") ? root.integer("batch", 1, kMaxBatch) : 1;
  const YAML::Node layers = root.sequence("layers");
  std::set<std::string> names;
  std::vector<Layer> chain;
  long double total_macs = 0;  // Network::total_macs() must fit int64 too
  for (std::size_t index = 0; index < layers.size(); ++index) {
    StrictMap entry = root.element_map("layers", layers, index);
    Layer layer;
    layer.name = entry.text("name");
    if (!names.insert(layer.name).second) {
      entry.fail("name", fmt::format("duplicate layer name '{}' (names must be unique)", layer.name));
    }
    layer.N = batch;
    layer.type = layer_type_of(entry.choice("type", {"conv", "fc", "gemm"}));
    if (layer.type == LayerType::Convolution) layer = read_convolution(entry, layer);
    if (layer.type == LayerType::FullyConnected) layer = read_fully_connected(entry, layer);
    if (layer.type == LayerType::Gemm) layer = read_gemm(entry, layer);
    check_layer_shape(entry, layer);
    if (layer.type == LayerType::Convolution) check_declared_outputs(entry, layer);
    entry.finish();
    total_macs += static_cast<long double>(layer.macs());
    if (total_macs > kMaxMacsForInt64Counts) {
      entry.fail_here("workload too large: its layers add up to more than 4e18 multiply-accumulates");
    }
    chain.push_back(layer);
  }
  root.finish();
  return chain_network(name, std::move(chain));
}

}  // namespace maeri::contracts
