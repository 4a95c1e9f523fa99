// Index maps of the operators that move data without arithmetic (Transpose, Slice, Gather) and the rows of the
// row-wise operators (softmax along any axis): the one home of where each output element comes from, shared by the
// integer and float references (testbench/network_reference.cpp), the post-processing unit (sim/) and shape
// inference (contracts/network.cpp). docs/quantization.md, "Data movement"; docs/workload-spec.md, "Graphs".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maeri::contracts {

struct Network;
struct Operator;
struct InferredShape;

using Extents = std::vector<std::int64_t>;

// The rows of a tensor along one axis: outer × inner rows of `extent` elements each. Element c of row r is at
// (r / inner · extent + c) · inner + r % inner in row-major order; the rows are numbered in row-major order of
// (outer, inner).
struct AxisRows {
  std::int64_t outer = 1, extent = 1, inner = 1;
  std::int64_t rows() const { return outer * inner; }
  std::int64_t index(std::int64_t row, std::int64_t c) const { return (row / inner * extent + c) * inner + row % inner; }
};
// `axis` in [0, rank).
AxisRows axis_rows(const Extents& shape, std::int64_t axis);

// One axis of a Slice: `count` elements from `start` by `step` (≠ 0; negative walks backwards). Every index it reads,
// start + i·step for i < count, lies in [0, extent) of the input's axis.
struct SliceAxis {
  std::int64_t start = 0, step = 1, count = 1;
  bool operator==(const SliceAxis& other) const {
    return start == other.start && step == other.step && count == other.count;
  }
};

// ONNX Slice's rule for one axis of `extent` (opset 10+): negative start and end count from the end, then start is
// clamped to [0, extent] (step > 0) or [0, extent − 1] (step < 0) and end to [0, extent] or [−1, extent − 1];
// count = max(0, ⌈(end − start) / step⌉). `step` ≠ 0 (the caller checks).
SliceAxis onnx_slice_axis(std::int64_t extent, std::int64_t start, std::int64_t end, std::int64_t step);
// ONNX Slice's starts, ends, axes (empty: 0, 1, …; negative count from the back) and steps (empty: all 1) on a tensor
// of `shape` as one SliceAxis per axis (untouched axes whole), or why they do not fit: lists of unequal lengths, an
// axis out of range or given twice, a step of 0, an axis left with no element.
std::optional<std::string> onnx_slice(const Extents& shape, const std::vector<std::int64_t>& starts,
                                      const std::vector<std::int64_t>& ends, std::vector<std::int64_t> axes,
                                      std::vector<std::int64_t> steps, std::vector<SliceAxis>& slice);
// The ONNX `end` that gives `axis` back through onnx_slice_axis on an axis of `extent` (what a writer stores).
std::int64_t onnx_slice_end(const SliceAxis& axis, std::int64_t extent);

// The output's shape of the data-movement kinds (Transpose, Slice, Gather) and the reductions from their input's shape and their
// attributes, or why they do not fit (contracts::inferred_output_shape dispatches here). `label` names the operator.
InferredShape layout_output_shape(const Network& network, const Operator& op, const std::string& label);

// For every output element of a Transpose, Slice or Gather in row-major order, the input element (row-major index)
// it copies. `input` is the input's shape; the operator's attributes must fit it (layout_output_shape).
std::vector<std::int64_t> source_indices(const Operator& op, const Extents& input);

// The groups a reduction (ReduceMean, ReduceSum, ReduceMax) combines: `size` input elements per output element;
// `sources` lists the input indices (row-major) group by group, in the output's row-major order, each group in
// row-major order of the reduced axes.
struct ReductionGroups {
  std::int64_t size = 1;
  std::vector<std::int64_t> sources;
};
ReductionGroups reduction_groups(const Extents& shape, const std::vector<std::int64_t>& axes);
bool is_reduction(const Operator& op);

// Whether `op`'s output is a copy of input elements (source_indices applies).
bool moves_data_only(const Operator& op);

// values[sources[o]] for every o: a data-movement operator's output from its input and source_indices.
template <typename Value>
std::vector<Value> copied_from(const std::vector<Value>& values, const std::vector<std::int64_t>& sources) {
  std::vector<Value> out;
  out.reserve(sources.size());
  for (std::int64_t source : sources) out.push_back(values[std::size_t(source)]);
  return out;
}

}  // namespace maeri::contracts
