// How a stream passes the post-processing unit's operators (stream_operators.hpp).
#include "mapper/model/stream_operators.hpp"

#include <algorithm>

#include "contracts/matrix_product.hpp"
#include "contracts/sdm_rules.hpp"

namespace maeri::mapper {
namespace {

using contracts::OperatorKind;

constexpr std::size_t kRowAxis = 2;  // X of a rank-4 (N, C, X, Y) tensor: the axis a group's stripes split

StreamStep passes(StreamPassage passage, bool new_tensor = false) { return StreamStep{passage, new_tensor, {}}; }

// A binary element-wise operator: rows pass when every operand is read row for row (shaped as the output); an
// operand broadcast along X is whole in every stripe (a network input or constant is; a tensor of the group, e.g.
// an SE gate from a global pool of the stream itself, is only with the group in one stripe).
StreamStep binary_step(const contracts::Network& network, const contracts::Operator& op, std::size_t stream,
                       bool side_from_graph) {
  const std::vector<std::int64_t>& output = network.tensors[op.outputs.at(0)].shape;
  if (network.tensors[op.inputs[stream]].shape != output) return passes(StreamPassage::Whole);
  if (!side_from_graph) return passes(StreamPassage::Rows);
  const std::size_t activations = contracts::activation_inputs(network, op);
  for (std::size_t i = 0; i < activations; ++i)
    if (network.tensors[op.inputs[i]].shape != output) return passes(StreamPassage::Whole);
  return passes(StreamPassage::Rows);
}

}  // namespace

namespace {

// The operators that work element by element on their stream (side operands aside): rows pass them as rows, and
// tokens as tokens.
bool element_wise(OperatorKind kind) {
  switch (kind) {
    case OperatorKind::Relu:
    case OperatorKind::Clip:
    case OperatorKind::Requantize:
    case OperatorKind::ChannelAffine:
    case OperatorKind::TableFunction:
    case OperatorKind::Add:
    case OperatorKind::Mul:
    case OperatorKind::Sub:
    case OperatorKind::Maximum:
    case OperatorKind::Minimum: return true;
    default: return false;
  }
}

StreamStep stream_step_along_x(const contracts::Network& network, const contracts::Operator& op, std::size_t stream,
                               bool side_from_graph);

}  // namespace

StreamStep stream_step(const contracts::Network& network, const contracts::Operator& op, std::size_t stream,
                       bool side_from_graph) {
  return stream_step_along_x(network, op, stream, side_from_graph);
}

namespace {

StreamStep stream_step_along_x(const contracts::Network& network, const contracts::Operator& op, std::size_t stream,
                               bool side_from_graph) {
  const std::vector<std::int64_t>& input = network.tensors[op.inputs.at(stream)].shape;
  const bool rank4 = input.size() == 4;
  // Add's side operands (a residual's shortcut) are read row for row; the other binary ones as binary_step says.
  if (element_wise(op.kind))
    return op.kind == OperatorKind::Mul || op.kind == OperatorKind::Sub || op.kind == OperatorKind::Maximum ||
                   op.kind == OperatorKind::Minimum
               ? binary_step(network, op, stream, side_from_graph)
               : passes(StreamPassage::Rows);
  switch (op.kind) {
    case OperatorKind::Concat:  // along channels a stripe's rows stay its rows
      return op.axis == 1 ? passes(StreamPassage::Rows) : passes(StreamPassage::Whole, true);
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool:
      if (!rank4) return passes(StreamPassage::Whole, true);
      return StreamStep{StreamPassage::Window, true,
                        RowWindow{op.pool.size_x, op.pool.stride_x, op.pool.padding_x, input[kRowAxis]}};
    case OperatorKind::Softmax:  // complete rows along its axis, written in place
      return passes(rank4 && op.axis != std::int64_t(kRowAxis) ? StreamPassage::Rows : StreamPassage::Whole);
    case OperatorKind::LayerNormalization:  // complete rows of the axes from `axis` on, in place
      return passes(rank4 && op.axis > std::int64_t(kRowAxis) ? StreamPassage::Rows : StreamPassage::Whole);
    case OperatorKind::Reshape: return passes(StreamPassage::Whole);  // the same elements in the same places
    case OperatorKind::GlobalAveragePool:
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceSum:
    case OperatorKind::ReduceMax:
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather:
    case OperatorKind::Lookup:
    case OperatorKind::Pad:  // moves every row and adds rows: whole
    case OperatorKind::Resize: return passes(StreamPassage::Whole, true);
    default: return passes(StreamPassage::Ends);
  }
}

}  // namespace

namespace {

std::int64_t leading_elements(const std::vector<std::int64_t>& shape, std::size_t axis) {
  std::int64_t product = 1;
  for (std::size_t i = 0; i < axis; ++i) product *= shape[i];
  return product;
}

// The axis of `output` that holds what `input` holds along `axis` when a reshape regroups only the axes around it.
int reshaped_axis(const std::vector<std::int64_t>& input, const std::vector<std::int64_t>& output, std::size_t axis) {
  const std::int64_t before = leading_elements(input, axis);
  for (std::size_t i = 0; i < output.size(); ++i)
    if (leading_elements(output, i) == before && output[i] == input[axis]) return int(i);
  return -1;
}

// Whether every other input of `op` is read token for token with its stream (its extent along the tokens' axis,
// aligned from the last, equal to the stream's) or is whole in every stripe (a network input or constant broadcast
// along it); a side operand made in the group must have the output's shape.
bool sides_follow_tokens(const contracts::Network& network, const contracts::Operator& op, std::size_t stream,
                         std::size_t axis, bool side_from_graph) {
  const std::vector<std::int64_t>& input = network.tensors[op.inputs[stream]].shape;
  for (std::size_t i = 0; i < op.inputs.size(); ++i) {
    if (i == stream) continue;
    const std::vector<std::int64_t>& side = network.tensors[op.inputs[i]].shape;
    if (side_from_graph && side != network.tensors[op.outputs.at(0)].shape) return false;
    if (side.size() + axis < input.size()) continue;  // lower rank: broadcast along the tokens' axis
    const std::int64_t extent = side[side.size() + axis - input.size()];
    if (extent != input[axis] && extent != 1) return false;
  }
  return true;
}

std::size_t normalised_axis(std::int64_t axis, std::size_t rank) {
  return std::size_t(axis < 0 ? axis + std::int64_t(rank) : axis);
}

}  // namespace

int output_token_axis(const contracts::Network& network, const contracts::Operator& layer_op) {
  const std::size_t rank = network.tensors[layer_op.outputs.at(0)].shape.size();
  return contracts::is_matrix_product(layer_op) ? int(rank) - 2 : 0;
}

int token_axis_after(const contracts::Network& network, const contracts::Operator& op, std::size_t stream, int axis,
                     bool side_from_graph) {
  if (axis < 0) return -1;
  const std::vector<std::int64_t>& input = network.tensors[op.inputs.at(stream)].shape;
  const std::vector<std::int64_t>& output = network.tensors[op.outputs.at(0)].shape;
  const std::size_t at = std::size_t(axis);
  if (at >= input.size()) return -1;
  const bool same_shape = input == output;
  if (element_wise(op.kind))
    return same_shape && sides_follow_tokens(network, op, stream, at, side_from_graph) ? axis : -1;
  switch (op.kind) {
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool: return input.size() == 4 && at == 0 ? axis : -1;
    case OperatorKind::Softmax:
      return same_shape && normalised_axis(op.axis, input.size()) != at ? axis : -1;
    case OperatorKind::LayerNormalization:  // normalises the axes from `axis` on
      return same_shape && normalised_axis(op.axis, input.size()) > at ? axis : -1;
    case OperatorKind::Concat:
      return output.size() == input.size() && normalised_axis(op.axis, input.size()) != at &&
                     sides_follow_tokens(network, op, stream, at, side_from_graph)
                 ? axis
                 : -1;
    case OperatorKind::Reshape: return reshaped_axis(input, output, at);
    case OperatorKind::Transpose:
      for (std::size_t i = 0; i < op.perm.size(); ++i)
        if (op.perm[i] == std::int64_t(at)) return int(i);
      return -1;
    default: return -1;
  }
}

StreamPath extended_path(StreamPath path, const StreamStep& step, const contracts::Network& network,
                         const contracts::Operator& op, std::size_t stream, bool side_from_graph) {
  const contracts::Tensor& output = network.tensors[op.outputs.at(0)];
  if (step.passage == StreamPassage::Window) path.windows.push_back(step.window);
  if (step.passage == StreamPassage::Whole && path.whole_operator.empty()) path.whole_operator = op.name;
  path.token_axis = token_axis_after(network, op, stream, path.token_axis, side_from_graph);
  if (path.token_axis < 0 && path.whole_for_tokens.empty()) path.whole_for_tokens = op.name;
  const bool rank4 = output.shape.size() == 4;
  const std::int64_t tokens = path.token_axis >= 0 ? output.shape[std::size_t(path.token_axis)] : 1;
  if (step.new_tensor)
    path.made.push_back(
        MadeTensor{output.name, output.elements(), rank4 ? output.shape[kRowAxis] : 1, tokens, path.windows.size()});
  return path;
}

std::int64_t last_producer_row(const StreamPath& path, std::int64_t last) {
  for (std::size_t i = path.windows.size(); i-- > 0;) {
    const RowWindow& w = path.windows[i];
    last = std::clamp<std::int64_t>(last * w.stride - w.padding + w.size - 1, 0, w.input_rows - 1);
  }
  return last;
}

std::vector<std::int64_t> stage_spans(const StreamPath& path, std::int64_t span) {
  std::vector<std::int64_t> spans(path.windows.size() + 1, span);
  for (std::size_t i = path.windows.size(); i-- > 0;) {
    const RowWindow& w = path.windows[i];
    spans[i] = std::min(w.input_rows, contracts::window_span(spans[i + 1], w.size, w.stride, 1));
  }
  return spans;
}

}  // namespace maeri::mapper
