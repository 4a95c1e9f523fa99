// Index maps of the data-movement operators and rows of the row-wise ones (see tensor_layout.hpp).
#include "contracts/tensor_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "contracts/network.hpp"

namespace maeri::contracts {

namespace {

std::string shape_text(const Extents& shape) { return fmt::format("({})", fmt::join(shape, ",")); }

InferredShape problem(std::string message) { return {{}, std::move(message)}; }

// Row-major strides of `shape`.
Extents strides_of(const Extents& shape) {
  Extents strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

std::int64_t elements_of(const Extents& shape) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

// The input index of every output element (row-major) of an operator whose output coordinate i along output axis d
// contributes the input offset offset_of(d, i): the source is the sum over the axes.
template <typename OffsetOf>
std::vector<std::int64_t> sum_of_axis_offsets(const Extents& output, OffsetOf offset_of) {
  std::vector<std::int64_t> sources(std::size_t(elements_of(output)));
  Extents coordinate(output.size(), 0);
  for (std::size_t o = 0; o < sources.size(); ++o) {
    std::int64_t source = 0;
    for (std::size_t d = 0; d < output.size(); ++d) source += offset_of(d, coordinate[d]);
    sources[o] = source;
    for (std::size_t d = output.size(); d-- > 0;) {
      if (++coordinate[d] < output[d]) break;
      coordinate[d] = 0;
    }
  }
  return sources;
}

InferredShape transpose_shape(const Operator& op, const Extents& in, const std::string& label) {
  Extents sorted = op.perm;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == in.size();
  for (std::size_t d = 0; permutation && d < sorted.size(); ++d) permutation = sorted[d] == std::int64_t(d);
  if (!permutation)
    return problem(fmt::format("{} has perm [{}]; its input of shape {} needs a permutation of 0..{}", label,
                               fmt::join(op.perm, ", "), shape_text(in), std::int64_t(in.size()) - 1));
  Extents out;
  for (std::int64_t axis : op.perm) out.push_back(in[std::size_t(axis)]);
  return {out, std::nullopt};
}

InferredShape slice_shape(const Operator& op, const Extents& in, const std::string& label) {
  if (op.slice.size() != in.size())
    return problem(fmt::format("{} slices {} axes; its input has shape {}", label, op.slice.size(), shape_text(in)));
  Extents out;
  for (std::size_t d = 0; d < in.size(); ++d) {
    const SliceAxis& axis = op.slice[d];
    const std::int64_t last = axis.start + (axis.count - 1) * axis.step;
    if (axis.step == 0 || axis.count < 1 || axis.start < 0 || axis.start >= in[d] || last < 0 || last >= in[d])
      return problem(fmt::format("{} takes {} elements from {} by step {} along axis {} of its input of shape {}: "
                                 "it needs a step ≠ 0, at least 1 element and every index inside [0, {})",
                                 label, axis.count, axis.start, axis.step, d, shape_text(in), in[d]));
    out.push_back(axis.count);
  }
  return {out, std::nullopt};
}

InferredShape gather_shape(const Operator& op, const Extents& in, const std::string& label) {
  if (op.axis < 0 || op.axis >= std::int64_t(in.size()))
    return problem(fmt::format("{} gathers along axis {}; its input of shape {} has rank {}", label, op.axis,
                               shape_text(in), in.size()));
  const std::int64_t extent = in[std::size_t(op.axis)];
  if (elements_of(op.indices_shape) != std::int64_t(op.indices.size()) || op.indices.empty())
    return problem(fmt::format("{} has {} indices for the indices' shape {} (at least one index)", label,
                               op.indices.size(), shape_text(op.indices_shape)));
  for (std::int64_t index : op.indices)
    if (index < 0 || index >= extent)
      return problem(fmt::format("{} gathers entry {} along axis {} of its input of shape {}: indices must be in "
                                 "[0, {})",
                                 label, index, op.axis, shape_text(in), extent));
  Extents out(in.begin(), in.begin() + op.axis);
  out.insert(out.end(), op.indices_shape.begin(), op.indices_shape.end());
  out.insert(out.end(), in.begin() + op.axis + 1, in.end());
  if (out.empty()) return problem(fmt::format("{} gathers one entry of a rank-1 tensor: its output has no shape", label));
  return {out, std::nullopt};
}

InferredShape reduction_shape(const Operator& op, const Extents& in, const std::string& label) {
  bool valid = !op.reduce_axes.empty();
  for (std::size_t i = 0; valid && i < op.reduce_axes.size(); ++i)
    valid = op.reduce_axes[i] >= 0 && op.reduce_axes[i] < std::int64_t(in.size()) &&
            (i == 0 || op.reduce_axes[i] > op.reduce_axes[i - 1]);
  if (!valid)
    return problem(fmt::format("{} reduces axes [{}]; its input of shape {} needs distinct ascending axes in 0..{}",
                               label, fmt::join(op.reduce_axes, ", "), shape_text(in), std::int64_t(in.size()) - 1));
  Extents out;
  for (std::size_t d = 0; d < in.size(); ++d) {
    const bool reduced = std::find(op.reduce_axes.begin(), op.reduce_axes.end(), std::int64_t(d)) != op.reduce_axes.end();
    if (!reduced) out.push_back(in[d]);
    else if (op.keep_dims) out.push_back(1);
  }
  if (out.empty())
    return problem(fmt::format("{} reduces every axis of its input of shape {} without keeping them: its output has "
                               "no shape (keep the dimensions)",
                               label, shape_text(in)));
  return {out, std::nullopt};
}

}  // namespace

AxisRows axis_rows(const Extents& shape, std::int64_t axis) {
  if (axis < 0 || axis >= std::int64_t(shape.size()))
    throw std::invalid_argument(fmt::format("axis_rows: axis {} of a rank-{} shape", axis, shape.size()));
  AxisRows rows;
  for (std::int64_t d = 0; d < axis; ++d) rows.outer *= shape[std::size_t(d)];
  rows.extent = shape[std::size_t(axis)];
  for (std::size_t d = std::size_t(axis) + 1; d < shape.size(); ++d) rows.inner *= shape[d];
  return rows;
}

SliceAxis onnx_slice_axis(std::int64_t extent, std::int64_t start, std::int64_t end, std::int64_t step) {
  if (start < 0) start = start < -extent ? 0 : start + extent;
  if (end < 0) end = end < -extent ? -1 : end + extent;  // −1: before the first element (clamped below for step > 0)
  if (step > 0) {
    start = std::clamp<std::int64_t>(start, 0, extent);
    end = std::clamp<std::int64_t>(end, 0, extent);
  } else {
    start = std::clamp<std::int64_t>(start, 0, extent - 1);
    end = std::clamp<std::int64_t>(end, -1, extent - 1);
  }
  const std::int64_t span = end - start;
  const std::int64_t count = step > 0 ? (span + step - 1) / step : (-span + -step - 1) / -step;
  return {start, step, std::max<std::int64_t>(count, 0)};
}

std::optional<std::string> onnx_slice(const Extents& shape, const std::vector<std::int64_t>& starts,
                                      const std::vector<std::int64_t>& ends, std::vector<std::int64_t> axes,
                                      std::vector<std::int64_t> steps, std::vector<SliceAxis>& slice) {
  const std::int64_t rank = std::int64_t(shape.size());
  if (axes.empty())
    for (std::int64_t d = 0; d < std::int64_t(starts.size()); ++d) axes.push_back(d);
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return fmt::format("{} starts, {} ends, {} axes and {} steps: one of each per sliced axis", starts.size(),
                       ends.size(), axes.size(), steps.size());
  slice.clear();
  for (std::int64_t extent : shape) slice.push_back({0, 1, extent});
  std::vector<bool> given(shape.size(), false);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (axis < 0 || axis >= rank || given[std::size_t(axis)])
      return fmt::format("axis {} is out of range for rank {} or given twice", axes[i], rank);
    if (steps[i] == 0) return fmt::format("step 0 along axis {}", axes[i]);
    given[std::size_t(axis)] = true;
    slice[std::size_t(axis)] = onnx_slice_axis(shape[std::size_t(axis)], starts[i], ends[i], steps[i]);
    if (slice[std::size_t(axis)].count < 1)
      return fmt::format("start {}, end {}, step {} leave no element along axis {} of extent {}", starts[i], ends[i],
                         steps[i], axes[i], shape[std::size_t(axis)]);
  }
  return std::nullopt;
}

std::int64_t onnx_slice_end(const SliceAxis& axis, std::int64_t extent) {
  const std::int64_t end = axis.start + axis.count * axis.step;
  return end < 0 ? end - extent : end;  // ONNX reads a negative end from the back: −1 − extent means "before 0"
}

InferredShape layout_output_shape(const Network& network, const Operator& op, const std::string& label) {
  const Extents& in = network.tensors[op.inputs[0]].shape;
  switch (op.kind) {
    case OperatorKind::Transpose: return transpose_shape(op, in, label);
    case OperatorKind::Slice: return slice_shape(op, in, label);
    case OperatorKind::Gather: return gather_shape(op, in, label);
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceSum:
    case OperatorKind::ReduceMax: return reduction_shape(op, in, label);
    default: return problem(fmt::format("{} does not move data only", label));
  }
}

std::vector<std::int64_t> source_indices(const Operator& op, const Extents& input) {
  const Extents strides = strides_of(input);
  switch (op.kind) {
    case OperatorKind::Transpose: {
      Extents output;
      for (std::int64_t axis : op.perm) output.push_back(input[std::size_t(axis)]);
      return sum_of_axis_offsets(output, [&](std::size_t d, std::int64_t i) {
        return i * strides[std::size_t(op.perm[d])];
      });
    }
    case OperatorKind::Slice: {
      Extents output;
      for (const SliceAxis& axis : op.slice) output.push_back(axis.count);
      return sum_of_axis_offsets(output, [&](std::size_t d, std::int64_t i) {
        return (op.slice[d].start + i * op.slice[d].step) * strides[d];
      });
    }
    case OperatorKind::Gather: {
      // The output is (before, entries, after): the input's axes before `axis`, the indices (row-major), the
      // input's axes after it.
      const AxisRows rows = axis_rows(input, op.axis);
      const std::int64_t entries = std::int64_t(op.indices.size());
      std::vector<std::int64_t> sources(std::size_t(rows.outer * entries * rows.inner));
      for (std::size_t o = 0; o < sources.size(); ++o) {
        const std::int64_t inner = std::int64_t(o) % rows.inner, rest = std::int64_t(o) / rows.inner;
        const std::int64_t entry = rest % entries, outer = rest / entries;
        sources[o] = (outer * rows.extent + op.indices[std::size_t(entry)]) * rows.inner + inner;
      }
      return sources;
    }
    default: throw std::invalid_argument(fmt::format("source_indices: operator '{}' does not move data only", op.name));
  }
}

ReductionGroups reduction_groups(const Extents& shape, const std::vector<std::int64_t>& axes) {
  // The input seen with its kept axes first and its reduced axes last (a transpose): each group is contiguous there.
  Operator order;
  order.kind = OperatorKind::Transpose;
  ReductionGroups groups;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (std::find(axes.begin(), axes.end(), std::int64_t(d)) == axes.end()) order.perm.push_back(std::int64_t(d));
  for (std::int64_t axis : axes) {
    order.perm.push_back(axis);
    groups.size *= shape[std::size_t(axis)];
  }
  groups.sources = source_indices(order, shape);
  return groups;
}

bool is_reduction(const Operator& op) {
  return op.kind == OperatorKind::ReduceMean || op.kind == OperatorKind::ReduceSum || op.kind == OperatorKind::ReduceMax;
}

bool moves_data_only(const Operator& op) {
  return op.kind == OperatorKind::Transpose || op.kind == OperatorKind::Slice || op.kind == OperatorKind::Gather;
}

}  // namespace maeri::contracts
