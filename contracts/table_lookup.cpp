// Lookup's shape rule, index map and index checks (see table_lookup.hpp).
#include "contracts/table_lookup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "contracts/network.hpp"

namespace maeri::contracts {

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) { return fmt::format("({})", fmt::join(shape, ",")); }

}  // namespace

InferredShape lookup_output_shape(const Network& network, const Operator& op, const std::string& label) {
  if (op.inputs.size() != 2)
    return {{}, fmt::format("{} reads {} tensors, expected 2 (indices, table)", label, op.inputs.size())};
  const Tensor& indices = network.tensors.at(op.inputs[0]);
  const Tensor& table = network.tensors.at(op.inputs[1]);
  if (!table.constant)
    return {{}, fmt::format("{}: its table '{}' is not a constant (the indices come first)", label, table.name)};
  const std::int64_t rank = std::int64_t(table.shape.size());
  if (op.axis < 0 || op.axis >= rank)
    return {{}, fmt::format("{} has axis {}; its table '{}' of shape {} needs one in [0, {})", label, op.axis,
                            table.name, shape_text(table.shape), rank)};
  std::vector<std::int64_t> shape(table.shape.begin(), table.shape.begin() + op.axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), table.shape.begin() + op.axis + 1, table.shape.end());
  return {shape, std::nullopt};
}

namespace {
// "its indices" followed by the tensor's name where it is known.
std::string indices_text(const std::string& indices_name) {
  return indices_name.empty() ? "its indices" : fmt::format("its indices '{}'", indices_name);
}
}  // namespace

std::vector<std::int64_t> lookup_sources(const Operator& op, const std::vector<std::int64_t>& table_shape,
                                         const std::vector<std::int64_t>& indices, const std::string& indices_name) {
  if (op.axis < 0 || op.axis >= std::int64_t(table_shape.size()))
    throw std::invalid_argument(fmt::format("lookup '{}': axis {} is outside its table's rank {}", op.name, op.axis,
                                            table_shape.size()));
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < op.axis; ++d) outer *= table_shape[std::size_t(d)];
  for (std::size_t d = std::size_t(op.axis) + 1; d < table_shape.size(); ++d) inner *= table_shape[d];
  const std::int64_t extent = table_shape[std::size_t(op.axis)];
  std::vector<std::int64_t> entries;
  entries.reserve(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const std::int64_t index = indices[i];
    if (index < -extent || index >= extent)
      throw std::invalid_argument(fmt::format("lookup '{}': index {} (element {} of {}) is outside [{}, {}) for the "
                                              "table's axis {} of extent {}",
                                              op.name, index, i, indices_text(indices_name), -extent, extent, op.axis,
                                              extent));
    entries.push_back(index < 0 ? index + extent : index);
  }
  // The output is (outer, entries, inner) in row-major order.
  const std::int64_t count = std::int64_t(entries.size());
  std::vector<std::int64_t> sources(std::size_t(outer * count * inner));
  for (std::size_t o = 0; o < sources.size(); ++o) {
    const std::int64_t within = std::int64_t(o) % inner, rest = std::int64_t(o) / inner;
    const std::int64_t entry = entries[std::size_t(rest % count)], before = rest / count;
    sources[o] = (before * extent + entry) * inner + within;
  }
  return sources;
}

std::vector<std::int64_t> whole_indices(const Operator& op, const std::vector<double>& reals,
                                        const std::string& indices_name) {
  std::vector<std::int64_t> indices;
  indices.reserve(reals.size());
  for (std::size_t i = 0; i < reals.size(); ++i) {
    const double r = reals[i];
    if (!(std::abs(r) < 0x1.0p53) || std::floor(r) != r)
      throw std::invalid_argument(fmt::format("lookup '{}': index {} (element {} of {}) is not a whole number",
                                              op.name, r, i, indices_text(indices_name)));
    indices.push_back(std::int64_t(r));
  }
  return indices;
}

namespace {

// Whether `op` maps whole numbers to whole numbers, moving them (true) or combining two tensors (false), or neither.
std::optional<bool> carries_indices(const Network& network, const Operator& op) {
  switch (op.kind) {
    case OperatorKind::Reshape:
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather:
    case OperatorKind::Concat: return true;
    case OperatorKind::Mul:
      if (activation_inputs(network, op) == op.inputs.size()) return false;  // a constant factor has its own scale
      return std::nullopt;
    case OperatorKind::Add:
    case OperatorKind::Sub:
    case OperatorKind::Maximum:
    case OperatorKind::Minimum: return false;  // also with a constant operand: an offset (position ids), a clamp
    default: return std::nullopt;
  }
}

void narrow(std::int64_t& extent, std::int64_t bound) { extent = extent == 0 ? bound : std::min(extent, bound); }

}  // namespace

std::vector<std::int64_t> index_extents(const Network& network) {
  std::vector<std::int64_t> extents(network.tensors.size(), 0);
  // Backwards, so that every reader of a tensor is seen before its producer passes the bound on.
  for (std::size_t o = network.operators.size(); o-- > 0;) {
    const Operator& op = network.operators[o];
    if (op.kind == OperatorKind::Lookup && op.inputs.size() == 2) {
      const std::vector<std::int64_t>& table = network.tensors.at(op.inputs[1]).shape;
      if (op.axis >= 0 && op.axis < std::int64_t(table.size())) narrow(extents.at(op.inputs[0]), table[std::size_t(op.axis)]);
      continue;
    }
    const std::int64_t bound = op.outputs.empty() ? 0 : extents.at(op.outputs[0]);
    const std::optional<bool> moves = carries_indices(network, op);
    if (bound == 0 || !moves) continue;
    for (std::size_t input : op.inputs) narrow(extents.at(input), *moves ? bound : 1);
  }
  return extents;
}

}  // namespace maeri::contracts
