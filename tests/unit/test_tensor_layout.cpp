// The index maps of the data-movement operators and the rows of softmax (contracts/tensor_layout.hpp), against
// values worked out by hand from ONNX's operator definitions (onnx/onnx docs/Operators.md: Transpose, Slice,
// Gather), and their shape rules' messages.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "contracts/network.hpp"

using namespace maeri::contracts;
using Indices = std::vector<std::int64_t>;

namespace {

Operator layout_operator(OperatorKind kind) {
  Operator op;
  op.name = "move";
  op.kind = kind;
  op.inputs = {0};
  op.outputs = {1};
  return op;
}

// A network of one input of `shape` and `op`, for the shape rule.
InferredShape shape_of(const Operator& op, Indices shape) {
  Network network;
  network.tensors = {{"x", std::move(shape), false, {}}, {"y", {1}, false, {}}};
  return inferred_output_shape(network, op);
}

}  // namespace

TEST_CASE("axis rows: the elements along one axis at each position of the others", "[contracts][layout]") {
  // Shape (2, 3, 4) along axis 1: 2 · 4 rows of 3; row 5 is (outer 1, inner 1): its element 2 is (1, 2, 1),
  // row-major 1·12 + 2·4 + 1 = 21.
  const AxisRows rows = axis_rows({2, 3, 4}, 1);
  CHECK(rows.rows() == 8);
  CHECK(rows.extent == 3);
  CHECK(rows.index(5, 2) == 21);
  CHECK(axis_rows({2, 3, 4}, 2).index(5, 3) == 23);  // the last axis: rows are contiguous
}

TEST_CASE("transpose: output axis i is input axis perm[i]", "[contracts][layout]") {
  Operator op = layout_operator(OperatorKind::Transpose);
  op.perm = {1, 0};  // (2, 3) → (3, 2): out[j][i] = in[i][j] = 3i + j
  CHECK(source_indices(op, {2, 3}) == Indices{0, 3, 1, 4, 2, 5});
  op.perm = {2, 0, 1};  // (2, 2, 3) → (3, 2, 2): out[k][i][j] = in[i][j][k] = 6i + 3j + k
  CHECK(source_indices(op, {2, 2, 3}) == Indices{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
  CHECK(shape_of(op, {2, 2, 3}).shape == Indices{3, 2, 2});
  op.perm = {0, 0, 1};
  const InferredShape bad = shape_of(op, {2, 2, 3});
  REQUIRE(bad.violation);
  CHECK(*bad.violation == "transpose 'move' has perm [0, 0, 1]; its input of shape (2,2,3) needs a permutation of 0..2");
}

TEST_CASE("slice: ONNX's clamping of starts and ends, negative steps", "[contracts][layout]") {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  // Extent 5, start −1 (4), end −6 (before 0), step −2: indices 4, 2, 0.
  CHECK(onnx_slice_axis(5, -1, -6, -2) == SliceAxis{4, -2, 3});
  // Start 1 to "the end" (INT64_MAX) by 2: indices 1, 3.
  CHECK(onnx_slice_axis(5, 1, kMax, 2) == SliceAxis{1, 2, 2});
  // Start 7 clamps to 5: nothing left.
  CHECK(onnx_slice_axis(5, 7, kMax, 1).count == 0);
  // Written back as ONNX ends, each gives the same slice.
  for (const SliceAxis& axis : {SliceAxis{4, -2, 3}, SliceAxis{1, 2, 2}, SliceAxis{4, -1, 5}, SliceAxis{0, 1, 5}})
    CHECK(onnx_slice_axis(5, axis.start, onnx_slice_end(axis, 5), axis.step) == axis);
  // (2, 5): axis −1 from 4 backwards by 2, axis 0 whole: out[i][j] = in[i][4 − 2j] = 5i + 4 − 2j.
  Operator op = layout_operator(OperatorKind::Slice);
  REQUIRE_FALSE(onnx_slice({2, 5}, {-1}, {-kMax}, {-1}, {-2}, op.slice));
  CHECK(source_indices(op, {2, 5}) == Indices{4, 2, 0, 9, 7, 5});
  CHECK(shape_of(op, {2, 5}).shape == Indices{2, 3});
  const auto empty = onnx_slice({2, 5}, {3}, {1}, {1}, {}, op.slice);
  REQUIRE(empty);
  CHECK(*empty == "start 3, end 1, step 1 leave no element along axis 1 of extent 5");
}

TEST_CASE("gather: constant indices along any axis", "[contracts][layout]") {
  // (2, 3, 2) along axis 1, indices [2, 0]: out[a][e][b] = in[a][indices[e]][b] = 6a + 2·indices[e] + b.
  Operator op = layout_operator(OperatorKind::Gather);
  op.axis = 1;
  op.indices = {2, 0};
  op.indices_shape = {2};
  CHECK(source_indices(op, {2, 3, 2}) == Indices{4, 5, 0, 1, 10, 11, 6, 7});
  CHECK(shape_of(op, {2, 3, 2}).shape == Indices{2, 2, 2});
  // Indices of shape (2, 1) add an axis; one scalar index removes it: (2, 3, 2) → (2, 2).
  op.indices_shape = {2, 1};
  CHECK(shape_of(op, {2, 3, 2}).shape == Indices{2, 2, 1, 2});
  op.indices = {1};
  op.indices_shape = {};
  CHECK(shape_of(op, {2, 3, 2}).shape == Indices{2, 2});
  CHECK(source_indices(op, {2, 3, 2}) == Indices{2, 3, 8, 9});
  op.indices = {3};
  const InferredShape bad = shape_of(op, {2, 3, 2});
  REQUIRE(bad.violation);
  CHECK(*bad.violation == "gather 'move' gathers entry 3 along axis 1 of its input of shape (2,3,2): indices must be "
                          "in [0, 3)");
}

TEST_CASE("softmax: any axis of any rank, a message naming the operator otherwise", "[contracts][layout]") {
  Operator op = layout_operator(OperatorKind::Softmax);
  op.axis = 2;
  CHECK(shape_of(op, {1, 4, 7}).shape == Indices{1, 4, 7});
  op.axis = 3;
  const InferredShape bad = shape_of(op, {1, 4, 7});
  REQUIRE(bad.violation);
  CHECK(*bad.violation == "softmax 'move' runs along axis 3; its input 'x' of shape (1,4,7) has axes 0..2");
}
