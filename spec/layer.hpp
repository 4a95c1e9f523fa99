// The Layer contract shared by the whole chain: one CONV or FC layer in the mRNA paper's notation,
// and a Network (ordered list of layers). FC is a convolution with R = S = X = Y = 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maeri::spec {

enum class LayerType { Convolution, FullyConnected };

const char* to_string(LayerType type);

struct Layer {
  std::string name;
  LayerType type = LayerType::Convolution;
  std::int64_t N = 1;  // batch
  std::int64_t K = 1;  // filters (output channels)
  std::int64_t C = 1;  // input channels
  std::int64_t R = 1;  // filter extent along X
  std::int64_t S = 1;  // filter extent along Y
  std::int64_t X = 1;  // input extent (before padding)
  std::int64_t Y = 1;
  std::int64_t stride = 1;   // same stride along X and Y
  std::int64_t padding = 0;  // zero padding on each side, along X and Y

  // X' = floor((X + 2·padding − R) / stride) + 1, and likewise Y' (mRNA's X', Y').
  std::int64_t output_x() const;
  std::int64_t output_y() const;
  // Multiply-accumulates of the layer: N·K·C·R·S·X'·Y'.
  std::int64_t macs() const;
  std::int64_t input_elements() const { return N * C * X * Y; }
  std::int64_t weight_elements() const { return K * C * R * S; }
  std::int64_t output_elements() const { return N * K * output_x() * output_y(); }
};

// Limits every layer obeys wherever it comes from (workload YAML, mapping file, configuration image): they keep
// every product of sizes inside int64 and every tensor addressable.
inline constexpr std::int64_t kMaxLayerDimension = std::int64_t{1} << 24;  // K, C, R, S, X, Y
inline constexpr std::int64_t kMaxBatch = 4096;                            // N
inline constexpr std::int64_t kMaxStride = 64;
inline constexpr long double kMaxLayerMacs = 4.0e18L;  // also bounds a workload's total MACs
// Elements of each tensor: at most 8-byte accumulators each, their bytes still fit int64 (SDM and DRAM counts).
inline constexpr long double kMaxTensorElements = 1.0e18L;

// A rule a layer shape breaks: the field as the specs name it ("R", "padding", …; empty for the whole layer).
struct ShapeViolation {
  std::string field;
  std::string message;
};

// The first rule of a well-formed layer that `layer` breaks, nullopt if none: every size within its limit, the
// filter no larger than the padded input, an FC layer 1×1 everywhere, and at most kMaxLayerMacs
// multiply-accumulates and kMaxTensorElements elements per tensor. The one check behind every reader of layer shapes (workload, mapping file, image).
// Workload files add an authoring rule of their own (padding smaller than the filter, docs/workload-spec.md).
std::optional<ShapeViolation> shape_violation(const Layer& layer);

struct Network {
  std::string name;
  std::vector<Layer> layers;
  std::int64_t total_macs() const;
};

}  // namespace maeri::spec
