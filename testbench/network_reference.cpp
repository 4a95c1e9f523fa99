// The integer and float references of a whole network and the quantization-cost report (see
// network_reference.hpp). Every loop here is written from docs/quantization.md; nothing calls codegen.
#include "testbench/network_reference.hpp"

#include "testbench/tensor_lifetimes.hpp"

#include "contracts/matrix_product.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "contracts/elementwise_pairs.hpp"
#include "testbench/layer_normalization.hpp"
#include "testbench/reductions.hpp"
#include "testbench/table_lookup.hpp"

namespace maeri::testbench {

namespace {

using contracts::Network;
using contracts::Operator;
using contracts::OperatorKind;
using contracts::QuantizedNetwork;
using contracts::QuantizedOperator;
using contracts::WideInt;
using Shape = std::vector<std::int64_t>;

[[noreturn]] void fail(const Operator& op, const std::string& message) {
  throw std::invalid_argument(fmt::format("operator '{}' ({}): {}", op.name, contracts::operator_label(op), message));
}

// An activation of rank 4, (N, C, X, Y).
struct Extents4 {
  std::int64_t n, c, x, y;
};

Extents4 extents4(const Network& network, const Operator& op, std::size_t tensor) {
  const Shape& shape = network.tensors[tensor].shape;
  if (shape.size() != 4)
    fail(op, fmt::format("'{}' has rank {}, the operator needs rank 4 (N, C, X, Y)", network.tensors[tensor].name,
                         shape.size()));
  return {shape[0], shape[1], shape[2], shape[3]};
}

// The shape operator `op` computes from its inputs' shapes: contracts::inferred_output_shape, the one home of that
// rule, once the operator's tensor indices are known to be in range. The references then hold the output tensor's
// shape to it.
Shape computed_output_shape(const Network& network, const Operator& op) {
  if (op.outputs.size() != 1) fail(op, fmt::format("has {} outputs, every operator has 1", op.outputs.size()));
  for (std::size_t t : op.inputs)
    if (t >= network.tensors.size()) fail(op, fmt::format("reads tensor #{}, which does not exist", t));
  if (op.outputs[0] >= network.tensors.size()) fail(op, fmt::format("writes tensor #{}, which does not exist", op.outputs[0]));
  contracts::InferredShape inferred = contracts::inferred_output_shape(network, op);
  if (inferred.violation) throw std::invalid_argument(*inferred.violation);  // it names the operator
  return std::move(inferred.shape);
}

// Checks the operator's shapes and that its inputs hold their shapes' numbers of values.
template <typename Value>
void check_operator(const Network& network, const Operator& op, const std::vector<std::vector<Value>>& tensors) {
  const Shape computed = computed_output_shape(network, op);
  const contracts::Tensor& output = network.tensors[op.outputs[0]];
  if (computed != output.shape)
    fail(op, fmt::format("its output '{}' has shape ({}), the operator computes ({})", output.name,
                         fmt::join(output.shape, ","), fmt::join(computed, ",")));
  const std::size_t activations = contracts::activation_inputs(network, op);
  for (std::size_t i = 0; i < activations; ++i) {
    const contracts::Tensor& input = network.tensors[op.inputs[i]];
    if (std::int64_t(tensors[op.inputs[i]].size()) != input.elements())
      fail(op, fmt::format("its input '{}' holds {} values, its shape ({}) has {}", input.name,
                           tensors[op.inputs[i]].size(), fmt::join(input.shape, ","), input.elements()));
  }
}

// Calls visit(output index, input offset of the (n, c) plane, x range, y range) for every output of a pool, the
// ranges being the window's part inside the input ([begin, end), empty when the window sees only padding).
template <typename Visit>
void for_each_window(const Extents4& in, const contracts::PoolWindow& w, Visit visit) {
  const std::int64_t XO = w.output_x(in.x), YO = w.output_y(in.y);
  std::int64_t out = 0;
  for (std::int64_t plane = 0; plane < in.n * in.c; ++plane)
    for (std::int64_t xo = 0; xo < XO; ++xo)
      for (std::int64_t yo = 0; yo < YO; ++yo, ++out) {
        const std::int64_t x0 = xo * w.stride_x - w.padding_x, y0 = yo * w.stride_y - w.padding_y;
        visit(out, plane * in.x * in.y, std::max<std::int64_t>(x0, 0), std::min(x0 + w.size_x, in.x),
              std::max<std::int64_t>(y0, 0), std::min(y0 + w.size_y, in.y));
      }
}

// Pad: each (n, c) plane inside a border of zeros, x_begin rows above and y_begin columns before it.
template <typename Value>
std::vector<Value> zero_bordered(const Extents4& in, const contracts::PadBorder& border, const std::vector<Value>& x) {
  const std::int64_t X = border.output_x(in.x), Y = border.output_y(in.y);
  std::vector<Value> out(std::size_t(in.n * in.c * X * Y), Value(0));
  for (std::int64_t plane = 0; plane < in.n * in.c; ++plane)
    for (std::int64_t r = 0; r < in.x; ++r)
      for (std::int64_t c = 0; c < in.y; ++c)
        out[std::size_t((plane * X + r + border.x_begin) * Y + c + border.y_begin)] =
            x[std::size_t((plane * in.x + r) * in.y + c)];
  return out;
}

// Concat's layout: the output is `outer` blocks, each the inputs' blocks of axis-extent × `inner` elements in turn.
struct ConcatLayout {
  std::int64_t outer = 1, inner = 1;
};
ConcatLayout concat_layout(const Shape& shape, std::int64_t axis) {
  ConcatLayout layout;
  for (std::int64_t d = 0; d < axis; ++d) layout.outer *= shape[std::size_t(d)];
  for (std::size_t d = std::size_t(axis) + 1; d < shape.size(); ++d) layout.inner *= shape[d];
  return layout;
}

// Softmax's rows along its axis (contracts::axis_rows): visit(first element, count, stride) per row.
template <typename Visit>
void for_each_softmax_row(const Shape& shape, std::int64_t axis, Visit visit) {
  const contracts::AxisRows rows = contracts::axis_rows(shape, axis);
  for (std::int64_t row = 0; row < rows.rows(); ++row) visit(rows.index(row, 0), rows.extent, rows.inner);
}

// The convolution of docs/quantization.md's fabric layer as `Sum`s of multiply(input, weight): for every output
// (n, k, x', y') the products of filter k's taps (its group's channels only, weights [K][C/groups][R][S]) with the
// input elements they see; taps on the padding see nothing. The loops run tap by tap over whole output rows, with
// each row's range of y' whose input column lies inside the input worked out once instead of tested per element.
template <typename Sum, typename Value, typename Multiply>
std::vector<Sum> convolution_sums(const contracts::Layer& layer, const std::vector<Value>& input,
                                  const std::vector<Value>& weights, Multiply multiply) {
  const std::int64_t XO = layer.output_x(), YO = layer.output_y(), group_c = layer.group_channels();
  std::vector<Sum> sums(std::size_t(layer.output_elements()), Sum(0));
  for (std::int64_t n = 0; n < layer.N; ++n)
    for (std::int64_t k = 0; k < layer.K; ++k) {
      Sum* plane = sums.data() + (n * layer.K + k) * XO * YO;
      const std::int64_t first_c = k / layer.group_filters() * group_c;
      for (std::int64_t c = 0; c < group_c; ++c)
        for (std::int64_t r = 0; r < layer.R; ++r)
          for (std::int64_t s = 0; s < layer.S; ++s) {
            const Value weight = weights[std::size_t(((k * group_c + c) * layer.R + r) * layer.S + s)];
            // Input column of output y': y'·stride_y + first_column; inside the input for y' in [y_begin, y_end).
            const std::int64_t first_column = s * layer.dilation_y - layer.padding_y;
            const std::int64_t y_begin =
                first_column >= 0 ? 0 : (-first_column + layer.stride_y - 1) / layer.stride_y;
            const std::int64_t y_end =
                first_column >= layer.Y ? 0 : std::min(YO, (layer.Y - 1 - first_column) / layer.stride_y + 1);
            for (std::int64_t xo = 0; xo < XO; ++xo) {
              const std::int64_t row = xo * layer.stride_x + r * layer.dilation_x - layer.padding_x;
              if (row < 0 || row >= layer.X) continue;
              const Value* input_row = input.data() + ((n * layer.C + first_c + c) * layer.X + row) * layer.Y;
              Sum* output_row = plane + xo * YO;
              for (std::int64_t yo = y_begin; yo < y_end; ++yo)
                output_row[yo] += multiply(input_row[yo * layer.stride_y + first_column], weight);
            }
          }
    }
  return sums;
}

// One operator of the integer reference: the quantized network, the operator with its quantization, the tensors
// computed so far and the operator's first input.
struct IntegerStep {
  const QuantizedNetwork& qnet;
  const Operator& op;
  const QuantizedOperator& q;
  const IntegerTensors& tensors;
  const std::vector<std::int64_t>& x;
  std::int64_t out_elements;
  std::int64_t* largest_sum = nullptr;  // a fabric layer's largest |Σ + bias| before wrapping, when asked

