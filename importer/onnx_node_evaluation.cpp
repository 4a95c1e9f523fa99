// A skipped ONNX node evaluated in double precision (see onnx_node_evaluation.hpp): the node parsed, the helpers of
// onnx_node_evaluation_steps.hpp, and the element-wise family; the layout family is onnx_node_evaluation_layout.cpp.
#include "importer/onnx_node_evaluation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

#include "importer/onnx_node_evaluation_steps.hpp"
#include "importer/onnx_tensor_data.hpp"

namespace maeri::importer {
namespace evaluation {

void Step::fail(const std::string& problem) const {
  throw std::invalid_argument(fmt::format("node {} ({}): {}", node.name, node.op_type, problem));
}

const RealArray* Step::optional_input(int index) const {
  return index < int(inputs.size()) ? inputs[std::size_t(index)] : nullptr;
}

const RealArray& Step::input(int index) const {
  const RealArray* given = optional_input(index);
  if (!given) fail(fmt::format("input {} is required", index));
  return *given;
}

const onnx::AttributeProto* Step::attribute(const std::string& key) const {
  for (const auto& attribute : proto.attribute())
    if (attribute.name() == key) return &attribute;
  return nullptr;
}

std::int64_t Step::integer(const std::string& key, std::int64_t fallback) const {
  const auto* found = attribute(key);
  return found ? found->i() : fallback;
}

double Step::real(const std::string& key, double fallback) const {
  const auto* found = attribute(key);
  return found ? double(found->f()) : fallback;
}

std::optional<Dims> Step::integers(const std::string& key) const {
  const auto* found = attribute(key);
  if (!found) return std::nullopt;
  return Dims(found->ints().begin(), found->ints().end());
}

std::optional<Dims> Step::declared_shape(int output) const {
  if (output >= int(node.outputs.size())) return std::nullopt;
  const auto found = graph.shapes.find(node.outputs[std::size_t(output)]);
  if (found == graph.shapes.end()) return std::nullopt;
  return found->second;
}

std::int64_t Step::axis_in(std::int64_t axis, std::size_t rank) const {
  const std::int64_t r = std::int64_t(rank);
  if (axis < -r || axis >= std::max<std::int64_t>(r, 1)) fail(fmt::format("axis {} is outside rank {}", axis, r));
  return axis < 0 ? axis + r : axis;
}

std::int64_t elements(const Dims& shape) {
  std::int64_t count = 1;
  for (const std::int64_t extent : shape) count *= extent;
  return count;
}

Dims strides(const Dims& shape) {
  Dims stride(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) stride[i - 1] = stride[i] * shape[i];
  return stride;
}

Dims broadcast(const Step& step, const std::vector<Dims>& shapes) {
  std::size_t rank = 0;
  for (const Dims& shape : shapes) rank = std::max(rank, shape.size());
  Dims out(rank, 1);
  for (const Dims& shape : shapes)
    for (std::size_t i = 0; i < shape.size(); ++i) {
      std::int64_t& extent = out[rank - shape.size() + i];
      if (shape[i] == extent || shape[i] == 1) continue;
      if (extent != 1) step.fail("its inputs' shapes do not broadcast");
      extent = shape[i];
    }
  return out;
}

std::vector<std::int64_t> broadcast_sources(const Dims& in, const Dims& out) {
  const Dims in_strides = strides(in), out_strides = strides(out);
  const std::size_t offset = out.size() - in.size();
  std::vector<std::int64_t> sources(std::size_t(elements(out)));
  for (std::int64_t o = 0; o < std::int64_t(sources.size()); ++o) {
    std::int64_t source = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::int64_t coordinate = (o / out_strides[offset + i]) % out[offset + i];
      if (in[i] != 1) source += coordinate * in_strides[i];
    }
    sources[std::size_t(o)] = source;
  }
  return sources;
}

namespace {

using Unary = std::function<double(double, const Step&)>;
using Binary = std::function<double(double, double)>;

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

const std::map<std::string, Unary>& unary_functions() {
  static const std::map<std::string, Unary> functions = {
      {"Floor", [](double x, const Step&) { return std::floor(x); }},
      {"Ceil", [](double x, const Step&) { return std::ceil(x); }},
      {"Round", [](double x, const Step&) { return std::nearbyint(x); }},  // half to even (the default mode)
      {"Sign", [](double x, const Step&) { return double((x > 0) - (x < 0)); }},
      {"Abs", [](double x, const Step&) { return std::abs(x); }},
      {"Neg", [](double x, const Step&) { return -x; }},
      {"Exp", [](double x, const Step&) { return std::exp(x); }},
      {"Log", [](double x, const Step&) { return std::log(x); }},
      {"Sqrt", [](double x, const Step&) { return std::sqrt(x); }},
      {"Reciprocal", [](double x, const Step&) { return 1 / x; }},
      {"Sin", [](double x, const Step&) { return std::sin(x); }},
      {"Cos", [](double x, const Step&) { return std::cos(x); }},
      {"Erf", [](double x, const Step&) { return std::erf(x); }},
      {"Sigmoid", [](double x, const Step&) { return sigmoid(x); }},
      {"Tanh", [](double x, const Step&) { return std::tanh(x); }},
      {"Relu", [](double x, const Step&) { return std::max(x, 0.0); }},
      {"Not", [](double x, const Step&) { return x == 0 ? 1.0 : 0.0; }},
      {"Identity", [](double x, const Step&) { return x; }},
      {"Dropout", [](double x, const Step&) { return x; }},  // inference: the identity
      {"Softsign", [](double x, const Step&) { return x / (1 + std::abs(x)); }},
      {"Softplus", [](double x, const Step&) { return std::log1p(std::exp(x)); }},
      {"LeakyRelu", [](double x, const Step& s) { return x < 0 ? s.real("alpha", 0.01) * x : x; }},
      {"ThresholdedRelu", [](double x, const Step& s) { return x > s.real("alpha", 1.0) ? x : 0.0; }},
      {"Elu", [](double x, const Step& s) { return x < 0 ? s.real("alpha", 1.0) * std::expm1(x) : x; }},
      {"Selu",
       [](double x, const Step& s) {
         return s.real("gamma", 1.0507009873554805) * (x > 0 ? x : s.real("alpha", 1.6732632423543772) * std::expm1(x));
       }},
      {"HardSigmoid",
       [](double x, const Step& s) {
         return std::clamp(s.real("alpha", 0.2) * x + s.real("beta", 0.5), 0.0, 1.0);
       }},
  };
  return functions;
}

const std::map<std::string, Binary>& binary_functions() {
  static const std::map<std::string, Binary> functions = {
      {"Add", [](double a, double b) { return a + b; }},
      {"Sum", [](double a, double b) { return a + b; }},
      {"Sub", [](double a, double b) { return a - b; }},
      {"Mul", [](double a, double b) { return a * b; }},
      {"Div", [](double a, double b) { return a / b; }},
      {"Pow", [](double a, double b) { return std::pow(a, b); }},
      {"Max", [](double a, double b) { return std::max(a, b); }},
      {"Min", [](double a, double b) { return std::min(a, b); }},
      {"Equal", [](double a, double b) { return double(a == b); }},
      {"Less", [](double a, double b) { return double(a < b); }},
      {"Greater", [](double a, double b) { return double(a > b); }},
      {"LessOrEqual", [](double a, double b) { return double(a <= b); }},
      {"GreaterOrEqual", [](double a, double b) { return double(a >= b); }},
      {"And", [](double a, double b) { return double(a != 0 && b != 0); }},
      {"Or", [](double a, double b) { return double(a != 0 || b != 0); }},
      {"Xor", [](double a, double b) { return double((a != 0) != (b != 0)); }},
  };
  return functions;
}

// Every input broadcast to the output's shape and combined by `combine` over (input index, value) pairs.
RealArray broadcast_inputs(const Step& step, int count,
                           const std::function<double(const std::vector<double>&)>& combine) {
  std::vector<Dims> shapes;
  for (int i = 0; i < count; ++i) shapes.push_back(step.input(i).shape);
  RealArray out{broadcast(step, shapes), {}};
  std::vector<std::vector<std::int64_t>> sources;
  for (const Dims& shape : shapes) sources.push_back(broadcast_sources(shape, out.shape));
  std::vector<double> operands(static_cast<std::size_t>(count), 0.0);
  for (std::size_t o = 0; o < std::size_t(elements(out.shape)); ++o) {
    for (int i = 0; i < count; ++i) operands[std::size_t(i)] = step.input(i).values[std::size_t(sources[i][o])];
    out.values.push_back(combine(operands));
  }
  return out;
}

RealArray elementwise(const Step& step, const std::string& op) {
  if (const auto unary = unary_functions().find(op); unary != unary_functions().end()) {
    RealArray out{step.input(0).shape, {}};
    for (const double x : step.input(0).values) out.values.push_back(unary->second(x, step));
    return out;
  }
  const int count = int(step.node.inputs.size());
  if (op == "Where")
    return broadcast_inputs(step, 3, [](const std::vector<double>& v) { return v[0] != 0 ? v[1] : v[2]; });
  if (op == "Mod") {
    const bool fmod = step.integer("fmod", 0) != 0;
    return broadcast_inputs(step, 2, [fmod](const std::vector<double>& v) {
      const double r = std::fmod(v[0], v[1]);
      return !fmod && r != 0 && ((r < 0) != (v[1] < 0)) ? r + v[1] : r;  // integer Mod: the divisor's sign
    });
  }
  if (op == "Mean")
    return broadcast_inputs(step, count, [](const std::vector<double>& v) {
      double sum = 0;
      for (const double x : v) sum += x;
      return sum / double(v.size());
    });
  const Binary& binary = binary_functions().at(op);
  return broadcast_inputs(step, std::max(count, 1), [&binary](const std::vector<double>& v) {
    double result = v[0];
    for (std::size_t i = 1; i < v.size(); ++i) result = binary(result, v[i]);
    return result;
  });
}

// Clip's bounds: attributes before opset 11, optional inputs from it on.
RealArray clip(const Step& step) {
  double low = -INFINITY, high = INFINITY;
  if (step.graph.opset < 11) {
    low = step.real("min", low);
    high = step.real("max", high);
  } else {
    if (const RealArray* given = step.optional_input(1)) low = given->values.at(0);
    if (const RealArray* given = step.optional_input(2)) high = given->values.at(0);
  }
  RealArray out{step.input(0).shape, {}};
  for (const double x : step.input(0).values) out.values.push_back(std::min(std::max(x, low), high));
  return out;
}

// Cast: to an integer type the value's integer part (towards zero), to bool whether it is non-zero, else itself.
RealArray cast(const Step& step) {
  const std::int64_t to = step.integer("to", onnx::TensorProto_DataType_FLOAT);
  RealArray out{step.input(0).shape, {}};
  for (const double x : step.input(0).values)
    out.values.push_back(to == onnx::TensorProto_DataType_BOOL ? double(x != 0)
                         : TensorValue::is_integer_type(std::int32_t(to)) ? std::trunc(x)
                                                                          : x);
  return out;
}

}  // namespace
}  // namespace evaluation

