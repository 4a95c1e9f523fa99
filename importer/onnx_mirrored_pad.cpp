// Pad of mode "reflect" or "edge" (a style-transfer network's ReflectionPad2d, a replicated border) as operators
// the unit already has: along each padded axis, a gather of constant indices that repeats the rows the border
// copies. ONNX (docs/Operators.md, Pad): "reflect" mirrors without repeating the edge (x[p], …, x[1], x[0], …,
// x[L−1], x[L−2], …; at most L − 1 on each side), "edge" repeats the edge value (x[0] p times, …, x[L−1] p times).
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include "contracts/strict_yaml.hpp"

#include <algorithm>

namespace maeri::importer {

namespace {

// The source row of each output row along an axis of `extent` padded by `begin` and `end` in `mode`.
Dims mirrored_rows(const std::string& mode, std::int64_t extent, std::int64_t begin, std::int64_t end) {
  Dims rows;
  for (std::int64_t i = -begin; i < extent + end; ++i) {
    if (mode == "edge") rows.push_back(std::clamp<std::int64_t>(i, 0, extent - 1));
    else rows.push_back(i < 0 ? -i : i >= extent ? 2 * (extent - 1) - i : i);
  }
  return rows;
}

}  // namespace

// `pads` (a begin per axis of `axes`, then an end per axis), non-negative, on a tensor of shape `x`.
std::string GraphReader::mirrored_pad(OperatorNode& read, const Dims& x, const std::string& mode, const Dims& pads,
                                      const Dims& axes) {
  const std::string cut = kCut;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t extent = x[std::size_t(axes[i])], begin = pads[i], end = pads[i + axes.size()];
    if (mode == "reflect" && (begin >= extent || end >= extent))
      fail(read.name, fmt::format("pads {}: a reflection of axis {} (extent {}) by more than {}", list(pads), axes[i],
                                  extent, extent - 1));
    if (begin + end + extent > std::int64_t(contracts::kMaxYamlSequenceLength))
      return fmt::format("pad: {} rows along axis {}, more than an operator's index list holds ({})",
                         begin + end + extent, axes[i], contracts::kMaxYamlSequenceLength) + cut;
  }
  if (!take_inputs(read, 1)) return skip_reason("Pad");
  std::size_t current = read.inputs[0];
  Dims shape = x;
  std::vector<std::size_t> padded_axes;
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (pads[i] != 0 || pads[i + axes.size()] != 0) padded_axes.push_back(i);
  if (padded_axes.empty()) {
    emit(read, contracts::OperatorKind::Reshape);
    return "";
  }
  for (const std::size_t i : padded_axes) {
    const std::size_t axis = std::size_t(axes[i]);
    Dims rows = mirrored_rows(mode, shape[axis], pads[i], pads[i + axes.size()]);
    shape[axis] = std::int64_t(rows.size());
    const bool last = i == padded_axes.back();
    std::size_t output;
    if (last) {
      output = add_tensor(read.node.output(0), read.out_shape, false);
      tensor_of_[read.node.output(0)] = output;
    } else {
      output = add_tensor(fmt::format("{}.axis{}", read.name, axis), shape, false);
    }
    const std::string op_name = last ? read.name : fmt::format("{}.axis{}", read.name, axis);
    contracts::Operator& gather = network().operators[add_operator(op_name, contracts::OperatorKind::Gather, {current}, output)];
    gather.axis = std::int64_t(axis);
    gather.indices_shape = {std::int64_t(rows.size())};
    gather.indices = std::move(rows);
    current = output;
  }
  return "";
}

}  // namespace maeri::importer
