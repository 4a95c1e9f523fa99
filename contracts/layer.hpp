// The Layer contract shared by the whole chain: one CONV, FC or GEMM layer in the mRNA paper's notation,
// (a network of layers is contracts/network.hpp). FC is a convolution with R = S = X = Y = 1; a GEMM (M×K by K×N, batch B)
// is the 1×1 convolution N = B, K = N, C = K, X = M, Y = 1 (docs/workload-spec.md). A grouped convolution is
// `groups` independent convolutions of C/groups channels and K/groups filters; dilation spaces the filter taps.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maeri::contracts {

enum class LayerType { Convolution, FullyConnected, Gemm };

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
  std::int64_t stride_x = 1, stride_y = 1;      // output step along X and along Y
  std::int64_t padding_x = 0, padding_y = 0;    // zero padding on each side, along X and along Y
  std::int64_t dilation_x = 1, dilation_y = 1;  // distance between filter taps along X and along Y
  std::int64_t groups = 1;                      // divides C and K; each group sees only its C/groups channels

  // Channels and filters of one group, the extents every group's convolution tiles (docs/model.md, "Groups").
  std::int64_t group_channels() const { return C / groups; }
  std::int64_t group_filters() const { return K / groups; }
  // Input rows (columns) one filter window spans: (R − 1)·dilation_x + 1, and likewise along Y.
  std::int64_t filter_span_x() const { return (R - 1) * dilation_x + 1; }
  std::int64_t filter_span_y() const { return (S - 1) * dilation_y + 1; }
  // X' = floor((X + 2·padding_x − span_x) / stride_x) + 1, and likewise Y' (mRNA's X', Y').
  // Inline: the model asks for them for every mapping it costs.
  std::int64_t output_x() const { return (X + 2 * padding_x - filter_span_x()) / stride_x + 1; }
  std::int64_t output_y() const { return (Y + 2 * padding_y - filter_span_y()) / stride_y + 1; }
  // Multiply-accumulates of the layer: N·K·(C/groups)·R·S·X'·Y'.
  std::int64_t macs() const;
  std::int64_t input_elements() const { return N * C * X * Y; }
  std::int64_t weight_elements() const { return K * group_channels() * R * S; }  // [K][C/groups][R][S]
  std::int64_t output_elements() const { return N * K * output_x() * output_y(); }
};

// The integer fields of a layer's shape, in the order every file format stores them (mapping files, images):
// one list, so a new field reaches every reader, writer and comparison at once.
struct LayerShapeField {
  const char* name;
  std::int64_t Layer::*member;
};
inline constexpr std::array<LayerShapeField, 14> kLayerShapeFields = {{
    {"N", &Layer::N},
    {"K", &Layer::K},
    {"C", &Layer::C},
    {"R", &Layer::R},
    {"S", &Layer::S},
    {"X", &Layer::X},
    {"Y", &Layer::Y},
    {"stride_x", &Layer::stride_x},
    {"stride_y", &Layer::stride_y},
    {"padding_x", &Layer::padding_x},
    {"padding_y", &Layer::padding_y},
    {"dilation_x", &Layer::dilation_x},
    {"dilation_y", &Layer::dilation_y},
    {"groups", &Layer::groups},
}};
// A GEMM of `batch` products of an M×K matrix A and a K×N matrix B as the Layer it is: the 1×1 convolution
// N = batch, K = n, C = k, X = m, Y = 1 (docs/workload-spec.md). The one place that mapping is written down.
Layer gemm_layer(std::int64_t batch, std::int64_t m, std::int64_t k, std::int64_t n);
// Whether two layers have the same type and shape (names aside).
bool same_shape(const Layer& a, const Layer& b);
// "conv N=1 K=8 C=3 R=3 S=3 X=10 Y=10 stride 1x1 padding 1x1 dilation 1x1 groups 1" for messages.
std::string shape_text(const Layer& layer);

// Limits every layer obeys wherever it comes from (workload YAML, mapping file, configuration image): they keep
// every product of sizes inside int64 and every tensor addressable.
inline constexpr std::int64_t kMaxLayerDimension = std::int64_t{1} << 24;  // K, C, R, S, X, Y
inline constexpr std::int64_t kMaxBatch = 4096;                            // N
// Strides up to 1024 (an STFT written as a Conv hops 160 or 256 samples): the configuration image holds each as a
// u32 and nothing else carries one, and X' · stride ≤ X + 2 · padding keeps every window position inside int.
inline constexpr std::int64_t kMaxStride = 1024;
inline constexpr std::int64_t kMaxDilation = 64;
// Multiply-accumulates of a layer, and of a workload in total: the counts derived from them (multiplications,
// additions, cycles) still fit int64 (at most 9.2e18).
inline constexpr long double kMaxMacsForInt64Counts = 4.0e18L;
// Elements of each tensor: at most 8-byte accumulators each, their bytes still fit int64 (SDM and DRAM counts).
// Configuration images have far smaller limits of their own (codegen/image_validation.hpp).
inline constexpr long double kMaxTensorElementsForInt64Bytes = 1.0e18L;

// A rule a layer shape breaks: the field as the specs name it ("R", "padding_x", …; empty for the whole layer).
struct ShapeViolation {
  std::string field;
  std::string message;
};

// The first rule of a well-formed layer that `layer` breaks, nullopt if none: every size within its limit, groups
// dividing C and K, the dilated filter no larger than the padded input, an FC layer 1×1 everywhere, a GEMM a
// 1×1 convolution over Y = 1 without padding or dilation (its groups are independent products), and at most kMaxMacsForInt64Counts
// multiply-accumulates and kMaxTensorElementsForInt64Bytes elements per tensor. The one check behind every reader of layer shapes (workload, mapping file, image).
// Workload files add an authoring rule of their own (workload_padding_violation).
std::optional<ShapeViolation> shape_violation(const Layer& layer);

// The authoring rule workload files add to shape_violation (docs/workload-spec.md): padding narrower than the
// dilated filter, since wider padding gives outputs that see only zeros, most likely a typo (the fabric itself would
// compute them). Field "padding"; nullopt when the layer obeys it. ONNX import applies it too, so that what it
// writes loads.
std::optional<ShapeViolation> workload_padding_violation(const Layer& layer);

}  // namespace maeri::contracts