  const Shape& input_shape(std::size_t i = 0) const { return qnet.network.tensors[op.inputs[i]].shape; }
  void require_requantizations(std::size_t count) const {
    if (q.output.size() != count) fail(op, fmt::format("has {} requantizations, needs {}", q.output.size(), count));
  }
  void require_input_multipliers() const {
    const std::size_t operands = contracts::is_elementwise_pair(op.kind) ? 2 : op.inputs.size();
    if (q.input_multipliers.size() != operands)
      fail(op, fmt::format("has {} input multipliers for {} inputs", q.input_multipliers.size(), op.inputs.size()));
  }
  // The input's value v·m >> shift, saturated to the data width (docs/quantization.md, rescaling).
  std::int64_t rescaled(std::int64_t v, std::int64_t multiplier, int shift) const {
    return contracts::saturate(contracts::round_shift(WideInt(v) * multiplier, shift), qnet.data_width);
  }
};

// A fabric layer's epilogue on its sums (exact or already wrapped at acc_width: the epilogue wraps sum + bias at
// acc_width, so either gives the same): each output's filter bias and requantization.
template <typename Sum>
std::vector<std::int64_t> requantized_sums(const QuantizedNetwork& qnet, const Operator& op, const QuantizedOperator& q,
                                           const std::vector<Sum>& sums) {
  const contracts::Layer& layer = qnet.network.layers[op.layer];
  const std::int64_t plane = layer.output_x() * layer.output_y();
  std::vector<std::int64_t> out;
  out.reserve(sums.size());
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const std::size_t k = std::size_t(std::int64_t(i) / plane % layer.K);
    out.push_back(contracts::requantize_accumulator(std::int64_t(sums[i]), q.bias[k], q.output[k], qnet.acc_width,
                                                    qnet.data_width));
  }
  return out;
}

// A fabric layer: the accumulators of the integer convolution, each with its filter's bias and requantization.
// A matrix product's weights are its operand A (contracts/matrix_product.hpp), its bias zeros.
std::vector<std::int64_t> integer_fabric_layer(const IntegerStep& step) {
  const QuantizedOperator& q = step.q;
  const contracts::Layer& layer = step.qnet.network.layers[step.op.layer];
  const bool product = contracts::is_matrix_product(step.op);
  const contracts::ProductOperands<std::int64_t> operands =
      product ? contracts::product_operands(step.qnet.network, step.op, step.tensors)
              : contracts::ProductOperands<std::int64_t>{};
  const std::vector<std::int64_t>& input = product ? operands.input : step.x;
  const std::vector<std::int64_t>& weights = product ? operands.weights : q.weights;
  if (std::int64_t(weights.size()) != layer.weight_elements())
    fail(step.op, fmt::format("has {} integer weights, layer '{}' has {}", weights.size(), layer.name,
                              layer.weight_elements()));
  if (std::int64_t(q.bias.size()) != layer.K)
    fail(step.op, fmt::format("has {} biases for {} filters", q.bias.size(), layer.K));
  step.require_requantizations(std::size_t(layer.K));
  // The exact sums (modulo 2^64, which holds them: |q| < 2^31 and fan-ins below 2^32 at data widths ≤ 16); the
  // epilogue wraps sum + bias at acc_width, which equals wrapping the sum first (integer_convolution) and then.
  const std::vector<std::uint64_t> acc = convolution_sums<std::uint64_t>(
      layer, input, weights, [](std::int64_t x, std::int64_t w) { return std::uint64_t(x) * std::uint64_t(w); });
  if (step.largest_sum) {
    const std::int64_t plane = layer.output_x() * layer.output_y();
    std::uint64_t largest = 0;
    for (std::size_t i = 0; i < acc.size(); ++i) {
      const WideInt with_bias = WideInt(std::int64_t(acc[i])) + q.bias[std::size_t(std::int64_t(i) / plane % layer.K)];
      largest = std::max(largest, std::uint64_t(with_bias < 0 ? -with_bias : with_bias));
    }
    *step.largest_sum = std::int64_t(std::min<std::uint64_t>(largest, INT64_MAX));
  }
  return requantized_sums(step.qnet, step.op, q, acc);
}

// Requantize, relu, clip, and the table functions through their table: value by value.
std::vector<std::int64_t> integer_elementwise(const IntegerStep& step) {
  const QuantizedOperator& q = step.q;
  std::vector<std::int64_t> out;
  out.reserve(step.x.size());
  switch (step.op.kind) {
    case OperatorKind::Requantize:
      step.require_requantizations(1);
      for (std::int64_t v : step.x) out.push_back(step.rescaled(v, q.output[0].multiplier, q.output[0].shift));
      return out;
    case OperatorKind::Relu:
      for (std::int64_t v : step.x) out.push_back(std::max<std::int64_t>(v, 0));
      return out;
    case OperatorKind::Clip:
      for (std::int64_t v : step.x) out.push_back(std::min(std::max(v, q.clip_min), q.clip_max));
      return out;
    default: break;
  }
  const std::int64_t limit = contracts::data_limit(step.qnet.data_width);
  if (std::int64_t(q.activation_table.size()) != 2 * limit + 1)
    fail(step.op, fmt::format("has an activation table of {} entries, needs 2L + 1 = {}", q.activation_table.size(),
                              2 * limit + 1));
  for (std::int64_t v : step.x) {
    if (v < -limit || v > limit) fail(step.op, fmt::format("reads {}, outside [-{}, {}]", v, limit, limit));
    out.push_back(contracts::activation_lookup(q.activation_table, v, step.qnet.data_width));
  }
  return out;
}

// Max pool (the largest value a window sees), average pool (the rounded mean of the values it sees, padding
// excluded), global average pool (the rounded mean of each plane).
std::vector<std::int64_t> integer_pool(const IntegerStep& step) {
  const Extents4 in = extents4(step.qnet.network, step.op, step.op.inputs[0]);
  const std::vector<std::int64_t>& x = step.x;
  std::vector<std::int64_t> out;
  if (step.op.kind == OperatorKind::GlobalAveragePool) {
    out.reserve(std::size_t(step.out_elements));
    for (std::int64_t plane = 0; plane < in.n * in.c; ++plane) {
      WideInt sum = 0;
      for (std::int64_t i = 0; i < in.x * in.y; ++i) sum += x[std::size_t(plane * in.x * in.y + i)];
      out.push_back(contracts::round_divide(sum, in.x * in.y));
    }
    return out;
  }
  const bool average = step.op.kind == OperatorKind::AveragePool;
  out.assign(std::size_t(step.out_elements), 0);
  for_each_window(in, step.op.pool, [&](std::int64_t o, std::int64_t base, std::int64_t x0, std::int64_t x1,
                                        std::int64_t y0, std::int64_t y1) {
    bool any = false;
    std::int64_t best = 0;
    WideInt sum = 0;
    for (std::int64_t r = x0; r < x1; ++r)
      for (std::int64_t c = y0; c < y1; ++c) {
        const std::int64_t v = x[std::size_t(base + r * in.y + c)];
        if (!any || v > best) best = v;
        any = true;
        sum += v;
      }
    const std::int64_t count = std::max<std::int64_t>(x1 - x0, 0) * std::max<std::int64_t>(y1 - y0, 0);
    out[std::size_t(o)] = !average ? best : count ? contracts::round_divide(sum, count) : 0;
  });
  return out;
}

// Concat: each input rescaled to the output's scale by its multiplier, the inputs' blocks in turn.
std::vector<std::int64_t> integer_concat(const IntegerStep& step) {
  step.require_input_multipliers();
  const Network& network = step.qnet.network;
  const Operator& op = step.op;
  const ConcatLayout layout = concat_layout(network.tensors[op.outputs[0]].shape, op.axis);
  std::vector<std::int64_t> out;
  out.reserve(std::size_t(step.out_elements));
  for (std::int64_t block = 0; block < layout.outer; ++block)
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const std::int64_t run = step.input_shape(i)[std::size_t(op.axis)] * layout.inner;
      const std::vector<std::int64_t>& input = step.tensors[op.inputs[i]];
      for (std::int64_t e = 0; e < run; ++e)
        out.push_back(step.rescaled(input[std::size_t(block * run + e)], step.q.input_multipliers[i], step.q.input_shift));
    }
  return out;
}

