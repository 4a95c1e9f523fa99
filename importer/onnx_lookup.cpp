// Gather whose data is a constant table and whose indices are a tensor of the network (a token embedding: the table
// indexed by run-time token ids): a lookup operator reading (indices, table), the table a constant whose values join
// the weights (contracts/table_lookup.hpp; docs/workload-spec.md, "ONNX import").
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace maeri::importer {

std::string GraphReader::lookup(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const auto table = constant(node.input(0));
  const auto indices_shape = known_shape(node.input(1));
  const std::string cut = kCut;
  if (!table || table->dims.empty()) return "gather: its data is a constant without axes" + cut;
  if (!indices_shape) return "gather of a constant table: its indices are of unknown shape" + cut;
  // Scalar indices (one token id, ONNX rank 0) of a graph input: the input is a tensor of one element (a workload
  // tensor has rank ≥ 1), the lookup picks a row (…, 1, …) and a reshape drops that axis, as ONNX's Gather does.
  const bool scalar = indices_shape->empty();
  const auto& graph_inputs = model_.graph().input();
  const bool graph_input = std::any_of(graph_inputs.begin(), graph_inputs.end(),
                                       [&](const onnx::ValueInfoProto& input) { return input.name() == node.input(1); });
  if (scalar && !graph_input)
    return "gather of a constant table: its scalar indices are computed by the graph (a workload tensor has rank ≥ 1)" +
           cut;
  if (scalar && read.out_shape.empty()) return "gather of a one-axis table at a scalar index: a scalar output" + cut;
  const std::int64_t rank = std::int64_t(table->dims.size());
  std::int64_t axis = integer(node, read.name, "axis", 0);
  if (axis < -rank || axis >= rank)
    fail(read.name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
  if (axis < 0) axis += rank;
  if (scalar && !tensor_of_.count(node.input(1))) tensor_of_[node.input(1)] = add_tensor(node.input(1), {1}, false);
  const auto indices = activation(node.input(1));
  if (!indices) return skip_reason("Gather");
  std::vector<double> values(std::size_t(table->elements()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = table->real(i);
  read.inputs = {*indices, constant_operand(node.input(0), table->dims, std::move(values))};
  if (!scalar) {
    network().operators[emit(read, contracts::OperatorKind::Lookup)].axis = axis;
    return "";
  }
  Dims row(table->dims.begin(), table->dims.begin() + axis);
  row.push_back(1);
  row.insert(row.end(), table->dims.begin() + axis + 1, table->dims.end());
  const std::size_t picked = add_tensor(read.name + ".row", row, false);
  network().operators[add_operator(read.name + ".lookup", contracts::OperatorKind::Lookup, read.inputs, picked)].axis =
      axis;
  read.inputs = {picked};
  emit(read, contracts::OperatorKind::Reshape);
  return "";
}

}  // namespace maeri::importer
