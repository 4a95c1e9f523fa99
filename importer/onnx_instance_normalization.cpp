// InstanceNormalization (a style-transfer network's normalisation) as operators the unit already has: a layer
// normalization over the axes from 2 on of each (n, c) — the statistics of one channel of one image — with γ = 1
// and β = 0, then a channel affine of the node's per-channel scale and bias. ONNX: y = scale[c]·(x − μ_nc)/√(σ²_nc + ε)
// + B[c], μ_nc and σ²_nc the mean and (biased) variance over the spatial axes, exactly the layer normalization's
// (x − mean)/√(var + ε) of those axes followed by x·scale[c] + shift[c].
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <cmath>

namespace maeri::importer {

std::string GraphReader::instance_normalization(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string cut = kCut;
  const auto x = node.input_size() == 3 ? known_shape(node.input(0)) : std::nullopt;
  if (!x || x->size() < 3 || *x != read.out_shape)
    return "normalisation: an instance normalization of other than rank ≥ 3 (N, C, …) with its shape kept" + cut;
  const auto scale = values(node, 1), bias = values(node, 2);
  const std::size_t channels = std::size_t((*x)[1]);
  if (!scale || !bias) return "normalisation: an instance normalization whose scale or bias is not a constant" + cut;
  if (scale->size() != channels || bias->size() != channels)
    fail(read.name, fmt::format("scale and B have {} and {} values for {} channels", scale->size(), bias->size(), channels));
  const double epsilon = real(node, read.name, "epsilon", 1e-5);
  if (!std::isfinite(epsilon) || epsilon < 0) fail(read.name, fmt::format("attribute 'epsilon': {}", epsilon));
  if (!take_inputs(read, 1)) return skip_reason("InstanceNormalization");
  std::int64_t length = 1;
  for (std::size_t d = 2; d < x->size(); ++d) length *= (*x)[d];
  const std::string normalised = node.output(0) + "/normalised";  // no ONNX tensor: the affine's input
  emit_layer_normalization(read, normalised, 2, epsilon, std::vector<double>(std::size_t(length), 1.0),
                           std::vector<double>(std::size_t(length), 0.0));
  const std::size_t scale_tensor = add_tensor(read.name + ".channel_scale", {std::int64_t(channels)}, true);
  const std::size_t shift_tensor = add_tensor(read.name + ".channel_shift", {std::int64_t(channels)}, true);
  result_.weights[network().tensors[scale_tensor].name] = *scale;
  result_.weights[network().tensors[shift_tensor].name] = *bias;
  const std::size_t output = add_tensor(node.output(0), read.out_shape, false);
  tensor_of_[node.output(0)] = output;
  add_operator(read.name + ".affine", contracts::OperatorKind::ChannelAffine,
               {tensor_of_.at(normalised), scale_tensor, shift_tensor}, output);
  return "";
}

}  // namespace maeri::importer
