// Gemm, MatMul and Einsum as GEMM layers: A's rows as the layer's batch where one weight matrix serves them all
// (a fully connected layer's samples), as its X otherwise; B (transposed to the layer's (N, K)) as its weights when
// it is constant — one layer per matrix when a constant B is batched. A MatMul of two activations (attention's QKᵀ
// and AV) is a matrix product (contracts/matrix_product.hpp): each head its own operands, and a Transpose that only
// swaps an operand's last two axes folds into the operand's layout.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "contracts/matrix_product.hpp"
#include "contracts/strict_yaml.hpp"

namespace maeri::importer {
namespace {

// Whether swapping two axes of these extents (a GEMM layer reads A as (K, M) where ONNX stores (M, K)) leaves the
// row-major element order unchanged: only when at most one of them is not 1.
bool same_order(const Dims& logical_order) {
  std::int64_t non_unit = 0;
  for (const std::int64_t dim : logical_order) non_unit += dim != 1;
  return non_unit <= 1;
}

// Slice `slice` of a constant B of K×N matrices as the layer's weights (N, K): Bᵀ.
std::vector<double> transposed_slice(const std::vector<double>& values, std::int64_t slice, std::int64_t k,
                                     std::int64_t n) {
  std::vector<double> ordered(std::size_t(k * n));  // the layer's (N, K): Bᵀ
  for (std::int64_t row = 0; row < k; ++row)
    for (std::int64_t column = 0; column < n; ++column)
      ordered[std::size_t(column * k + row)] = values[std::size_t((slice * k + row) * n + column)];
  return ordered;
}

// Einsum's constant second operand as the layer's weights (N, K): N's letters (second operand and output) in the
// second operand's order, K's (both operands only) in the first operand's, row-major; nullopt when the operand
// has a batch letter (one matrix per batch position) or a letter twice.
std::optional<std::vector<double>> einsum_weights(const std::string& right, const std::string& left,
                                                  const std::string& out, const Dims& b,
                                                  const std::vector<double>& values) {
  std::string n_letters, k_letters;
  for (const char letter : right) {
    if (std::count(right.begin(), right.end(), letter) != 1 ||
        (left.find(letter) != std::string::npos && out.find(letter) != std::string::npos))
      return std::nullopt;
    if (out.find(letter) != std::string::npos) n_letters += letter;
  }
  for (const char letter : left)
    if (right.find(letter) != std::string::npos && out.find(letter) == std::string::npos &&
        k_letters.find(letter) == std::string::npos)
      k_letters += letter;
  const Dims strides = [&] {
    Dims result(b.size(), 1);
    for (std::size_t i = b.size(); i-- > 1;) result[i - 1] = result[i] * b[i];
    return result;
  }();
  // The offset in B of each row-major index over `letters`, letter by letter.
  const auto offsets = [&](const std::string& letters) {
    std::vector<std::int64_t> result = {0};
    for (const char letter : letters) {
      const std::size_t axis = right.find(letter);
      std::vector<std::int64_t> next;
      for (const std::int64_t base : result)
        for (std::int64_t i = 0; i < b[axis]; ++i) next.push_back(base + i * strides[axis]);
      result = std::move(next);
    }
    return result;
  };
  std::vector<double> weights;
  weights.reserve(values.size());
  for (const std::int64_t row : offsets(n_letters))
    for (const std::int64_t column : offsets(k_letters)) weights.push_back(values[std::size_t(row + column)]);
  return weights;
}

}  // namespace

// Gemm: Y = alpha·A'·B' + beta·C with A' = A or Aᵀ (M×K) and B' = B or Bᵀ (K×N).
void GraphReader::gemm(const onnx::NodeProto& node, int index, const std::string& name) {
  const Dims a = input_shape(node, name, 0, "input A");
  const Dims b = input_shape(node, name, 1, "input B");
  if (a.size() != 2 || b.size() != 2)
    fail(name, fmt::format("Gemm needs 2-D A and B, found ranks {} and {}", a.size(), b.size()));
  const bool transpose_a = integer(node, name, "transA", 0) != 0, transpose_b = integer(node, name, "transB", 0) != 0;
  const std::int64_t m = transpose_a ? a[1] : a[0], k = transpose_a ? a[0] : a[1];
  const std::int64_t k_b = transpose_b ? b[1] : b[0], n = transpose_b ? b[0] : b[1];
  if (k != k_b) fail(name, fmt::format("A' is {}x{} but B' is {}x{}", m, k, k_b, n));
  // A (M×K) row-major is the layer's input as (M, K, 1, 1): its rows are the batch, as a fully connected layer's
  // samples are (the mapper costs rows as batch and rows as X alike). A stored transposed (transA) is (1, K, M, 1):
  // its rows are the X.
  const bool rows_as_batch = !transpose_a && m <= contracts::kMaxBatch;
  const contracts::Layer layer = rows_as_batch ? contracts::gemm_layer(m, 1, k, n) : contracts::gemm_layer(1, m, k, n);
  LayerLinks links;
  links.input = node.input(0);
  links.input_in_order = rows_as_batch || transpose_a || same_order({m, k});
  links.output = node.output(0);
  links.output_in_order = rows_as_batch || same_order({m, n});
  links.cut_reason = fmt::format("more than {} rows of A (kMaxBatch): they are the layer's X, read as (1, K, M, 1)",
                                 contracts::kMaxBatch);
  const double alpha = real(node, name, "alpha", 1.0), beta = real(node, name, "beta", 1.0);
  if (auto weights = values(node, 1)) {
    std::vector<double> ordered(weights->size());  // the layer's [N][K]: Bᵀ
    for (std::int64_t row = 0; row < k; ++row)
      for (std::int64_t column = 0; column < n; ++column)
        ordered[std::size_t(column * k + row)] =
            alpha * (*weights)[std::size_t(transpose_b ? column * k + row : row * n + column)];
    if (transpose_b && alpha == 1.0) links.weight_name = node.input(1);
    links.weights = std::move(ordered);
  }
  if (node.input_size() > 2 && !node.input(2).empty()) {
    const auto c = constant(node.input(2));
    const bool per_column = c && (c->elements() == 1 || (c->elements() == n && (c->dims.size() == 1 || c->dims[0] == 1)));
    if (!per_column) {
      links.output = "";
      note(fmt::format("cut: layer {}: its C is not one bias per output column", name));
    } else {
      std::vector<double> bias(static_cast<std::size_t>(n));
      for (std::int64_t j = 0; j < n; ++j) bias[std::size_t(j)] = beta * c->real(c->elements() == 1 ? 0 : std::size_t(j));
      links.bias = std::move(bias);
    }
  }
  if (links.weights && !links.output.empty()) fold_after_product(index, name, n, links);
  add_layer(node, layer, name, std::move(links));
}

// MatMul (numpy semantics): [..., M, K] by [..., K, N]; the broadcast leading dimensions are the batch. With two
// activation operands (attention's QKᵀ and AV) the second one streams through the fabric like weights.
void GraphReader::matmul(const onnx::NodeProto& node, int index, const std::string& name) {
  Dims a = input_shape(node, name, 0, "input A");
  Dims b = input_shape(node, name, 1, "input B");
  if (a.empty() || b.empty()) fail(name, "MatMul of a scalar");
  if (a.size() == 1) a.insert(a.begin(), 1);  // a vector is one row
  if (b.size() == 1) b.push_back(1);          // … or one column
  const std::int64_t m = a[a.size() - 2], k = a.back(), k_b = b[b.size() - 2], n = b.back();
  if (k != k_b) fail(name, fmt::format("A is …x{}x{} but B is …x{}x{}", m, k, k_b, n));
  const std::int64_t batch = broadcast_batch(name, Dims(a.begin(), a.end() - 2), Dims(b.begin(), b.end() - 2));
  std::int64_t a_batch = 1;
  for (std::size_t i = 0; i + 2 < a.size(); ++i) a_batch *= a[i];
  std::int64_t b_batch = 1;
  for (std::size_t i = 0; i + 2 < b.size(); ++i) b_batch *= b[i];
  // One weight matrix for every row of A (B constant and not batched, B's leading dimensions all 1): A's rows,
  // over all its leading dimensions, are the layer's batch, so that the row-major A is its input (rows, K, 1, 1)
  // and its output the row-major Y — as Gemm's rows. Otherwise A's rows are the X of each batch position.
  const bool shared_weights = b_batch == 1 && (constant(node.input(1)) || initializers_.count(node.input(1)));
  const bool rows_as_batch = shared_weights && a_batch == batch && m <= contracts::kMaxBatch / batch;
  const contracts::Layer layer =
      rows_as_batch ? contracts::gemm_layer(batch * m, 1, k, n) : contracts::gemm_layer(batch, m, k, n);
  LayerLinks links;
  links.input = node.input(0);
  links.input_in_order = rows_as_batch || (a_batch == batch && same_order({m, k}));
  links.output = node.output(0);
  links.output_in_order = rows_as_batch || same_order({m, n});
  links.cut_reason = shared_weights ? fmt::format("more than {} rows of A in all (kMaxBatch): each batch position's "
                                                  "rows are the layer's X, read as (batch, K, M, 1)",
                                                  contracts::kMaxBatch)
                                    : "a GEMM layer of two activations reads A as (batch, K, M, 1): its rows are the X";
  const auto weights = values(node, 1);
  if (!weights && !initializers_.count(node.input(1)) && activation_product(node, name)) return;
  if (weights && b_batch > 1)
    return batched_constant_product(node, name, *weights, b_batch, batch, m, k, n, a_batch);
  if (weights) {
    links.weights = transposed_slice(*weights, 0, k, n);
    fold_after_product(index, name, n, links);
  } else if (!initializers_.count(node.input(1))) {
    note(fmt::format("layer {}: its second operand '{}' is an activation, streamed like weights (a network input "
                     "of the layer's weight shape: the contract's weights have no batch)",
                     name, node.input(1)));
  }
  add_layer(node, layer, name, std::move(links));
}

// The ONNX tensor a Transpose that only swaps the last two axes reads, when `tensor` is that Transpose's output.
std::optional<std::string> GraphReader::last_axes_swapped(const std::string& tensor) const {
  for (const onnx::NodeProto& node : model_.graph().node()) {
    if (node.output_size() < 1 || node.output(0) != tensor) continue;
    const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
    if (node.op_type() != "Transpose" || !x || x->size() < 2) return std::nullopt;
    const Dims perm = ints(node, node.name(), "perm", {});
    Dims swapped;
    for (std::size_t axis = 0; axis < x->size(); ++axis) swapped.push_back(std::int64_t(axis));
    std::swap(swapped[x->size() - 2], swapped[x->size() - 1]);
    if (perm != swapped && !(perm.empty() && x->size() == 2)) return std::nullopt;
    return node.input(0);
  }
  return std::nullopt;
}

// A Transpose folded into the operands of the MatMuls it feeds: it only swaps the last two axes and every reader is
// a MatMul whose other operand is an activation too, so each reads the Transpose's input transposed.
bool GraphReader::folds_into_products(const onnx::NodeProto& node) const {
  if (node.output_size() < 1 || !last_axes_swapped(node.output(0))) return false;
  const auto readers = readers_.find(node.output(0));
  if (readers == readers_.end() || graph_outputs_.count(node.output(0))) return false;
  for (const int reader : readers->second) {
    const onnx::NodeProto& product = model_.graph().node(reader);
    if (product.op_type() != "MatMul" || product.input_size() != 2) return false;
    for (const std::string& operand : product.input())
      if (initializers_.count(operand) || constant(operand)) return false;
  }
  return true;
}

// MatMul of two activations as a matrix product (contracts/matrix_product.hpp): both operands of rank ≥ 2 with
// leading axes (batch, heads) that broadcast (made equal by onnx_product_broadcast.cpp); an operand that a
// Transpose of its last two axes made is read from the Transpose's input, transposed. False (nothing added) when the operands are not of that form: the caller streams B
// like weights as before.
bool GraphReader::activation_product(const onnx::NodeProto& node, const std::string& name) {
  contracts::MatrixProductForm form;
  form.two_activations = true;
  std::optional<std::size_t> operands[2];
  for (int i = 0; i < 2; ++i) {
    const auto source = last_axes_swapped(node.input(i));
    const bool folded = source && folds_into_products_of(*source, node.input(i));
    operands[i] = activation(folded ? *source : node.input(i));
    (i == 0 ? form.transpose_a : form.transpose_b) = folded;
    if (!operands[i]) return false;
  }
  const Dims& a_shape = network().tensors[*operands[0]].shape;
  const Dims& b_shape = network().tensors[*operands[1]].shape;
  const auto leading = broadcast_leading_axes(a_shape, b_shape);
  if (leading && a_shape.end()[form.transpose_a ? -2 : -1] == b_shape.end()[form.transpose_b ? -1 : -2]) {
    // Only operands that will multiply: a failed product adds no operator (the caller streams B like weights).
    operands[0] = broadcast_operand(name, "a", *operands[0], *leading);
    operands[1] = broadcast_operand(name, "b", *operands[1], *leading);
    note(fmt::format("layer {}: its operands' leading axes broadcast to ({}): repeated by concats", name,
                     fmt::join(*leading, ",")));
  }
  const contracts::Tensor& a = network().tensors[*operands[0]];
  const contracts::Tensor& b = network().tensors[*operands[1]];
  contracts::MatrixProductLayer product =
      contracts::matrix_product_layer(fmt::format("MatMul '{}'", name), a, b, form);
  if (product.violation) {
    note(fmt::format("layer {}: {}; its second operand is streamed like weights", name, *product.violation));
    return false;
  }
  product.layer.name = name;
  if (const auto violation = contracts::shape_violation(product.layer))
    fail(name, fmt::format("the matrix product it gives is not valid: {}", violation->message));
  const auto onnx_shape = known_shape(node.output(0));
  const bool direct = onnx_shape && *onnx_shape == product.output_shape && !tensor_of_.count(node.output(0));
  const std::size_t output = add_tensor(direct ? node.output(0) : name + ".output", product.output_shape, false);
  network().layers.push_back(product.layer);
  const std::size_t op = add_operator(name, contracts::OperatorKind::FabricLayer, {*operands[1], *operands[0]}, output);
  network().operators[op].layer = network().layers.size() - 1;
  network().operators[op].product = form;
  if (direct) tensor_of_[node.output(0)] = output;
  return true;
}

// Whether the Transpose writing `transposed` (reading `source`) folded into its MatMuls (folds_into_products).
bool GraphReader::folds_into_products_of(const std::string& source, const std::string& transposed) const {
  for (const onnx::NodeProto& node : model_.graph().node())
    if (node.output_size() > 0 && node.output(0) == transposed && node.input_size() > 0 && node.input(0) == source)
      return folds_into_products(node);
  return false;
}

// A MatMul whose constant B holds a different K×N matrix per batch position (per head): the contract's weights
// have no batch, so it becomes one GEMM layer per slice of B, `NAME.slice<i>`, of the batch positions that read
// that slice, each with its own weights; their inputs and outputs are network tensors of their own (A is read
// as it is only when every slice reads all of it).
void GraphReader::batched_constant_product(const onnx::NodeProto& node, const std::string& name,
                                           const std::vector<double>& b, std::int64_t slices, std::int64_t batch,
                                           std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t a_batch) {
  if (slices > std::int64_t(contracts::kMaxYamlSequenceLength))
    fail(name, fmt::format("its constant B holds {} matrices: one layer each is more than a workload may list ({})",
                           slices, contracts::kMaxYamlSequenceLength));
  for (std::int64_t slice = 0; slice < slices; ++slice) {
    LayerLinks links;
    links.input = node.input(0);
    links.input_in_order = a_batch == 1 && same_order({m, k});
    links.output = node.output(0);
    links.output_in_order = false;
    links.cut_reason = "one layer per matrix of a batched constant B";
    links.weights = transposed_slice(b, slice, k, n);
    const std::string layer_name = fmt::format("{}.slice{}", name, slice);
    node_names_.insert(layer_name);
    add_layer(node, contracts::gemm_layer(batch / slices, m, k, n), layer_name, std::move(links));
  }
  note(fmt::format("layer {}: its constant B holds {} matrices of {}x{}: one GEMM layer per matrix ({}.slice0 …)",
                   name, slices, k, n, name));
}

std::int64_t GraphReader::broadcast_batch(const std::string& name, const Dims& a, const Dims& b) const {
  std::int64_t batch = 1;
  const std::size_t leading = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < leading; ++i) {
    const std::int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const std::int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) fail(name, fmt::format("batch dimensions {} and {} do not broadcast", da, db));
    const std::int64_t broadcast = da == 1 ? db : da;  // 1 stretches to the other, 0 stays 0
    if (broadcast == 0) fail(name, "a batch dimension of 0: an empty product, no multiply-accumulates to map");
    // Compared before multiplying: the product of two dimensions may not fit int64.
    if (broadcast > contracts::kMaxBatch / batch)
      fail(name, fmt::format("a batch of more than {} products (the Layer's limit)", contracts::kMaxBatch));
    batch *= broadcast;
  }
  return batch;
}

