// PRelu beside the fabric: x ≥ 0 ? x : slope · x with a constant slope. One slope for the whole tensor is the
// table function leaky_relu (alpha = the slope); one per channel (axis 1 of a rank-2 or rank-4 tensor) is
// relu(x) + slope[c] · min(x, 0): a relu, a min with the constant 0, a channel affine of the slopes and an add, each
// an operator the unit runs (docs/workload-spec.md, "ONNX models").
#include <fmt/format.h>

#include <algorithm>

#include "importer/onnx_graph_reader.hpp"

namespace maeri::importer {

std::string GraphReader::prelu(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& name = read.name;
  const std::string cut = kCut;
  const auto x = node.input_size() == 2 ? known_shape(node.input(0)) : std::nullopt;
  const auto slope = node.input_size() == 2 ? values(node, 1) : std::nullopt;
  if (!x || *x != read.out_shape) return "PRelu: its input's shape is unknown" + cut;
  if (!slope || slope->empty()) return "PRelu: its slope is computed at run time, not a constant" + cut;
  const bool one_slope = std::all_of(slope->begin(), slope->end(), [&](double s) { return s == slope->front(); });
  if (one_slope) {
    if (!take_inputs(read, 1)) return "PRelu: its input is not a tensor the network computes" + cut;
    contracts::Operator& op = network().operators[emit(read, contracts::OperatorKind::TableFunction)];
    op.function = contracts::default_call(contracts::UnaryFunction::LeakyRelu);
    op.function.alpha = slope->front();
    return "";
  }
  if (x->size() != 2 && x->size() != 4) return "PRelu: a slope per channel on a tensor of rank other than 2 or 4" + cut;
  const std::int64_t channels = (*x)[1];
  auto per_channel = per_channel_constant(node.input(1), node.output(0), channels, ChannelAxis::Second);
  if (!per_channel) return "PRelu: a slope that is neither one value nor one per channel (axis 1)" + cut;
  if (!take_inputs(read, 1)) return "PRelu: its input is not a tensor the network computes" + cut;
  using Kind = contracts::OperatorKind;
  const std::size_t input = read.inputs[0];
  const auto step = [&](const std::string& suffix, Kind kind, std::vector<std::size_t> inputs) {
    const std::size_t output = add_tensor(name + suffix, *x, false);
    add_operator(name + suffix, kind, std::move(inputs), output);
    return output;
  };
  const std::size_t positive = step(".positive", Kind::Relu, {input});
  const std::size_t negative = step(".negative", Kind::Minimum, {input, constant_operand(name + ".zero", {1}, {0.0})});
  const std::size_t scale = add_tensor(name + ".slope", {channels}, true);
  const std::size_t shift = add_tensor(name + ".shift", {channels}, true);
  result_.weights[network().tensors[scale].name] = std::move(*per_channel);
  result_.weights[network().tensors[shift].name] = std::vector<double>(std::size_t(channels), 0.0);
  const std::size_t scaled = step(".scaled", Kind::ChannelAffine, {negative, scale, shift});
  const std::size_t output = add_tensor(node.output(0), *x, false);
  add_operator(name, Kind::Add, {positive, scaled}, output);
  tensor_of_[node.output(0)] = output;
  return "";
}

}  // namespace maeri::importer