// Softmax through the exp table of (max − x): each row's table values over their sum, scaled to the data limit.
std::vector<std::int64_t> integer_softmax(const IntegerStep& step) {
  const QuantizedOperator& q = step.q;
  const std::vector<std::int64_t>& x = step.x;
  if (q.exp_table.empty()) fail(step.op, "has an empty exp table");
  const std::int64_t limit = contracts::data_limit(step.qnet.data_width);
  std::vector<std::int64_t> out(std::size_t(step.out_elements), 0);
  const auto row = [&](std::int64_t first, std::int64_t count, std::int64_t stride) {
    std::int64_t max = x[std::size_t(first)];
    for (std::int64_t c = 1; c < count; ++c) max = std::max(max, x[std::size_t(first + c * stride)]);
    const auto exp_of = [&](std::int64_t v) {
      const std::int64_t d = max - v;
      return d < std::int64_t(q.exp_table.size()) ? q.exp_table[std::size_t(d)] : 0;
    };
    WideInt sum = 0;
    for (std::int64_t c = 0; c < count; ++c) sum += exp_of(x[std::size_t(first + c * stride)]);
    if (sum == 0) fail(step.op, "its exp table gives a row no weight (exp_table[0] must be positive)");
    for (std::int64_t c = 0; c < count; ++c) {
      const std::size_t i = std::size_t(first + c * stride);
      out[i] = contracts::round_divide(WideInt(exp_of(x[i])) * limit, std::int64_t(sum));
    }
  };
  for_each_softmax_row(step.input_shape(), step.op.axis, row);
  return out;
}

