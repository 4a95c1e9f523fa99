// The experimental operators of ONNX's first opsets that CoreML converters (OnnxMLTools, WinMLTools) still write —
// ImageScaler, Affine and Crop; removed from ONNX in opset 10, run by ONNX Runtime — as operators the unit has:
// ImageScaler and Affine are channel affines, Crop a slice of the spatial axes. Their output shapes come from
// importer/onnx_shape_completion.cpp (ONNX's library has no schema for them).
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contracts/tensor_layout.hpp"

namespace maeri::importer {

namespace {

// A FLOATS attribute's values, empty when absent; non-finite values are the caller's error.
std::vector<double> float_list(const onnx::NodeProto& node, const std::string& key) {
  for (const auto& attribute : node.attribute())
    if (attribute.name() == key && attribute.type() == onnx::AttributeProto_AttributeType_FLOATS)
      return std::vector<double>(attribute.floats().begin(), attribute.floats().end());
  return {};
}

}  // namespace

// ImageScaler: y[n, c, …] = scale · x[n, c, …] + bias[c] (a CoreML model's preprocessing: mean subtraction).
std::string GraphReader::image_scaler(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const auto x = known_shape(node.input(0));
  if (!x || x->size() != 4 || *x != read.out_shape)
    return "image scaler: its input is not an image (N, C, H, W) of the output's shape" + std::string(kCut);
  const std::size_t channels = std::size_t((*x)[1]);
  std::vector<double> bias = float_list(node, "bias");
  if (bias.empty()) bias.assign(channels, 0.0);
  if (bias.size() != channels)
    fail(read.name, fmt::format("attribute 'bias': {} values for {} channels", bias.size(), channels));
  for (const double value : bias)
    if (!std::isfinite(value)) fail(read.name, fmt::format("attribute 'bias': expected finite floats, found {}", value));
  return channel_affine(read, node.input(0), std::vector<double>(channels, real(node, read.name, "scale", 1.0)),
                        std::move(bias));
}

// Affine: y = alpha · x + beta, element-wise.
std::string GraphReader::affine(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const auto x = known_shape(node.input(0));
  if (!x || (x->size() != 2 && x->size() != 4) || *x != read.out_shape)
    return "affine: of other than rank 2 (N, C) or 4 (N, C, H, W)" + std::string(kCut);
  const std::size_t channels = std::size_t((*x)[1]);
  return channel_affine(read, node.input(0), std::vector<double>(channels, real(node, read.name, "alpha", 1.0)),
                        std::vector<double>(channels, real(node, read.name, "beta", 0.0)));
}

// Crop: border (left, top, right, bottom) removed from an (N, C, H, W) tensor, or with scale (height, width) that
// many rows and columns kept from (top, left): a slice of axes 2 and 3.
std::string GraphReader::crop(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const auto x = known_shape(node.input(0));
  if (!x || x->size() != 4) return "crop: its input is not an image (N, C, H, W)" + std::string(kCut);
  const Dims border = ints(node, read.name, "border", {}), scale = ints(node, read.name, "scale", {});
  if (border.size() != 4 || (!scale.empty() && scale.size() != 2))
    fail(read.name, fmt::format("attributes border {} and scale {}: expected (left, top, right, bottom) and "
                                "nothing or (height, width)",
                                list(border), list(scale)));
  const std::int64_t left = border[0], top = border[1];
  const std::int64_t bottom = scale.empty() ? (*x)[2] - border[3] : top + scale[0];
  const std::int64_t right = scale.empty() ? (*x)[3] - border[2] : left + scale[1];
  std::vector<contracts::SliceAxis> axes_taken;
  const auto violation = std::min({left, top, border[2], border[3]}) < 0 || bottom > (*x)[2] || right > (*x)[3]
                             ? std::optional<std::string>("the crop reaches outside the image")
                             : contracts::onnx_slice(*x, {top, left}, {bottom, right}, {2, 3}, {}, axes_taken);
  if (violation)
    fail(read.name, fmt::format("crop of border {}{} from an image of shape {}: {}", list(border),
                                scale.empty() ? "" : " to " + list(scale), list(*x), *violation));
  if (!take_inputs(read, 1)) return skip_reason("Crop");
  network().operators[emit(read, contracts::OperatorKind::Slice)].slice = axes_taken;
  return "";
}

}  // namespace maeri::importer
