// BatchNormalization and constant per-channel Mul/Add after a convolution, Gemm or MatMul with constant weights,
// folded into the layer's weights and bias (y = scale · layer + shift per output channel), node after node while
// each is the only reader of the one before.
#include "importer/onnx_folded_parameters.hpp"
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <cmath>

#include "importer/onnx_graph_checks.hpp"

namespace maeri::importer {
namespace {

// The axis of the layer's output channels in an ONNX tensor of `rank`.
std::size_t axis_of_channels(ChannelAxis channel_axis, std::size_t rank) {
  return channel_axis == ChannelAxis::Second ? 1 : rank - 1;
}

}  // namespace

// The nodes folded into a fabric layer's weights and bias (BatchNormalization, a constant per-channel Mul or Add),
// in order, while each reads the previous one's output as its only reader; applied to `weights` (`channels` rows)
// and `bias`. Returns the ONNX tensor the last one writes (what the layer's output stands for).
std::string GraphReader::fold_into(int index, const std::string& layer, std::int64_t channels,
                                   ChannelAxis channel_axis, std::vector<double>& weights, std::vector<double>& bias) {
  const onnx::GraphProto& graph = model_.graph();
  std::string output = graph.node(index).output(0);
  const std::size_t per_channel = weights.size() / std::size_t(channels);
  for (;;) {
    const auto readers = readers_.find(output);
    if (graph_outputs_.count(output) || readers == readers_.end() || readers->second.size() != 1) return output;
    const int next = readers->second[0];
    const onnx::NodeProto& node = graph.node(next);
    const std::string name = node_label(node, next);
    if (!in_default_domain(node) || node.output_size() < 1) return output;
    // Per output channel: y = scale · conv + shift.
    std::vector<double> scale(std::size_t(channels), 1.0), shift(std::size_t(channels), 0.0);
    if (!folded_scale_shift(node, name, output, channels, channel_axis, scale, shift)) return output;
    for (std::size_t k = 0; k < scale.size(); ++k) {
      for (std::size_t i = 0; i < per_channel; ++i) weights[k * per_channel + i] *= scale[k];
      bias[k] = bias[k] * scale[k] + shift[k];
    }
    folded_nodes_.insert(next);
    note(fmt::format("folded {} {} into {}", node.op_type(), name, layer));
    output = node.output(0);
  }
}

// The scale and shift per output channel of `node`, the only reader of the layer's `output`: a BatchNormalization
// in inference mode of constant parameters along the channels' axis, or a Mul or Add by a per-channel constant;
// false when it is none of them (the folding stops there).
bool GraphReader::folded_scale_shift(const onnx::NodeProto& node, const std::string& name, const std::string& output,
                                     std::int64_t channels, ChannelAxis channel_axis, std::vector<double>& scale,
                                     std::vector<double>& shift) const {
  if (node.op_type() == "BatchNormalization") {
    // BatchNormalization normalises axis 1: the layer's channels only where they are there.
    const auto out_shape = known_shape(output);
    if (node.input_size() != 5 || node.input(0) != output || !out_shape || out_shape->size() < 2 ||
        axis_of_channels(channel_axis, out_shape->size()) != 1)
      return false;
    const auto gamma = values(node, 1), beta = values(node, 2), mean = values(node, 3), variance = values(node, 4);
    if (!gamma || !beta || !mean || !variance || gamma->size() != std::size_t(channels) ||
        beta->size() != gamma->size() || mean->size() != gamma->size() || variance->size() != gamma->size())
      return false;
    if (integer(node, name, "training_mode", 0) != 0) return false;
    const std::string bad = batch_normalization_affine(node, *gamma, *beta, *mean, *variance,
                                                       real(node, name, "epsilon", 1e-5), scale, shift);
    if (!bad.empty()) fail(name, bad);
    return true;
  }
  if (node.op_type() == "Mul" || node.op_type() == "Add") {
    if (node.input_size() != 2) return false;
    const int other = node.input(0) == output ? 1 : 0;
    if (node.input(1 - other) != output || node.input(other) == output) return false;
    const auto operand = per_channel_constant(node.input(other), output, channels, channel_axis);
    if (!operand) return false;
    const std::string bad = nonfinite_constant(node.input(other), *operand);
    if (!bad.empty()) fail(name, "input " + bad);
    (node.op_type() == "Mul" ? scale : shift) = *operand;
    return true;
  }
  return false;
}

// The values of constant `tensor` per output channel of the layer (one value, or one per channel), when it
// broadcasts against the layer's `output` along the channels' axis only; nullopt otherwise.
std::optional<std::vector<double>> GraphReader::per_channel_constant(const std::string& tensor,
                                                                     const std::string& output, std::int64_t channels,
                                                                     ChannelAxis channel_axis) const {
  const auto value = constant(tensor);
  const auto out_shape = known_shape(output);
  if (!value || !out_shape) return std::nullopt;
  // Broadcast against the output: every dimension but the channels' must be 1.
  const std::size_t rank = out_shape->size();
  if (value->dims.size() > rank) return std::nullopt;
  for (std::size_t i = 0; i < value->dims.size(); ++i) {
    const std::size_t axis = rank - value->dims.size() + i;
    if (value->dims[i] != 1 && !(axis == axis_of_channels(channel_axis, rank) && value->dims[i] == channels))
      return std::nullopt;
  }
  std::vector<double> per(static_cast<std::size_t>(channels));
  for (std::int64_t k = 0; k < channels; ++k) per[k] = value->real(value->elements() == 1 ? 0 : std::size_t(k));
  return per;
}

// A constant per-column Mul/Add (or BatchNormalization of a 2-D output) after a Gemm or MatMul with constant
// weights folds into them as after a convolution.
void GraphReader::fold_after_product(int index, const std::string& name, std::int64_t columns, LayerLinks& links) {
  std::vector<double> bias = links.bias.value_or(std::vector<double>(std::size_t(columns), 0.0));
  const std::size_t before = result_.notes.size();
  const std::string output = fold_into(index, name, columns, ChannelAxis::Last, *links.weights, bias);
  if (result_.notes.size() == before) return;
  links.output = output;
  links.weight_name.reset();  // the folded values are the layer's own
  links.bias = std::move(bias);
}

}  // namespace maeri::importer
