// Activations beside the fabric: Identity and Dropout (no operator: the same values), Relu, Clip, Softmax, the table
// functions of contracts/elementwise_functions.hpp (Sigmoid, Tanh, LeakyRelu, Selu, Elu, Celu, Erf, Gelu, Exp, Log,
// Sqrt, Reciprocal, Softplus, Softsign, Mish, Swish, Neg, Abs, ThresholdedRelu, Floor, Ceil, Round) with their ONNX
// attributes, HardSigmoid and HardSwish. The binary element-wise operators are onnx_elementwise_pairs.cpp.
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

// An operator of one input that runs as it is (Relu; Reshape for Flatten, Reshape, Squeeze and Unsqueeze, whose
// row-major elements stay as they are).
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

// A table function of one input: the node's ONNX operator names it (contracts::function_of_onnx_operator; Gelu's
// `approximate` "tanh" is the tanh form), its attributes alpha and gamma (Selu) with ONNX's defaults.
std::string GraphReader::table_function(OperatorNode& read, contracts::UnaryFunction function) {
  const onnx::NodeProto& node = read.node;
  contracts::FunctionCall call = contracts::default_call(function);
  if (function == contracts::UnaryFunction::Gelu) {
    const std::string approximate = text(node, read.name, "approximate", "none");
    if (approximate == "tanh") call = contracts::default_call(contracts::UnaryFunction::GeluTanh);
    else if (approximate != "none") fail(read.name, fmt::format("attribute 'approximate': '{}' is neither 'none' nor "
                                                                "'tanh'", approximate));
  }
  const unsigned uses = contracts::parameters_read(call.function);
  if (uses & contracts::kUsesAlpha) call.alpha = real(node, read.name, "alpha", call.alpha);
  if (uses & contracts::kUsesGamma) call.gamma = real(node, read.name, "gamma", call.gamma);
  if (const auto violation = contracts::function_violation(call)) fail(read.name, *violation);
  if (!take_inputs(read, 1)) return skip_reason(node.op_type());
  network().operators[emit(read, contracts::OperatorKind::TableFunction)].function = call;
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
    gate = add_operator(name, contracts::OperatorKind::TableFunction, {read.inputs[0]}, gated);
    const std::size_t output = add_tensor(node.output(0), read.out_shape, false);
    tensor_of_[node.output(0)] = output;
    add_operator(name + ".mul", contracts::OperatorKind::Mul, {read.inputs[0], gated}, output);
  } else {
    gate = emit(read, contracts::OperatorKind::TableFunction);
  }
  network().operators[gate].function = {contracts::UnaryFunction::HardSigmoid, alpha, beta, 0};
  return "";
}

}  // namespace maeri::importer