// Channel affine: each value times its channel's multiplier plus its offset (a folded batch normalization).
std::vector<std::int64_t> integer_channel_affine(const IntegerStep& step) {
  const QuantizedOperator& q = step.q;
  const std::vector<std::int64_t>& x = step.x;
  const std::int64_t channels = step.input_shape()[1];
  if (std::int64_t(q.channel_multipliers.size()) != channels || std::int64_t(q.channel_offsets.size()) != channels)
    fail(step.op, fmt::format("has {} multipliers and {} offsets for {} channels", q.channel_multipliers.size(),
                              q.channel_offsets.size(), channels));
  const std::int64_t inner = std::int64_t(x.size()) / step.input_shape()[0] / channels;
  std::vector<std::int64_t> out;
  out.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t c = std::size_t(std::int64_t(i) / inner % channels);
    out.push_back(contracts::channel_affine(x[i], q.channel_multipliers[c], q.channel_offsets[c], q.channel_shift,
                                            step.qnet.data_width));
  }
  return out;
}

// Add, sub, max, min (both operands rescaled to the output's scale and combined) and mul (the product
// requantized): each output element from the elements of its operands that broadcast to it; the second operand is
// a tensor or the operator's constant.
std::vector<std::int64_t> integer_pair(const IntegerStep& step) {
  const Network& network = step.qnet.network;
  const Operator& op = step.op;
  const bool constant = contracts::activation_inputs(network, op) == 1;
  const std::vector<std::int64_t>& b = constant ? step.q.constant : step.tensors[op.inputs[1]];
  if (constant && std::int64_t(b.size()) != network.tensors[op.inputs[1]].elements())
    fail(op, fmt::format("holds {} integers of its constant '{}', which has {}", b.size(),
                         network.tensors[op.inputs[1]].name, network.tensors[op.inputs[1]].elements()));
  if (op.kind != OperatorKind::Mul) step.require_input_multipliers();
  const Shape& out_shape = network.tensors[op.outputs[0]].shape;
  const contracts::BroadcastIndex first(step.input_shape(0), out_shape), second(step.input_shape(1), out_shape);
  std::vector<std::int64_t> out;
  out.reserve(std::size_t(step.out_elements));
  for (std::int64_t i = 0; i < step.out_elements; ++i) {
    const std::int64_t x = step.x[std::size_t(first(i))], y = b[std::size_t(second(i))];
    out.push_back(op.kind == OperatorKind::Mul
                      ? contracts::multiply_requantized(x, y, step.q.product, step.qnet.data_width)
                      : contracts::rescaled_pair(op.kind, x, y, step.q, op.constant_first, step.qnet.data_width));
  }
  return out;
}