bool evaluates(const std::string& op) {
  using namespace evaluation;
  return unary_functions().count(op) || binary_functions().count(op) || op == "Where" || op == "Mod" ||
         op == "Mean" || op == "Clip" || op == "Cast" || op == "LSTM" || op == "GRU" || op == "RNN" ||
         is_layout_operator(op);
}

std::vector<RealArray> evaluate_skipped_node(const SkippedNode& node, const std::vector<const RealArray*>& inputs,
                                             const SkippedGraph& graph) {
  using namespace evaluation;
  onnx::NodeProto proto;
  if (!proto.ParseFromString(node.node))
    throw std::invalid_argument(fmt::format("node {} ({}): its ONNX record cannot be read", node.name, node.op_type));
  const Step step{proto, node, inputs, graph};
  const std::string& op = node.op_type;
  if (!proto.domain().empty() && proto.domain() != "ai.onnx") step.fail("an operator of a custom domain");
  if (!evaluates(op)) step.fail("the float reference has no evaluation of this operator");
  if (op == "Clip") return {clip(step)};
  if (op == "Cast") return {cast(step)};
  if (op == "LSTM" || op == "GRU" || op == "RNN") return evaluate_recurrent(step);
  if (auto layout = evaluate_layout(step, op)) return *layout;
  RealArray out = elementwise(step, op);
  if (op == "Dropout" && node.outputs.size() > 1) return {out, RealArray{out.shape, std::vector<double>(out.values.size(), 1)}};
  return {out};
}

}  // namespace maeri::importer
