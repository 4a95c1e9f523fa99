// Networks built by hand from the contract types, for the tests of the quantizer and the network references: each
// call adds one operator (and its weights or output tensor) with the output shape the operator gives, and returns
// the output tensor's index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "contracts/elementwise_pairs.hpp"
#include "contracts/network.hpp"

namespace maeri::test {

class NetworkBuilder {
 public:
  using Shape = std::vector<std::int64_t>;

  explicit NetworkBuilder(std::string name) { network_.name = std::move(name); }

  std::size_t input(const std::string& name, Shape shape) { return tensor(name, std::move(shape)); }

  // A fabric layer reading `activation`, with a weights tensor "<name>.weights" (and "<name>.bias" when asked).
  std::size_t fabric(contracts::Layer layer, std::size_t activation, bool with_bias = false) {
    contracts::Operator op = make(layer.name, contracts::OperatorKind::FabricLayer, {activation});
    op.layer = network_.layers.size();
    op.inputs.push_back(tensor(layer.name + ".weights", contracts::weight_shape(layer), true));
    if (with_bias) op.inputs.push_back(tensor(layer.name + ".bias", {layer.K}, true));
    const Shape output = contracts::output_shape(layer);
    network_.layers.push_back(std::move(layer));
    return finish(std::move(op), output);
  }
  std::size_t relu(const std::string& name, std::size_t in) { return same_shape(name, contracts::OperatorKind::Relu, in); }
  std::size_t requantize(const std::string& name, std::size_t in) {
    return same_shape(name, contracts::OperatorKind::Requantize, in);
  }
  std::size_t clip(const std::string& name, std::size_t in, double low, double high) {
    contracts::Operator op = make(name, contracts::OperatorKind::Clip, {in});
    op.clip_min = low;
    op.clip_max = high;
    return finish(std::move(op), shape(in));
  }
  std::size_t pool(const std::string& name, contracts::OperatorKind kind, std::size_t in, contracts::PoolWindow window) {
    contracts::Operator op = make(name, kind, {in});
    op.pool = window;
    const Shape& s = shape(in);
    return finish(std::move(op), {s[0], s[1], window.output_x(s[2]), window.output_y(s[3])});
  }
  std::size_t global_average_pool(const std::string& name, std::size_t in) {
    const Shape& s = shape(in);
    return finish(make(name, contracts::OperatorKind::GlobalAveragePool, {in}), {s[0], s[1], 1, 1});
  }
  std::size_t add(const std::string& name, std::size_t a, std::size_t b) {
    return finish(make(name, contracts::OperatorKind::Add, {a, b}), shape(a));
  }
  std::size_t concat(const std::string& name, const std::vector<std::size_t>& inputs, std::int64_t axis = 1) {
    contracts::Operator op = make(name, contracts::OperatorKind::Concat, inputs);
    op.axis = axis;
    Shape joined = shape(inputs[0]);
    for (std::size_t i = 1; i < inputs.size(); ++i) joined[std::size_t(axis)] += shape(inputs[i])[std::size_t(axis)];
    return finish(std::move(op), joined);
  }
  std::size_t reshape(const std::string& name, std::size_t in, Shape to) {
    return finish(make(name, contracts::OperatorKind::Reshape, {in}), std::move(to));
  }
  std::size_t softmax(const std::string& name, std::size_t in) {
    return same_shape(name, contracts::OperatorKind::Softmax, in);
  }
  // A channel affine with constant tensors "<name>.scale" and "<name>.shift" of one value per channel (axis 1).
  std::size_t channel_affine(const std::string& name, std::size_t in) {
    const std::int64_t channels = shape(in)[1];
    const std::size_t scale = tensor(name + ".scale", {channels}, true), shift = tensor(name + ".shift", {channels}, true);
    return finish(make(name, contracts::OperatorKind::ChannelAffine, {in, scale, shift}), shape(in));
  }

  std::size_t pad(const std::string& name, std::size_t in, contracts::PadBorder border) {
    contracts::Operator op = make(name, contracts::OperatorKind::Pad, {in});
    op.pad = border;
    const Shape& s = shape(in);
    return finish(std::move(op), {s[0], s[1], border.output_x(s[2]), border.output_y(s[3])});
  }

  // A table function (contracts/elementwise_functions.hpp) with its parameters.
  std::size_t function(const std::string& name, std::size_t in, contracts::FunctionCall call) {
    contracts::Operator op = make(name, contracts::OperatorKind::TableFunction, {in});
    op.function = call;
    return finish(std::move(op), shape(in));
  }
  std::size_t function(const std::string& name, std::size_t in, contracts::UnaryFunction f) {
    return function(name, in, contracts::default_call(f));
  }
  std::size_t sigmoid(const std::string& name, std::size_t in) { return function(name, in, contracts::UnaryFunction::Sigmoid); }
  std::size_t tanh(const std::string& name, std::size_t in) { return function(name, in, contracts::UnaryFunction::Tanh); }
  std::size_t hard_sigmoid(const std::string& name, std::size_t in, double alpha, double beta) {
    return function(name, in, {contracts::UnaryFunction::HardSigmoid, alpha, beta, 0});
  }
  // An element-wise pair (add, sub, max, min, mul) of a and b, broadcast.
  std::size_t pair(const std::string& name, contracts::OperatorKind kind, std::size_t a, std::size_t b) {
    return finish(make(name, kind, {a, b}), *contracts::broadcast_shape(shape(a), shape(b)));
  }
  // An element-wise pair of a and a constant tensor "<name>.constant" of `constant_shape`.
  std::size_t pair_constant(const std::string& name, contracts::OperatorKind kind, std::size_t a, Shape constant_shape,
                            bool constant_first = false) {
    const std::size_t c = tensor(name + ".constant", std::move(constant_shape), true);
    contracts::Operator op = make(name, kind, {a, c});
    op.constant_first = constant_first;
    return finish(std::move(op), *contracts::broadcast_shape(shape(a), shape(c)));
  }
  // a · b, broadcast (an SE gate (N, C, 1, 1) included).
  std::size_t mul(const std::string& name, std::size_t a, std::size_t b) {
    return pair(name, contracts::OperatorKind::Mul, a, b);
  }

  const Shape& shape(std::size_t tensor) const { return network_.tensors[tensor].shape; }
  const contracts::Network& network() const { return network_; }

 private:
  std::size_t tensor(const std::string& name, Shape shape, bool constant = false) {
    network_.tensors.push_back({name, std::move(shape), constant, {}});
    return network_.tensors.size() - 1;
  }
  static contracts::Operator make(const std::string& name, contracts::OperatorKind kind, std::vector<std::size_t> inputs) {
    contracts::Operator op;
    op.name = name;
    op.kind = kind;
    op.inputs = std::move(inputs);
    return op;
  }
  std::size_t finish(contracts::Operator op, Shape output) {
    const std::size_t out = tensor(op.name + ".output", std::move(output));
    op.outputs = {out};
    network_.operators.push_back(std::move(op));
    return out;
  }
  std::size_t same_shape(const std::string& name, contracts::OperatorKind kind, std::size_t in) {
    return finish(make(name, kind, {in}), shape(in));
  }

  contracts::Network network_;
};

}  // namespace maeri::test
