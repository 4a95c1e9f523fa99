// The layer of a product of two activations and the rule its operands obey (see matrix_product.hpp).
#include "contracts/matrix_product.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace maeri::contracts {
namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) { return fmt::format("({})", fmt::join(shape, ",")); }

constexpr std::size_t kMaxProductRank = 8;

}  // namespace

MatrixProductLayer matrix_product_layer(const std::string& label, const Tensor& a, const Tensor& b,
                                        const MatrixProductForm& form) {
  MatrixProductLayer result;
  const auto disagree = [&](const std::string& why) {
    result.violation = fmt::format("{} multiplies '{}' of shape {}{} by '{}' of shape {}{}: {}", label, a.name,
                                   shape_text(a.shape), form.transpose_a ? " (transposed)" : "", b.name,
                                   shape_text(b.shape), form.transpose_b ? " (transposed)" : "", why);
    return result;
  };
  if (a.shape.size() < 2 || b.shape.size() < 2 || a.shape.size() > kMaxProductRank ||
      b.shape.size() > kMaxProductRank)
    return disagree(fmt::format("both operands need rank 2 to {} ([..., rows, columns])", kMaxProductRank));
  if (a.shape.size() != b.shape.size() ||
      !std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin()))
    return disagree("the leading axes (batch, heads) must be equal, each position one product");
  const std::size_t rank = a.shape.size();
  const std::int64_t m = form.transpose_a ? a.shape[rank - 1] : a.shape[rank - 2];
  const std::int64_t k = form.transpose_a ? a.shape[rank - 2] : a.shape[rank - 1];
  const std::int64_t k_b = form.transpose_b ? b.shape[rank - 1] : b.shape[rank - 2];
  const std::int64_t n = form.transpose_b ? b.shape[rank - 2] : b.shape[rank - 1];
  if (k != k_b)
    return disagree(fmt::format("A's rows have {} elements but B's columns {}: they must be equal (the reduction)", k,
                                k_b));
  long double groups = 1;
  for (std::size_t d = 0; d + 2 < rank; ++d) groups *= static_cast<long double>(a.shape[d]);
  if (groups * static_cast<long double>(std::max(m, k)) > static_cast<long double>(kMaxLayerDimension))
    return disagree(fmt::format("more than {} filters or channels in the layer (leading positions × rows, × reduction)",
                                kMaxLayerDimension));
  const std::int64_t g = std::int64_t(groups);
  Layer& layer = result.layer;
  layer.type = LayerType::Gemm;
  layer.N = 1;
  layer.K = g * m;
  layer.C = g * k;
  layer.X = n;
  layer.groups = g;
  result.output_shape.assign(a.shape.begin(), a.shape.end() - 2);
  result.output_shape.push_back(m);
  result.output_shape.push_back(n);
  return result;
}

InferredShape matrix_product_output_shape(const Network& network, const Operator& op) {
  const std::string label = fmt::format("matmul '{}'", op.name);
  if (op.inputs.size() != 2)
    return {{}, fmt::format("{} reads {} tensors, expected 2 (A and B; no bias)", label, op.inputs.size())};
  const Tensor& b = network.tensors[op.inputs[0]];
  const Tensor& a = network.tensors[op.inputs[1]];
  MatrixProductLayer product = matrix_product_layer(label, a, b, op.product);
  if (product.violation) return {{}, product.violation};
  const Layer& layer = network.layers[op.layer];
  product.layer.name = layer.name;
  if (!same_shape(layer, product.layer))
    return {{}, fmt::format("{}: its layer is {}, its operands '{}' and '{}' give {}", label, shape_text(layer), a.name,
                            b.name, shape_text(product.layer))};
  return {product.output_shape, std::nullopt};
}

}  // namespace maeri::contracts
