// Gather whose data is a constant table and whose indices are a tensor of the network (a token embedding: the table
// indexed by run-time token ids): a lookup operator reading (indices, table), the table a constant whose values join
// the weights (contracts/table_lookup.hpp; docs/workload-spec.md, "ONNX import").
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

namespace maeri::importer {

std::string GraphReader::lookup(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const auto table = constant(node.input(0));
  const auto indices_shape = known_shape(node.input(1));
  const std::string cut = kCut;
  if (!table || table->dims.empty()) return "gather: its data is a constant without axes" + cut;
  if (!indices_shape || indices_shape->empty())
    return "gather of a constant table: its indices are a scalar or of unknown shape" + cut;
  const std::int64_t rank = std::int64_t(table->dims.size());
  std::int64_t axis = integer(node, read.name, "axis", 0);
  if (axis < -rank || axis >= rank)
    fail(read.name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
  if (axis < 0) axis += rank;
  const auto indices = activation(node.input(1));
  if (!indices) return skip_reason("Gather");
  std::vector<double> values(std::size_t(table->elements()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = table->real(i);
  read.inputs = {*indices, constant_operand(node.input(0), table->dims, std::move(values))};
  network().operators[emit(read, contracts::OperatorKind::Lookup)].axis = axis;
  return "";
}

}  // namespace maeri::importer
