// Binary element-wise arithmetic beside the fabric: Add (and a Sum of two), Sub, Mul, Max, Min of two tensors or of
// a tensor and a constant, broadcast as ONNX (numpy) does; Div as a product by the reciprocal (of a constant's
// values, or a reciprocal table function of a tensor divisor); Pow by a constant exponent as a table function. A
// constant operand becomes a constant tensor of the operator (its values join the weights), never a stream.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "contracts/elementwise_pairs.hpp"

namespace maeri::importer {

namespace {

using contracts::OperatorKind;

std::optional<OperatorKind> pair_kind(const std::string& op) {
  if (op == "Add" || op == "Sum") return OperatorKind::Add;
  if (op == "Sub") return OperatorKind::Sub;
  if (op == "Mul") return OperatorKind::Mul;
  if (op == "Max") return OperatorKind::Maximum;
  if (op == "Min") return OperatorKind::Minimum;
  return std::nullopt;
}

}  // namespace

bool is_elementwise_pair_operator(const std::string& op) { return pair_kind(op) || op == "Div" || op == "Pow"; }

// A constant operand: a constant tensor named `wanted` of the ONNX shape `dims` ((1) for a scalar) whose values join
// the weights.
std::size_t GraphReader::constant_operand(const std::string& wanted, Dims dims, std::vector<double> values) {
  if (dims.empty()) dims = {1};
  const std::size_t tensor = add_tensor(wanted, std::move(dims), true);
  result_.weights[network().tensors[tensor].name] = std::move(values);
  return tensor;
}

// The pair operator `kind` named after the node, writing its output, reading a and b (a tensor and a tensor or a
// constant); of two tensors, a commutative kind reads first the one of the output's shape (an SE gate second).
std::string GraphReader::emit_pair(OperatorNode& read, OperatorKind kind, std::size_t a, std::size_t b,
                                   bool constant_first) {
  const Dims& a_shape = network().tensors[a].shape;
  const Dims& b_shape = network().tensors[b].shape;
  const auto broadcast = contracts::broadcast_shape(a_shape, b_shape);
  if (!broadcast || *broadcast != read.out_shape)
    return fmt::format("element-wise arithmetic: operands of shapes {} and {} do not broadcast to the output's {}",
                       list(a_shape), list(b_shape), list(read.out_shape)) +
           kCut;
  if (kind != OperatorKind::Sub && !network().tensors[b].constant && a_shape != read.out_shape &&
      b_shape == read.out_shape)
    std::swap(a, b);
  read.inputs = {a, b};
  network().operators[emit(read, kind)].constant_first = constant_first;
  return "";
}

// Add, Sub, Mul, Max, Min, Div, Pow of two operands, at most one of them constant.
std::string GraphReader::elementwise_pair(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& op = node.op_type();
  if (node.input_size() != 2)
    return fmt::format("element-wise arithmetic: {} of {} operands (two run)", op, node.input_size()) + kCut;
  const bool constant_a = initializers_.count(node.input(0)) > 0, constant_b = initializers_.count(node.input(1)) > 0;
  if (constant_a && constant_b) return "element-wise arithmetic of two constants that did not fold" + std::string(kCut);
  if (op == "Pow") return power(read, constant_a, constant_b);
  if (op == "Div") return division(read, constant_a, constant_b);
  const OperatorKind kind = *pair_kind(op);
  const auto first = activation(node.input(constant_a ? 1 : 0));
  if (!first) return "its input's shape is unknown" + std::string(kCut);
  if (!constant_a && !constant_b) {
    const auto second = activation(node.input(1));
    if (!second) return "its input's shape is unknown" + std::string(kCut);
    return emit_pair(read, kind, *first, *second, false);
  }
  const std::string& constant_name = node.input(constant_a ? 0 : 1);
  const auto value = constant(constant_name);
  std::vector<double> values;
  for (std::int64_t i = 0; i < value->elements(); ++i) values.push_back(value->real(std::size_t(i)));
  const std::size_t operand = constant_operand(constant_name, value->dims, std::move(values));
  return emit_pair(read, kind, *first, operand, kind == OperatorKind::Sub && constant_a);
}

// Pow(x, e) with a constant exponent e of one value (or all its values equal): the table function x^e.
std::string GraphReader::power(OperatorNode& read, bool constant_base, bool constant_exponent) {
  if (constant_base || !constant_exponent)
    return "element-wise arithmetic: a power whose exponent is not a constant" + std::string(kCut);
  const auto exponent = constant(read.node.input(1));
  if (exponent->elements() < 1) return "element-wise arithmetic: a power by an empty exponent" + std::string(kCut);
  for (std::int64_t i = 1; i < exponent->elements(); ++i)
    if (exponent->real(std::size_t(i)) != exponent->real(0))
      return "element-wise arithmetic: a power by exponents that differ per element" + std::string(kCut);
  const auto base = activation(read.node.input(0));
  if (!base || network().tensors[*base].shape != read.out_shape)
    return "element-wise arithmetic: a power whose base is not of the output's shape" + std::string(kCut);
  read.inputs = {*base};
  contracts::FunctionCall call = contracts::default_call(contracts::UnaryFunction::Pow);
  call.alpha = exponent->real(0);
  if (const auto violation = contracts::function_violation(call)) fail(read.name, *violation);
  network().operators[emit(read, OperatorKind::TableFunction)].function = call;
  return "";
}

// a / c: a product by the constant 1/c. a / b and c / b: the reciprocal table function of b (NODE.reciprocal), then
// its product by a or c (none when c is all ones: the reciprocal is the output).
std::string GraphReader::division(OperatorNode& read, bool constant_numerator, bool constant_divisor) {
  const onnx::NodeProto& node = read.node;
  if (constant_divisor) {
    const auto divisor = constant(node.input(1));
    std::vector<double> reciprocals;
    for (std::int64_t i = 0; i < divisor->elements(); ++i) {
      if (divisor->real(std::size_t(i)) == 0)
        return "element-wise arithmetic: a division by a constant that holds 0" + std::string(kCut);
      reciprocals.push_back(1 / divisor->real(std::size_t(i)));
    }
    const auto numerator = activation(node.input(0));
    if (!numerator) return "its input's shape is unknown" + std::string(kCut);
    const std::size_t operand = constant_operand(node.input(1) + ".reciprocal", divisor->dims, std::move(reciprocals));
    return emit_pair(read, OperatorKind::Mul, *numerator, operand, false);
  }
  const auto divisor = activation(node.input(1));
  if (!divisor) return "its input's shape is unknown" + std::string(kCut);
  std::optional<TensorValue> numerator_value;
  if (constant_numerator) numerator_value = constant(node.input(0));
  const bool ones = numerator_value && std::all_of(numerator_value->reals.begin(), numerator_value->reals.end(),
                                                   [](double v) { return v == 1; }) &&
                    std::all_of(numerator_value->integers.begin(), numerator_value->integers.end(),
                                [](std::int64_t v) { return v == 1; });
  const Dims divisor_shape = network().tensors[*divisor].shape;
  const auto numerator_shape = constant_numerator ? std::optional<Dims>(numerator_value->dims) : known_shape(node.input(0));
  if (!numerator_shape || contracts::broadcast_shape(*numerator_shape, divisor_shape) != read.out_shape)
    return "element-wise arithmetic: a division whose operands do not broadcast to its output" + std::string(kCut);
  if (ones && divisor_shape == read.out_shape) {
    read.inputs = {*divisor};
    network().operators[emit(read, OperatorKind::TableFunction)].function =
        contracts::default_call(contracts::UnaryFunction::Reciprocal);
    return "";
  }
  const std::size_t reciprocal = add_tensor(read.name + ".reciprocal", divisor_shape, false);
  network().operators[add_operator(read.name + ".reciprocal", OperatorKind::TableFunction, {*divisor}, reciprocal)]
      .function = contracts::default_call(contracts::UnaryFunction::Reciprocal);
  if (!constant_numerator) {
    const auto numerator = activation(node.input(0));
    if (!numerator) return "its input's shape is unknown" + std::string(kCut);
    return emit_pair(read, OperatorKind::Mul, *numerator, reciprocal, false);
  }
  std::vector<double> values;
  for (std::int64_t i = 0; i < numerator_value->elements(); ++i) values.push_back(numerator_value->real(std::size_t(i)));
  const std::size_t operand = constant_operand(node.input(0), numerator_value->dims, std::move(values));
  return emit_pair(read, OperatorKind::Mul, reciprocal, operand, false);
}

}  // namespace maeri::importer
