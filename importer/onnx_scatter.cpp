// ScatterND with constant indices (a streaming model's cache update: the newest frame written into the cache)
// as operators the unit already has: the data and the updates reshaped to rows of the indexed block, joined
// (Concat along axis 0), the rows gathered back in the data's order with each written row taken from its update
// (Gather of constant indices), reshaped to the data's shape. So the update moves data exactly as ONNX's ScatterND
// does, at the concatenation's common scale, and needs no operator of its own.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include "contracts/strict_yaml.hpp"

namespace maeri::importer {

// ONNX ScatterND (reduction "none"): indices of shape [..., k] name k-prefixes of the data's axes; each prefix's
// block of data is replaced by the update at the same leading position (a later index tuple wins over an earlier
// one that names the same block, as ONNX Runtime applies them in order).
std::string GraphReader::scatter(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string cut = kCut;
  const auto x = node.input_size() == 3 ? known_shape(node.input(0)) : std::nullopt;
  const auto updates = node.input_size() == 3 ? known_shape(node.input(2)) : std::nullopt;
  const auto indices = node.input_size() == 3 ? constant(node.input(1)) : std::nullopt;
  if (!x || !updates) return skip_reason("ScatterND");
  if (!indices || !indices->integral() || indices->dims.empty())
    return "scatter: its indices are not constant integers" + cut;
  if (text(node, read.name, "reduction", "none") != "none")
    return "scatter: only reduction 'none' (a copy) runs on the unit" + cut;
  const std::size_t k = std::size_t(indices->dims.back());
  if (k < 1 || k > x->size())
    fail(read.name, fmt::format("indices of shape {}: their last axis {} must be within the data's rank {}",
                                list(indices->dims), k, x->size()));
  Dims expected_updates(indices->dims.begin(), indices->dims.end() - 1);
  expected_updates.insert(expected_updates.end(), x->begin() + std::ptrdiff_t(k), x->end());
  if (*updates != expected_updates)
    fail(read.name, fmt::format("updates of shape {}, expected {} (the indices' leading axes, then the data's "
                                "axes from {})",
                                list(*updates), list(expected_updates), k));
  std::int64_t rows = 1, block = 1;
  for (std::size_t axis = 0; axis < x->size(); ++axis) (axis < k ? rows : block) *= (*x)[axis];
  const std::int64_t tuples = std::int64_t(indices->integers.size() / k);
  if (rows > std::int64_t(contracts::kMaxYamlSequenceLength))
    return fmt::format("scatter: {} blocks to gather, more than an operator's index list holds ({})", rows,
                       contracts::kMaxYamlSequenceLength) + cut;
  Dims source(static_cast<std::size_t>(rows));
  for (std::int64_t row = 0; row < rows; ++row) source[std::size_t(row)] = row;
  for (std::int64_t t = 0; t < tuples; ++t) {
    std::int64_t row = 0;
    for (std::size_t axis = 0; axis < k; ++axis) {
      const std::int64_t extent = (*x)[axis];
      std::int64_t at = indices->integers[std::size_t(t) * k + axis];
      if (at < -extent || at >= extent)
        fail(read.name, fmt::format("index {} is out of range for axis {} of extent {}", at, axis, extent));
      row = row * extent + (at < 0 ? at + extent : at);
    }
    source[std::size_t(row)] = rows + t;
  }
  if (!take_inputs(read, 1)) return skip_reason("ScatterND");
  const auto written = activation(node.input(2));
  if (!written || initializers_.count(node.input(2))) return "scatter: its updates are a constant" + cut;
  const std::size_t data_rows = reshaped(read.inputs[0], read.name + ".data_rows", {rows, block}, read.name + ".data_rows");
  const std::size_t update_rows = reshaped(*written, read.name + ".update_rows", {tuples, block}, read.name + ".update_rows");
  const std::size_t joined = add_tensor(read.name + ".joined", {rows + tuples, block}, false);
  network().operators[add_operator(read.name + ".join", contracts::OperatorKind::Concat, {data_rows, update_rows}, joined)].axis = 0;
  const std::size_t gathered = add_tensor(read.name + ".gathered", {rows, block}, false);
  contracts::Operator& gather = network().operators[add_operator(read.name + ".gather", contracts::OperatorKind::Gather, {joined}, gathered)];
  gather.axis = 0;
  gather.indices = std::move(source);
  gather.indices_shape = {rows};
  read.inputs = {gathered};
  emit(read, contracts::OperatorKind::Reshape);
  return "";
}

}  // namespace maeri::importer