std::vector<std::int64_t> integer_output(const QuantizedNetwork& qnet, std::size_t op_index,
                                         const IntegerTensors& tensors, std::int64_t* largest_sum) {
  const Operator& op = qnet.network.operators[op_index];
  const IntegerStep step{qnet, op, qnet.operators[op_index], tensors, tensors[op.inputs[0]],
                         qnet.network.tensors[op.outputs[0]].elements(), largest_sum};
  switch (op.kind) {
    case OperatorKind::FabricLayer: return integer_fabric_layer(step);
    case OperatorKind::Requantize:
    case OperatorKind::Relu:
    case OperatorKind::Clip:
    case OperatorKind::TableFunction: return integer_elementwise(step);
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool:
    case OperatorKind::GlobalAveragePool: return integer_pool(step);
    case OperatorKind::Add:
    case OperatorKind::Sub:
    case OperatorKind::Maximum:
    case OperatorKind::Minimum:
    case OperatorKind::Mul: return integer_pair(step);
    case OperatorKind::Concat: return integer_concat(step);
    case OperatorKind::Reshape: return step.x;
    case OperatorKind::Softmax: return integer_softmax(step);
    case OperatorKind::ChannelAffine: return integer_channel_affine(step);
    case OperatorKind::Pad: return zero_bordered(extents4(qnet.network, op, op.inputs[0]), op.pad, step.x);
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather: return contracts::copied_from(step.x, contracts::source_indices(op, step.input_shape()));
    case OperatorKind::LayerNormalization:
      return integer_layer_normalization(op, step.q, step.input_shape(), step.x, qnet.data_width);
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceSum:
    case OperatorKind::ReduceMax: return integer_reduction(op, step.q, step.input_shape(), step.x, qnet.data_width);
    case OperatorKind::Resize:
      return contracts::resized_integers(contracts::resize_taps(op.resize, step.input_shape()), step.x,
                                         qnet.data_width);
    case OperatorKind::Lookup:
      return integer_lookup(op, step.q, qnet.network.tensors[op.inputs[1]].shape, step.x,
                            qnet.network.tensors[op.inputs[0]].name);
  }
  return {};
}

std::vector<double> real_convolution(const contracts::Layer& layer, const std::vector<double>& input,
                                     const RealLayerWeights& weights) {
  std::vector<double> sums =
      convolution_sums<double>(layer, input, weights.weights, [](double x, double w) { return x * w; });
  if (!weights.bias.empty()) {
    const std::size_t plane = std::size_t(layer.output_x() * layer.output_y());
    for (std::size_t i = 0; i < sums.size(); ++i) sums[i] += weights.bias[i / plane % std::size_t(layer.K)];
  }
  return sums;
}

// One operator of the float reference: the network, the operator with its real weights, the tensors computed so
// far and the operator's first input.
struct RealStep {
  const Network& network;
  const Operator& op;
  const RealLayerWeights& weights;
  const RealTensors& tensors;
  const std::vector<double>& x;
  std::int64_t out_elements;

  const Shape& input_shape(std::size_t i = 0) const { return network.tensors[op.inputs[i]].shape; }
};

std::vector<double> real_fabric_layer(const RealStep& step) {
  const contracts::Layer& layer = step.network.layers[step.op.layer];
  if (std::int64_t(step.weights.weights.size()) != layer.weight_elements())
    fail(step.op, fmt::format("has {} real weights, layer '{}' has {}", step.weights.weights.size(), layer.name,
                              layer.weight_elements()));
  if (!step.weights.bias.empty() && std::int64_t(step.weights.bias.size()) != layer.K)
    fail(step.op, fmt::format("has {} real biases for {} filters", step.weights.bias.size(), layer.K));
  return real_convolution(layer, step.x, step.weights);
}

// A matrix product: its operand A as the weights, no bias (contracts/matrix_product.hpp).
std::vector<double> real_matrix_product(const RealStep& step) {
  contracts::ProductOperands<double> operands = contracts::product_operands(step.network, step.op, step.tensors);
  return real_convolution(step.network.layers[step.op.layer], operands.input, {std::move(operands.weights), {}});
}

// Relu, clip, and the table functions (contracts::unary_value): value by value.
std::vector<double> real_elementwise(const RealStep& step) {
  const Operator& op = step.op;
  std::vector<double> out;
  out.reserve(step.x.size());
  for (double v : step.x)
    out.push_back(op.kind == OperatorKind::Relu   ? std::max(v, 0.0)
                  : op.kind == OperatorKind::Clip ? std::min(std::max(v, op.clip_min), op.clip_max)
                                                  : contracts::unary_value(op.function, v));
  return out;
}

// Max pool, average pool (padding excluded from the mean), global average pool.
std::vector<double> real_pool(const RealStep& step) {
  const Extents4 in = extents4(step.network, step.op, step.op.inputs[0]);
  const std::vector<double>& x = step.x;
  std::vector<double> out;
  if (step.op.kind == OperatorKind::GlobalAveragePool) {
    out.reserve(std::size_t(step.out_elements));
    for (std::int64_t plane = 0; plane < in.n * in.c; ++plane) {
      double sum = 0;
      for (std::int64_t i = 0; i < in.x * in.y; ++i) sum += x[std::size_t(plane * in.x * in.y + i)];
      out.push_back(sum / double(in.x * in.y));
    }
    return out;
  }
  const bool average = step.op.kind == OperatorKind::AveragePool;
  out.assign(std::size_t(step.out_elements), 0.0);
  for_each_window(in, step.op.pool, [&](std::int64_t o, std::int64_t base, std::int64_t x0, std::int64_t x1,
                                        std::int64_t y0, std::int64_t y1) {
    double sum = 0, best = 0;
    std::int64_t count = 0;
    for (std::int64_t r = x0; r < x1; ++r)
      for (std::int64_t c = y0; c < y1; ++c, ++count) {
        const double v = x[std::size_t(base + r * in.y + c)];
        sum += v;
        best = count == 0 ? v : std::max(best, v);
      }
    out[std::size_t(o)] = count == 0 ? 0.0 : average ? sum / double(count) : best;
  });
  return out;
}

