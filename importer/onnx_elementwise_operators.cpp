// Activations and element-wise arithmetic beside the fabric: Identity and Dropout (no operator: the same values),
// Relu, Clip, Sigmoid, Tanh, Softmax, HardSigmoid and HardSwish, the residual Add of two tensors of one shape, and
// the Mul of two tensors of one shape or by a squeeze-and-excitation gate.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>

namespace maeri::importer {

// Identity and Dropout (inference): their output is their input's Network tensor, no operator.
std::string GraphReader::alias(const onnx::NodeProto& node) {
  const auto input = node.input_size() > 0 ? activation(node.input(0)) : std::nullopt;
  if (!input) return skip_reason(node.op_type());
  tensor_of_[node.output(0)] = *input;  // the same values: no operator
  return "";
}

// An operator of one input that runs as it is (Relu, Sigmoid, Tanh; Reshape for Flatten, Reshape, Squeeze and
// Unsqueeze, whose row-major elements stay as they are).
std::string GraphReader::unary(OperatorNode& read, contracts::OperatorKind kind) {
  if (!take_inputs(read, 1)) return skip_reason(read.node.op_type());
  emit(read, kind);
  return "";
}

// Clip of constant bounds on both sides (ReLU6), or a ReLU when it has only a lower bound of 0: the bounds are
// attributes before opset 11 and constant inputs from 11 on.
std::string GraphReader::clip(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  std::optional<double> low, high;
  if (opset_ < 11) {
    if (attribute(node, "min")) low = real(node, read.name, "min", 0);
    if (attribute(node, "max")) high = real(node, read.name, "max", 0);
  } else {
    for (int i = 1; i < 3 && i < node.input_size(); ++i) {
      if (node.input(i).empty()) continue;
      const auto bound = constant(node.input(i));
      if (!bound || bound->elements() != 1) return "clip: its bounds are not constant scalars" + std::string(kCut);
      (i == 1 ? low : high) = bound->real(0);
    }
  }
  if (!take_inputs(read, 1)) return skip_reason(node.op_type());
  if (low && *low == 0 && !high) {
    emit(read, contracts::OperatorKind::Relu);
    return "";
  }
  if (!low || !high || !(*low <= *high) || !std::isfinite(*low) || !std::isfinite(*high))
    return "clip: only bounds given on both sides become a clip (ReLU6)" + std::string(kCut);
  const std::size_t index = emit(read, contracts::OperatorKind::Clip);
  network().operators[index].clip_min = *low;
  network().operators[index].clip_max = *high;
  return "";
}

// Softmax along any axis; its default axis is -1 from opset 13 on, 1 before. Before opset 13 the input is seen as
// 2-D, the axes from `axis` on flattened into one row: the same as a softmax along the last axis when `axis` is the
// last, otherwise read as a reshape to (outer, row), a softmax along axis 1 and a reshape back.
std::string GraphReader::softmax(OperatorNode& read) {
  const std::size_t rank = read.out_shape.size();
  std::int64_t axis = integer(read.node, read.name, "axis", opset_ >= 13 ? -1 : 1);
  if (axis < -std::int64_t(rank) || axis >= std::int64_t(rank))
    fail(read.name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
  if (axis < 0) axis += std::int64_t(rank);
  if (!take_inputs(read, 1)) return skip_reason(read.node.op_type());
  if (opset_ >= 13 || axis + 1 >= std::int64_t(rank)) {
    network().operators[emit(read, contracts::OperatorKind::Softmax)].axis = axis;
    return "";
  }
  Dims rows{1, 1};
  for (std::size_t d = 0; d < rank; ++d) rows[std::int64_t(d) < axis ? 0 : 1] *= read.out_shape[d];
  const std::size_t flat = reshaped(read.inputs[0], read.name + ".rows", rows, read.name + ".flatten");
  const std::size_t normalised = add_tensor(read.name + ".softmax", rows, false);
  network().operators[add_operator(read.name, contracts::OperatorKind::Softmax, {flat}, normalised)].axis = 1;
  const std::size_t output = add_tensor(read.node.output(0), read.out_shape, false);
  tensor_of_[read.node.output(0)] = output;
  add_operator(read.name + ".unflatten", contracts::OperatorKind::Reshape, {normalised}, output);
  return "";
}

// HardSigmoid runs as it is; HardSwish (opset 14: x · HardSigmoid(x) with alpha 1/6, beta 0.5) as a hard sigmoid
// `NODE` writing `NODE.gate` and a mul `NODE.mul` of the input by it.
std::string GraphReader::hard_gate(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& name = read.name;
  const bool swish = node.op_type() == "HardSwish";
  const double alpha = swish ? 1.0 / 6 : real(node, name, "alpha", 0.2);
  const double beta = swish ? 0.5 : real(node, name, "beta", 0.5);
  if (!std::isfinite(alpha) || !std::isfinite(beta))
    fail(name, fmt::format("attributes 'alpha' {} and 'beta' {}: both must be finite", alpha, beta));
  if (!take_inputs(read, 1)) return skip_reason(node.op_type());
  std::size_t gate;
  if (swish) {
    const std::size_t gated = add_tensor(name + ".gate", read.out_shape, false);
    gate = add_operator(name, contracts::OperatorKind::HardSigmoid, {read.inputs[0]}, gated);
    const std::size_t output = add_tensor(node.output(0), read.out_shape, false);
    tensor_of_[node.output(0)] = output;
    add_operator(name + ".mul", contracts::OperatorKind::Mul, {read.inputs[0], gated}, output);
  } else {
    gate = emit(read, contracts::OperatorKind::HardSigmoid);
  }
  network().operators[gate].hard_sigmoid_alpha = alpha;
  network().operators[gate].hard_sigmoid_beta = beta;
  return "";
}

// A residual Add (or a Sum of two): two activations of one shape. An add of a per-channel constant is a channel
// affine (constant_per_channel) when it did not fold into the layer before it.
std::string GraphReader::add(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  if (node.input_size() != 2) return "element-wise sum of other than two tensors" + std::string(kCut);
  for (const std::string& input : node.input())
    if (initializers_.count(input))
      return "element-wise arithmetic: an add of a constant that is not one value per channel" + std::string(kCut);
  const auto a = known_shape(node.input(0)), b = known_shape(node.input(1));
  if (!a || a != b) return "element-wise arithmetic: an add of two tensors of different shapes (broadcast)" + std::string(kCut);
  if (!take_inputs(read, 2)) return skip_reason(node.op_type());
  emit(read, contracts::OperatorKind::Add);
  return "";
}

// A product of two activations of one shape, or of (N, C, X, Y) by a (N, C, 1, 1) gate (squeeze-and-excitation,
// either operand order; the gate becomes the mul's second input). A product with a constant folds into the layer
// before it (fold_into) or is skipped.
std::string GraphReader::product(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  if (node.input_size() != 2) return skip_reason("Mul");
  for (const std::string& input : node.input())
    if (initializers_.count(input))
      return "element-wise arithmetic: a product with a constant not right after a convolution" + std::string(kCut);
  const auto a = known_shape(node.input(0)), b = known_shape(node.input(1));
  if (!a || !b || (*a != *b && !contracts::is_se_gate(*a, *b) && !contracts::is_se_gate(*b, *a)))
    return "element-wise arithmetic: a product broadcast otherwise than by a (N, C, 1, 1) gate" + std::string(kCut);
  if (!take_inputs(read, 2)) return skip_reason("Mul");
  if (*a != *b && contracts::is_se_gate(*b, *a)) std::swap(read.inputs[0], read.inputs[1]);
  emit(read, contracts::OperatorKind::Mul);
  return "";
}

}  // namespace maeri::importer
