// The product of two activations on the fabric (attention's Q·Kᵀ and P·V; docs/workload-spec.md, "Matrix
// products"): C[g] = A[g]·B[g] for every position g of the operands' leading axes (batch, heads), each g with its own
// operands, both tensors of the graph. It is a fabric layer like any other — the GEMM of G = ∏ leading extents
// groups, each group one product — so the tile space, the model, codegen and the RTL cover its arithmetic; what is
// its own is here: which tensor the layer reads as what, in which order.
//
// With A of shape [..., M, K] and B of shape [..., K, N] (same leading axes), the layer is the 1×1 convolution
// N = 1, K = G·M (A's rows are the filters), C = G·K (the reduction), X = N (B's columns are the input positions),
// Y = 1, groups = G. Its input (1, G·K, N, 1) is B in row-major order, its weights (G·M, K, 1, 1) are A in row-major
// order, and its output (1, G·M, N, 1) is C in row-major order: no operand moves. An operand given transposed
// (transpose_a: A as [..., K, M]; transpose_b: B as [..., N, K]) is read in its transposed order — the DN addresses
// its elements in the SDM differently, the same elements in the same number —, which layer_operand gives.
// The operator's inputs are (B, A): the layer's streamed input first, its weights second, as every fabric layer's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/layer.hpp"
#include "contracts/network.hpp"

namespace maeri::contracts {

// Whether `op` is a fabric layer that multiplies two activations (its weights are a tensor of the graph).
inline bool is_matrix_product(const Operator& op) {
  return op.kind == OperatorKind::FabricLayer && op.product.two_activations;
}

// The layer of the product of `a` by `b` (each read transposed when `form` says so), named `name`, or why the
// shapes disagree: both of rank 2 to 8, equal leading axes (no broadcasting), A's reduction extent equal to B's;
// the message names the operator `label`, both tensors and their shapes.
struct MatrixProductLayer {
  Layer layer;
  std::vector<std::int64_t> output_shape;  // [..., M, N]
  std::optional<std::string> violation;
};
MatrixProductLayer matrix_product_layer(const std::string& label, const Tensor& a, const Tensor& b,
                                        const MatrixProductForm& form);

// The shape a product writes, checked against the layer it runs (op.layer): what inferred_output_shape gives for it.
InferredShape matrix_product_output_shape(const Network& network, const Operator& op);

// An operand's values in the order the layer reads them: as they are, or with the last two axes swapped when the
// operand is given transposed (`transposed`, shape the operand's). Row-major in both.
template <class Value>
std::vector<Value> layer_operand(const std::vector<Value>& values, const std::vector<std::int64_t>& shape,
                                 bool transposed) {
  if (!transposed || shape.size() < 2) return values;
  const std::int64_t rows = shape[shape.size() - 2], columns = shape.back(), matrix = rows * columns;
  std::vector<Value> read(values.size());
  for (std::size_t g = 0; g * std::size_t(matrix) < values.size(); ++g)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < columns; ++c)
        read[g * std::size_t(matrix) + std::size_t(c * rows + r)] = values[g * std::size_t(matrix) + std::size_t(r * columns + c)];
  return read;
}

// A product's two operands as its layer reads them, from the tensors of a run (indexed like Network::tensors):
// `input` B (1, G·K, N, 1) and `weights` A (G·M, K, 1, 1), each in the order layer_operand gives.
template <class Value>
struct ProductOperands {
  std::vector<Value> input, weights;
};
template <class Value>
ProductOperands<Value> product_operands(const Network& network, const Operator& op,
                                        const std::vector<std::vector<Value>>& tensors) {
  const std::size_t b = op.inputs.at(0), a = op.inputs.at(1);
  return {layer_operand(tensors.at(b), network.tensors.at(b).shape, op.product.transpose_b),
          layer_operand(tensors.at(a), network.tensors.at(a).shape, op.product.transpose_a)};
}

}  // namespace maeri::contracts
