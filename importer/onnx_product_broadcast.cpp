// The operands of a MatMul of two activations whose leading axes broadcast (numpy semantics) instead of being equal:
// a rank lower than the other's gains leading axes of 1 by a reshape (no data moves), and an axis of extent 1 against
// a larger one (one key/value head shared by every query head, one mask for every batch position) is repeated by a
// concat of copies along it, so that the matrix product (contracts/matrix_product.hpp, equal leading axes) gets each
// position its own operands — the copies are real data movement on the post-processing unit, noted in the report.
#include <fmt/format.h>

#include <algorithm>

#include "importer/onnx_graph_reader.hpp"

namespace maeri::importer {

// `tensor` (an operand of product `name`, of shape [lead..., r, c]) as a tensor of leading axes `leading`, or itself
// when they are already those.
std::size_t GraphReader::broadcast_operand(const std::string& name, const std::string& operand, std::size_t tensor,
                                           const Dims& leading) {
  Dims shape = network().tensors[tensor].shape;
  const std::size_t matrix_axes = 2;
  if (shape.size() < leading.size() + matrix_axes) {
    shape.insert(shape.begin(), leading.size() + matrix_axes - shape.size(), 1);
    const std::string reshape = fmt::format("{}.{}_rank", name, operand);
    tensor = reshaped(tensor, reshape, shape, reshape);
  }
  for (std::size_t axis = 0; axis < leading.size(); ++axis) {
    if (shape[axis] == leading[axis]) continue;
    shape[axis] = leading[axis];
    const std::string copies = fmt::format("{}.{}_repeat{}", name, operand, axis);
    const std::size_t output = add_tensor(copies, shape, false);
    const std::size_t op = add_operator(copies, contracts::OperatorKind::Concat,
                                        std::vector<std::size_t>(std::size_t(leading[axis]), tensor), output);
    network().operators[op].axis = std::int64_t(axis);
    tensor = output;
  }
  return tensor;
}

// The leading axes both operands broadcast to, or nullopt when they are equal already or do not broadcast (the
// product's own check then names the operands).
std::optional<Dims> GraphReader::broadcast_leading_axes(const Dims& a, const Dims& b) {
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  const Dims lead_a(a.begin(), a.end() - 2), lead_b(b.begin(), b.end() - 2);
  if (lead_a == lead_b) return std::nullopt;
  const std::size_t rank = std::max(lead_a.size(), lead_b.size());
  Dims leading(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < lead_a.size() ? lead_a[lead_a.size() - 1 - i] : 1;
    const std::int64_t db = i < lead_b.size() ? lead_b[lead_b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    leading[rank - 1 - i] = std::max(da, db);
  }
  return leading;
}

}  // namespace maeri::importer