// Add, sub, max, min, mul of two operands broadcast to the output; the second a tensor or the constant's values.
std::vector<double> real_pair(const RealStep& step) {
  const Operator& op = step.op;
  const bool constant = contracts::activation_inputs(step.network, op) == 1;
  const std::vector<double>& b = constant ? step.weights.weights : step.tensors[op.inputs[1]];
  if (std::int64_t(b.size()) != step.network.tensors[op.inputs[1]].elements())
    fail(op, fmt::format("has {} values of its operand '{}', which has {}", b.size(),
                         step.network.tensors[op.inputs[1]].name, step.network.tensors[op.inputs[1]].elements()));
  const Shape& out_shape = step.network.tensors[op.outputs[0]].shape;
  const contracts::BroadcastIndex first(step.input_shape(0), out_shape), second(step.input_shape(1), out_shape);
  std::vector<double> out;
  out.reserve(std::size_t(step.out_elements));
  for (std::int64_t i = 0; i < step.out_elements; ++i) {
    const double x = step.x[std::size_t(first(i))], y = b[std::size_t(second(i))];
    switch (op.kind) {
      case OperatorKind::Add: out.push_back(x + y); break;
      case OperatorKind::Sub: out.push_back(op.constant_first ? y - x : x - y); break;
      case OperatorKind::Maximum: out.push_back(std::max(x, y)); break;
      case OperatorKind::Minimum: out.push_back(std::min(x, y)); break;
      default: out.push_back(x * y); break;
    }
  }
  return out;
}

std::vector<double> real_concat(const RealStep& step) {
  const Operator& op = step.op;
  const ConcatLayout layout = concat_layout(step.network.tensors[op.outputs[0]].shape, op.axis);
  std::vector<double> out;
  out.reserve(std::size_t(step.out_elements));
  for (std::int64_t block = 0; block < layout.outer; ++block)
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const std::int64_t run = step.input_shape(i)[std::size_t(op.axis)] * layout.inner;
      const auto begin = step.tensors[op.inputs[i]].begin() + std::ptrdiff_t(block * run);
      out.insert(out.end(), begin, begin + std::ptrdiff_t(run));
    }
  return out;
}

// Softmax along its axis: exp(x − max) / Σ per row.
std::vector<double> real_softmax(const RealStep& step) {
  const std::vector<double>& x = step.x;
  std::vector<double> out(std::size_t(step.out_elements), 0.0);
  const auto row = [&](std::int64_t first, std::int64_t count, std::int64_t stride) {
    double max = x[std::size_t(first)], sum = 0;
    for (std::int64_t c = 1; c < count; ++c) max = std::max(max, x[std::size_t(first + c * stride)]);
    for (std::int64_t c = 0; c < count; ++c) sum += std::exp(x[std::size_t(first + c * stride)] - max);
    for (std::int64_t c = 0; c < count; ++c)
      out[std::size_t(first + c * stride)] = std::exp(x[std::size_t(first + c * stride)] - max) / sum;
  };
  for_each_softmax_row(step.input_shape(), step.op.axis, row);
  return out;
}

// Channel affine: each value times its channel's scale plus its shift (RealLayerWeights' weights and bias).
std::vector<double> real_channel_affine(const RealStep& step) {
  const RealLayerWeights& weights = step.weights;
  const std::vector<double>& x = step.x;
  const std::int64_t channels = step.input_shape()[1];
  if (std::int64_t(weights.weights.size()) != channels || std::int64_t(weights.bias.size()) != channels)
    fail(step.op, fmt::format("has {} scales and {} shifts for {} channels", weights.weights.size(),
                              weights.bias.size(), channels));
  const std::int64_t inner = std::int64_t(x.size()) / step.input_shape()[0] / channels;
  std::vector<double> out;
  out.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t c = std::size_t(std::int64_t(i) / inner % channels);
    out.push_back(x[i] * weights.weights[c] + weights.bias[c]);
  }
  return out;
}

