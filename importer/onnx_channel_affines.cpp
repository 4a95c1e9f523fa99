// Channel affines beside the fabric (y = x·scale[c] + shift[c] along axis 1): a BatchNormalization, or a Mul or Add
// by a constant of one value per channel, that did not fold into the layer before it (onnx_layer_folding.cpp).
#include "importer/onnx_folded_parameters.hpp"
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <cmath>

namespace maeri::importer {

// y = x·scale[c] + shift[c] along axis 1 of a rank-2 or rank-4 ONNX tensor `x`, as a channel affine reading the
// constants NAME.scale and NAME.shift, whose values join the weights; the skip reason when x is none.
std::string GraphReader::channel_affine(OperatorNode& read, const std::string& x, std::vector<double> scale,
                                        std::vector<double> shift) {
  const std::string& name = read.name;
  const auto activation_tensor = activation(x);
  if (!activation_tensor) return "its input is a constant or of unknown shape" + std::string(kCut);
  const std::int64_t channels = std::int64_t(scale.size());
  const std::size_t scale_tensor = add_tensor(name + ".scale", {channels}, true);
  const std::size_t shift_tensor = add_tensor(name + ".shift", {channels}, true);
  result_.weights[network().tensors[scale_tensor].name] = std::move(scale);
  result_.weights[network().tensors[shift_tensor].name] = std::move(shift);
  read.inputs = {*activation_tensor, scale_tensor, shift_tensor};
  emit(read, contracts::OperatorKind::ChannelAffine);
  return "";
}

// A BatchNormalization that did not fold into the layer before it (inference, constant parameters): a channel
// affine of scale γ/√(σ²+ε) and shift β − μ·scale, in double.
std::string GraphReader::batch_normalization(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& name = read.name;
  const auto x = node.input_size() == 5 ? known_shape(node.input(0)) : std::nullopt;
  if (!x || (x->size() != 2 && x->size() != 4) || *x != read.out_shape)
    return "normalisation: a batch normalization of other than rank 2 (N, C) or 4 (N, C, H, W)" + std::string(kCut);
  if (integer(node, name, "training_mode", 0) != 0 || (node.output_size() > 1 && !node.output(1).empty()))
    return "normalisation: a batch normalization in training mode (running statistics)" + std::string(kCut);
  const auto gamma = values(node, 1), beta = values(node, 2), mean = values(node, 3), variance = values(node, 4);
  if (!gamma || !beta || !mean || !variance)
    return "normalisation: a batch normalization with parameters computed at run time" + std::string(kCut);
  const std::size_t channels = std::size_t((*x)[1]);
  if (gamma->size() != channels || beta->size() != channels || mean->size() != channels ||
      variance->size() != channels)
    fail(name, fmt::format("BatchNormalization of {} channels has {} scales, {} biases, {} means and {} variances",
                           channels, gamma->size(), beta->size(), mean->size(), variance->size()));
  std::vector<double> scale(channels), shift(channels);
  const std::string bad = batch_normalization_affine(node, *gamma, *beta, *mean, *variance,
                                                     real(node, name, "epsilon", 1e-5), scale, shift);
  if (!bad.empty()) fail(name, bad);
  return channel_affine(read, node.input(0), std::move(scale), std::move(shift));
}

// A Mul or Add of an activation by a constant of one value per channel (axis 1; or one value) that did not fold
// into the layer before it: a channel affine (shift 0 or scale 1). nullopt when the node is not one.
std::optional<std::string> GraphReader::constant_per_channel(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  if (node.input_size() != 2) return std::nullopt;
  const int other = initializers_.count(node.input(1)) ? 1 : initializers_.count(node.input(0)) ? 0 : -1;
  if (other < 0 || initializers_.count(node.input(1 - other))) return std::nullopt;
  const std::string& activation_name = node.input(1 - other);
  const auto x = known_shape(activation_name);
  const auto operand = constant(node.input(other));
  if (!x || !operand || (x->size() != 2 && x->size() != 4) || *x != read.out_shape) return std::nullopt;
  // Broadcast against x: every dimension but the channels' (axis 1) must be 1.
  if (operand->dims.size() > x->size()) return std::nullopt;
  for (std::size_t i = 0; i < operand->dims.size(); ++i) {
    const std::size_t axis = x->size() - operand->dims.size() + i;
    if (operand->dims[i] != 1 && !(axis == 1 && operand->dims[i] == (*x)[1])) return std::nullopt;
  }
  const std::size_t channels = std::size_t((*x)[1]);
  std::vector<double> per_channel(channels);
  for (std::size_t c = 0; c < channels; ++c) per_channel[c] = operand->real(operand->elements() == 1 ? 0 : c);
  const std::string bad = nonfinite_constant(node.input(other), per_channel);
  if (!bad.empty()) fail(read.name, "input " + bad);
  const bool multiply = node.op_type() == "Mul";
  std::vector<double> scale = multiply ? per_channel : std::vector<double>(channels, 1.0);
  std::vector<double> shift = multiply ? std::vector<double>(channels, 0.0) : std::move(per_channel);
  return channel_affine(read, activation_name, std::move(scale), std::move(shift));
}

}  // namespace maeri::importer