// Einsum of two operands that is a batched matrix product: the letters of both operands and the output are the
// batch, those of the first operand and the output M, of the second and the output N, of both operands only K.
void GraphReader::einsum(const onnx::NodeProto& node, const std::string& name) {
  std::string equation = text(node, name, "equation", "");
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const std::size_t comma = equation.find(','), arrow = equation.find("->");
  if (node.input_size() != 2 || comma == std::string::npos || arrow == std::string::npos || arrow < comma ||
      equation.find("...") != std::string::npos)
    fail(name, fmt::format("attribute 'equation': '{}' is not a product of two operands with an explicit output "
                           "('bhqd,bhkd->bhqk'); only those become layers",
                           equation));
  const std::string left = equation.substr(0, comma), right = equation.substr(comma + 1, arrow - comma - 1),
                    out = equation.substr(arrow + 2);
  const Dims a = input_shape(node, name, 0, "input A"), b = input_shape(node, name, 1, "input B");
  if (a.size() != left.size() || b.size() != right.size())
    fail(name, fmt::format("attribute 'equation': '{}' does not match operands of ranks {} and {}", equation,
                           a.size(), b.size()));
  std::int64_t batch = 1, m = 1, k = 1, n = 1;
  std::set<char> seen;
  const auto extent = [&](char letter) {
    const std::size_t in_a = left.find(letter);
    return in_a != std::string::npos ? a[in_a] : b[right.find(letter)];
  };
  for (const char letter : left + right) {
    if (!seen.insert(letter).second) continue;
    const bool in_a = left.find(letter) != std::string::npos, in_b = right.find(letter) != std::string::npos,
               in_out = out.find(letter) != std::string::npos;
    if (in_a && in_b && in_out) batch *= extent(letter);
    else if (in_a && in_b) k *= extent(letter);
    else if (in_a && in_out) m *= extent(letter);
    else if (in_b && in_out) n *= extent(letter);
    else fail(name, fmt::format("attribute 'equation': '{}' sums '{}' over one operand only", equation, letter));
  }
  if (batch > contracts::kMaxBatch) fail(name, fmt::format("a batch of {} products (more than the Layer's {})", batch, contracts::kMaxBatch));
  LayerLinks links;
  links.input = node.input(0);
  links.input_in_order = false;
  links.cut_reason = "an Einsum's operands are read in the equation's order";
  links.output = node.output(0);
  links.output_in_order = false;
  if (const auto weights = values(node, 1)) {
    links.weights = einsum_weights(right, left, out, b, *weights);
    if (!links.weights)
      note(fmt::format("layer {}: its constant second operand varies over the batch letters or repeats a letter: no "
                       "weights given",
                       name));
  }
  add_layer(node, contracts::gemm_layer(batch, m, k, n), name, std::move(links));
}

}  // namespace maeri::importer