std::vector<double> real_output(const Network& network, std::size_t op_index, const RealLayerWeights& weights,
                                const RealTensors& tensors) {
  const Operator& op = network.operators[op_index];
  const RealStep step{network, op, weights, tensors, tensors[op.inputs[0]],
                      network.tensors[op.outputs[0]].elements()};
  switch (op.kind) {
    case OperatorKind::FabricLayer:
      return contracts::is_matrix_product(op) ? real_matrix_product(step) : real_fabric_layer(step);
    case OperatorKind::Requantize:
    case OperatorKind::Reshape: return step.x;
    case OperatorKind::Relu:
    case OperatorKind::Clip:
    case OperatorKind::TableFunction: return real_elementwise(step);
    case OperatorKind::MaxPool:
    case OperatorKind::AveragePool:
    case OperatorKind::GlobalAveragePool: return real_pool(step);
    case OperatorKind::Add:
    case OperatorKind::Sub:
    case OperatorKind::Maximum:
    case OperatorKind::Minimum:
    case OperatorKind::Mul: return real_pair(step);
    case OperatorKind::Concat: return real_concat(step);
    case OperatorKind::Softmax: return real_softmax(step);
    case OperatorKind::ChannelAffine: return real_channel_affine(step);
    case OperatorKind::Pad: return zero_bordered(extents4(network, op, op.inputs[0]), op.pad, step.x);
    case OperatorKind::Transpose:
    case OperatorKind::Slice:
    case OperatorKind::Gather: return contracts::copied_from(step.x, contracts::source_indices(op, step.input_shape()));
    case OperatorKind::LayerNormalization:
      return real_layer_normalization(op, step.input_shape(), step.x, weights.weights, weights.bias);
    case OperatorKind::ReduceMean:
    case OperatorKind::ReduceSum:
    case OperatorKind::ReduceMax: return real_reduction(op, step.input_shape(), step.x);
    case OperatorKind::Resize: return contracts::resized_reals(contracts::resize_taps(op.resize, step.input_shape()), step.x);
    case OperatorKind::Lookup:
      return real_lookup(op, network.tensors[op.inputs[1]].shape, weights.weights, step.x,
                         network.tensors[op.inputs[0]].name);
  }
  fail(op, "unknown kind");
}

// The network's inputs placed at their tensor indices.
template <typename Value>
std::vector<std::vector<Value>> placed_inputs(const Network& network, const std::vector<std::vector<Value>>& inputs) {
  const std::vector<std::size_t> indices = network.network_inputs();
  if (inputs.size() != indices.size())
    throw std::invalid_argument(
        fmt::format("network '{}' has {} inputs, {} were given", network.name, indices.size(), inputs.size()));
  std::vector<std::vector<Value>> tensors(network.tensors.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const contracts::Tensor& tensor = network.tensors[indices[i]];
    if (std::int64_t(inputs[i].size()) != tensor.elements())
      throw std::invalid_argument(fmt::format("input '{}' has shape ({}), {} elements; {} were given", tensor.name,
                                              fmt::join(tensor.shape, ","), tensor.elements(), inputs[i].size()));
    tensors[indices[i]] = inputs[i];
  }
  return tensors;
}

// The index of the first maximum of values[begin, end).
template <typename Value>
std::size_t first_argmax(const std::vector<Value>& values, std::size_t begin, std::size_t end) {
  return std::size_t(std::max_element(values.begin() + std::ptrdiff_t(begin), values.begin() + std::ptrdiff_t(end)) -
                     values.begin());
}

}  // namespace

double cosine_similarity(const std::vector<double>& a, const std::vector<double>& b) {
  // The cosine does not change with the vectors' scales: each is divided by its largest magnitude first, so that
  // finite values near 1e300 do not overflow the sums of squares into inf / inf = NaN.
  double largest_a = 0, largest_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    largest_a = std::max(largest_a, std::abs(a[i]));
    largest_b = std::max(largest_b, std::abs(b[i]));
  }
  const double unit_a = largest_a > 0 && std::isfinite(largest_a) ? largest_a : 1.0;
  const double unit_b = largest_b > 0 && std::isfinite(largest_b) ? largest_b : 1.0;
  double dot = 0, norm_a = 0, norm_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i] / unit_a, y = b[i] / unit_b;
    dot += x * y;
    norm_a += x * x;
    norm_b += y * y;
  }
  return norm_a == 0 && norm_b == 0 ? 1.0 : norm_a == 0 || norm_b == 0 ? 0.0 : dot / std::sqrt(norm_a * norm_b);
}

std::vector<std::int64_t> integer_convolution(const contracts::Layer& layer, const std::vector<std::int64_t>& input,
                                              const std::vector<std::int64_t>& weights, int acc_width) {
  if (std::int64_t(input.size()) != layer.input_elements() || std::int64_t(weights.size()) != layer.weight_elements())
    throw std::invalid_argument(fmt::format("integer_convolution: {} inputs and {} weights for layer '{}', which has {} "
                                            "and {}",
                                            input.size(), weights.size(), layer.name, layer.input_elements(),
                                            layer.weight_elements()));
  // Sums modulo 2^64 (unsigned: wrapping is defined) hold every bit an AW ≤ 64-bit two's-complement register keeps,
  // so wrapping them to AW bits once at the end equals the fabric's wrapping after every product and addition.
  const std::vector<std::uint64_t> sums = convolution_sums<std::uint64_t>(
      layer, input, weights, [](std::int64_t x, std::int64_t w) { return std::uint64_t(x) * std::uint64_t(w); });
  std::vector<std::int64_t> output;
  output.reserve(sums.size());
  for (std::uint64_t sum : sums) output.push_back(contracts::wrap_signed(WideInt(std::int64_t(sum)), acc_width));
  return output;
}

namespace {

void run_checked_operator(const QuantizedNetwork& network, std::size_t op, IntegerTensors& tensors,
                          std::int64_t* largest_sum) {
  if (op >= network.network.operators.size() || network.operators.size() != network.network.operators.size() ||
      tensors.size() != network.network.tensors.size())
    throw std::invalid_argument(fmt::format("run_integer_operator: operator #{} of {}, {} quantized operators, {} "
                                            "tensors for {}",
                                            op, network.network.operators.size(), network.operators.size(),
                                            tensors.size(), network.network.tensors.size()));
  check_operator(network.network, network.network.operators[op], tensors);
  if (largest_sum) *largest_sum = 0;
  tensors[network.network.operators[op].outputs[0]] = integer_output(network, op, tensors, largest_sum);
}

}  // namespace

