// Layout operators beside the fabric: Concat, a Transpose that moves no data (a reshape) or that gives a network
// input in the layout the fabric reads, and a Pad of a zero border on X and Y. (Flatten, Reshape, Squeeze and
// Unsqueeze are reshapes: GraphReader::unary.)
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace maeri::importer {

// Concat of activations along an axis (negative axes count from the end).
std::string GraphReader::concat(OperatorNode& read) {
  const std::size_t rank = read.out_shape.size();
  const std::int64_t axis = integer(read.node, read.name, "axis", 1);
  if (axis < -std::int64_t(rank) || axis >= std::int64_t(rank))
    fail(read.name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
  if (!take_inputs(read, read.node.input_size()))
    return "concat of a constant or of a tensor of unknown shape" + std::string(kCut);
  const std::size_t index = emit(read, contracts::OperatorKind::Concat);
  network().operators[index].axis = axis < 0 ? axis + std::int64_t(rank) : axis;
  return "";
}

// A Transpose that only moves unit dimensions is a reshape; one of a network input read by nothing else makes
// its output the network input (NHWC models: the input is given in the layout the fabric reads); others cut.
std::string GraphReader::transpose(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& name = read.name;
  const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
  if (!x) return skip_reason("Transpose");
  if (folds_into_products(node)) {
    note(fmt::format("Transpose {} folds into the operand layout of the MatMuls that read '{}'", name, node.output(0)));
    return "";
  }
  Dims perm = ints(node, name, "perm", {});
  if (perm.empty())
    for (std::size_t i = x->size(); i-- > 0;) perm.push_back(std::int64_t(i));
  Dims moved;
  for (const std::int64_t axis : perm) {
    if (axis < 0 || axis >= std::int64_t(x->size())) fail(name, fmt::format("attribute 'perm': {} is not a permutation", list(perm)));
    if ((*x)[std::size_t(axis)] != 1) moved.push_back(axis);
  }
  if (std::is_sorted(moved.begin(), moved.end())) {
    if (!take_inputs(read, 1)) return skip_reason("Transpose");
    emit(read, contracts::OperatorKind::Reshape);
    return "";
  }
  bool graph_input = false;
  for (const auto& input : model_.graph().input()) graph_input = graph_input || input.name() == node.input(0);
  const auto readers = readers_.find(node.input(0));
  if (graph_input && !tensor_of_.count(node.input(0)) && readers != readers_.end() && readers->second.size() == 1) {
    tensor_of_[node.output(0)] = add_tensor(node.output(0), read.out_shape, false);
    note(fmt::format("network input '{}' is given as '{}', in the layout after Transpose {} (perm {})",
                     node.input(0), node.output(0), name, list(perm)));
    return "";
  }
  return "data layout: a transpose that moves data (no operator of the post-processing unit does)" + std::string(kCut);
}

// Pad of mode "constant" with the value 0 (or none), only on the spatial axes 2 and 3 of a rank-4 tensor, by at
// least 0: `pads` an attribute before opset 11 (`paddings` at opset 1), a constant input from 11 on, with the
// `axes` input of opset 18. Other pads are skipped with the reason.
std::string GraphReader::pad(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& name = read.name;
  const std::string cut = kCut;
  const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
  if (!x || x->size() != 4) return "pad: only a rank-4 (N, C, H, W) tensor gets a border beside the fabric" + cut;
  const std::string mode = text(node, name, "mode", "constant");
  if (mode != "constant")
    return fmt::format("pad: mode '{}' (only \"constant\" zeros are a border the unit writes)", mode) + cut;
  Dims pads;
  std::optional<double> value;
  Dims axes = {0, 1, 2, 3};
  if (opset_ < 11) {
    pads = ints(node, name, opset_ < 2 ? "paddings" : "pads", {});
    if (attribute(node, "value")) value = real(node, name, "value", 0);
  } else {
    const auto given = node.input_size() > 1 ? constant(node.input(1)) : std::nullopt;
    if (!given || !given->integral()) return "pad: its pads are not a constant list of integers" + cut;
    pads = given->integers;
    if (node.input_size() > 2 && !node.input(2).empty()) {
      const auto constant_value = constant(node.input(2));
      if (!constant_value || constant_value->elements() != 1) return "pad: its value is not a constant scalar" + cut;
      value = constant_value->real(0);
    }
    if (node.input_size() > 3 && !node.input(3).empty()) {
      const auto given_axes = constant(node.input(3));
      if (!given_axes || !given_axes->integral()) return "pad: its axes are not a constant list of integers" + cut;
      axes = given_axes->integers;
      for (std::int64_t& axis : axes) {
        if (axis < -4 || axis > 3) fail(name, fmt::format("input 'axes': {} is out of range for rank 4", axis));
        if (axis < 0) axis += 4;
      }
    }
  }
  if (pads.size() != 2 * axes.size())
    fail(name, fmt::format("pads {}: expected {} values (a begin and an end per axis)", list(pads), 2 * axes.size()));
  if (value && *value != 0) return fmt::format("pad: the value {} (only zeros are a border the unit writes)", *value) + cut;
  contracts::PadBorder border;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t begin = pads[i], end = pads[i + axes.size()];
    if (begin < 0 || end < 0) return fmt::format("pad: negative pads {} (a crop)", list(pads)) + cut;
    if (axes[i] < 2 && (begin != 0 || end != 0))
      return fmt::format("pad: pads {} on the batch or channel axis (the unit pads X and Y)", list(pads)) + cut;
    if (axes[i] == 2) border.x_begin = begin, border.x_end = end;
    if (axes[i] == 3) border.y_begin = begin, border.y_end = end;
  }
  const auto out = known_shape(node.output(0));
  if (!out || *out != Dims{(*x)[0], (*x)[1], border.output_x((*x)[2]), border.output_y((*x)[3])})
    fail(name, "ONNX infers another output shape than the pads give");
  if (!take_inputs(read, 1)) return skip_reason("Pad");
  network().operators[emit(read, contracts::OperatorKind::Pad)].pad = border;
  return "";
}

}  // namespace maeri::importer
