// Expand of an activation to a constant shape (numpy broadcasting): PyTorch's slice assignment expands the value it
// writes to the slice's shape before a ScatterND (gtcrn's cache updates), often to the shape it already has. On the
// unit: a reshape to the output's rank where the input's is lower, then along each axis of 1 that the output widens
// a gather of index 0 repeated — data movement, so the input's scale is kept and nothing is rounded.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

namespace maeri::importer {

std::string GraphReader::expand(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const auto x = node.input_size() == 2 ? known_shape(node.input(0)) : std::nullopt;
  if (!x) return skip_reason("Expand");
  const auto target = constant(node.input(1));
  if (!target || !target->integral()) return "expand: its shape is not constant integers" + std::string(kCut);
  const Dims& out = read.out_shape;
  if (out.size() < x->size())
    fail(read.name, fmt::format("input of shape {} expanded to the lower rank of {}", list(*x), list(out)));
  Dims aligned(out.size() - x->size(), 1);
  aligned.insert(aligned.end(), x->begin(), x->end());
  std::vector<std::size_t> widened;
  for (std::size_t axis = 0; axis < out.size(); ++axis) {
    if (aligned[axis] == out[axis]) continue;
    if (aligned[axis] != 1)
      fail(read.name, fmt::format("input of shape {} does not broadcast to {}", list(*x), list(out)));
    widened.push_back(axis);
  }
  if (!take_inputs(read, 1)) return skip_reason("Expand");
  std::size_t tensor = reshaped(read.inputs[0], read.name + ".aligned", aligned, read.name + ".align");
  Dims shape = aligned;
  for (std::size_t i = 0; i < widened.size(); ++i) {
    const std::size_t axis = widened[i];
    shape[axis] = out[axis];
    const bool last = i + 1 == widened.size();
    std::size_t gather = 0;
    if (last) {
      read.inputs = {tensor};
      gather = emit(read, contracts::OperatorKind::Gather);
    } else {
      const std::string step = fmt::format("{}.repeat{}", read.name, axis);
      const std::size_t repeated = add_tensor(step, shape, false);
      gather = add_operator(step, contracts::OperatorKind::Gather, {tensor}, repeated);
      tensor = repeated;
    }
    contracts::Operator& op = network().operators[gather];
    op.axis = std::int64_t(axis);
    op.indices = Dims(std::size_t(out[axis]), 0);
    op.indices_shape = {out[axis]};
  }
  if (widened.empty()) {
    read.inputs = {tensor};
    emit(read, contracts::OperatorKind::Reshape);
  }
  return "";
}

}  // namespace maeri::importer