void run_integer_operator(const QuantizedNetwork& network, std::size_t op, IntegerTensors& tensors) {
  run_checked_operator(network, op, tensors, nullptr);
}

void run_integer_operator(const QuantizedNetwork& network, std::size_t op, IntegerTensors& tensors,
                          std::int64_t& largest_sum) {
  run_checked_operator(network, op, tensors, &largest_sum);
}

std::vector<std::int64_t> largest_fabric_sums(const QuantizedNetwork& network,
                                              const std::vector<std::vector<std::int64_t>>& inputs) {
  IntegerTensors tensors = placed_inputs(network.network, inputs);
  const TensorLifetimes lifetimes(network.network);
  std::vector<std::int64_t> largest(network.network.operators.size(), 0);
  for (std::size_t op = 0; op < network.network.operators.size(); ++op) {
    run_checked_operator(network, op, tensors, &largest[op]);
    const std::size_t out = network.network.operators[op].outputs[0];
    if (lifetimes.unread(out)) IntegerTensors::value_type().swap(tensors[out]);
    free_dead_inputs(lifetimes, op, tensors);
  }
  return largest;
}

IntegerTensors integer_reference(const QuantizedNetwork& network, const std::vector<std::vector<std::int64_t>>& inputs) {
  IntegerTensors tensors = placed_inputs(network.network, inputs);
  for (std::size_t op = 0; op < network.network.operators.size(); ++op) run_integer_operator(network, op, tensors);
  return tensors;
}

RealTensors float_reference(const Network& network, const std::vector<RealLayerWeights>& weights,
                            const std::vector<std::vector<double>>& inputs) {
  if (weights.size() != network.operators.size())
    throw std::invalid_argument(fmt::format("float_reference: {} weight entries for {} operators", weights.size(),
                                            network.operators.size()));
  RealTensors tensors = placed_inputs(network, inputs);
  for (std::size_t op = 0; op < network.operators.size(); ++op) {
    check_operator(network, network.operators[op], tensors);
    tensors[network.operators[op].outputs[0]] = real_output(network, op, weights[op], tensors);
  }
  return tensors;
}

std::vector<std::int64_t> fabric_layer_epilogue(const QuantizedNetwork& network, std::size_t op,
                                                const std::vector<std::int64_t>& accumulators) {
  const Operator* fabric = op < network.network.operators.size() && network.operators.size() > op
                               ? &network.network.operators[op]
                               : nullptr;
  if (!fabric || fabric->kind != OperatorKind::FabricLayer)
    throw std::invalid_argument(fmt::format("fabric_layer_epilogue: operator #{} is no fabric layer", op));
  const contracts::Layer& layer = network.network.layers[fabric->layer];
  const QuantizedOperator& q = network.operators[op];
  if (std::int64_t(accumulators.size()) != layer.output_elements() || std::int64_t(q.bias.size()) != layer.K ||
      std::int64_t(q.output.size()) != layer.K)
    fail(*fabric, fmt::format("has {} accumulators, {} biases and {} requantizations; layer '{}' has {} outputs and {} "
                              "filters",
                              accumulators.size(), q.bias.size(), q.output.size(), layer.name,
                              layer.output_elements(), layer.K));
  return requantized_sums(network, *fabric, q, accumulators);
}

void run_float_operator(const Network& network, std::size_t op, const RealLayerWeights& weights, RealTensors& tensors) {
  check_operator(network, network.operators[op], tensors);
  tensors[network.operators[op].outputs[0]] = real_output(network, op, weights, tensors);
}

std::int64_t OutputQuantizationCost::top1_agreements() const {
  return std::int64_t(std::count(top1_agrees.begin(), top1_agrees.end(), true));
}

std::vector<OutputQuantizationCost> quantization_cost(const QuantizedNetwork& network, const IntegerTensors& integers,
                                                      const RealTensors& reals) {
  std::vector<OutputQuantizationCost> costs;
  for (std::size_t t : network.network.network_outputs()) {
    const contracts::Tensor& tensor = network.network.tensors[t];
    if (t >= integers.size() || t >= reals.size() || std::int64_t(integers[t].size()) != tensor.elements() ||
        std::int64_t(reals[t].size()) != tensor.elements())
      throw std::invalid_argument(fmt::format("quantization_cost: output '{}' is missing from a reference", tensor.name));
    const double scale = network.tensors[t].scale;
    OutputQuantizationCost cost;
    cost.tensor = t;
    std::vector<double> dequantized;
    for (std::size_t i = 0; i < reals[t].size(); ++i) {
      const double q = scale * double(integers[t][i]);
      dequantized.push_back(q);
      cost.max_abs_error = std::max(cost.max_abs_error, std::abs(q - reals[t][i]));
    }
    cost.cosine_similarity = cosine_similarity(dequantized, reals[t]);
    const std::int64_t batch = tensor.shape.empty() ? 1 : tensor.shape[0];
    const std::size_t per_element = batch > 0 ? std::size_t(tensor.elements() / batch) : 0;
    for (std::int64_t n = 0; n < batch && per_element > 0; ++n) {
      const std::size_t begin = std::size_t(n) * per_element, end = begin + per_element;
      cost.top1_agrees.push_back(first_argmax(dequantized, begin, end) == first_argmax(reals[t], begin, end));
    }
    costs.push_back(std::move(cost));
  }
  return costs;
}

}  // namespace maeri::testbench
