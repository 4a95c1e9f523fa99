// What the ONNX graph says about a node, for the readers of every family: tensor shapes (and, when one is
// unknown, which input or node leaves it so), the values of constants, attributes checked for their type, and
// the pads auto_pad or pads give.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "importer/onnx_graph_checks.hpp"
#include "util/integer_math.hpp"

namespace maeri::importer {

std::string list(const Dims& values) {
  std::string text;
  for (const std::int64_t v : values) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return "[" + text + "]";
}

std::optional<Dims> GraphReader::known_shape(const std::string& tensor) const {
  const auto found = shapes_.find(tensor);
  if (found == shapes_.end()) return std::nullopt;
  Dims dims;
  for (const Dimension& dim : found->second) {
    if (dim.value < 0) return std::nullopt;
    dims.push_back(dim.value);
  }
  return dims;
}

// The graph inputs that still have a dynamic dimension, for the message that says how to give their sizes.
std::string GraphReader::dynamic_inputs() const {
  std::string text;
  for (const auto& input : model_.graph().input()) {
    if (initializers_.count(input.name()) || known_shape(input.name())) continue;
    std::string dims;
    const auto found = shapes_.find(input.name());
    if (found != shapes_.end())
      for (const Dimension& dim : found->second)
        dims += (dims.empty() ? "" : ",") + (dim.value >= 0 ? std::to_string(dim.value) : dim.symbol.empty() ? "?" : dim.symbol);
    text += fmt::format("{}{} [{}]", text.empty() ? "" : ", ", input.name(), dims);
  }
  return text;
}

// The node that leaves `tensor`'s shape unknown although its own inputs are known: what could not be folded.
std::string GraphReader::unresolved_origin(const std::string& tensor) const {
  std::string current = tensor;
  for (int depth = 0; depth < model_.graph().node_size(); ++depth) {
    const onnx::NodeProto* producer = nullptr;
    int producer_index = 0;
    for (int i = 0; i < model_.graph().node_size() && !producer; ++i)
      for (const std::string& output : model_.graph().node(i).output())
        if (output == current) {
          producer = &model_.graph().node(i);
          producer_index = i;
        }
    if (!producer) return "";
    std::string unknown_input;
    for (const std::string& input : producer->input())
      if (!input.empty() && !known_shape(input)) unknown_input = input;
    if (unknown_input.empty()) {
      std::string runtime;
      for (const std::string& input : producer->input())
        if (!input.empty() && !initializers_.count(input) && input != producer->input(0)) runtime = input;
      return fmt::format(": node {} ({}) could not be folded or inferred{}", node_label(*producer, producer_index),
                         producer->op_type(),
                         runtime.empty() ? "" : fmt::format(" (its input '{}' is computed at run time)", runtime));
    }
    current = unknown_input;
  }
  return "";
}

// The fully known shape of input `index` of `node`, or an error naming the node, the tensor and what is unknown.
Dims GraphReader::input_shape(const onnx::NodeProto& node, const std::string& name, int index,
                              const char* role) const {
  if (index >= node.input_size() || node.input(index).empty())
    fail(name, fmt::format("{} has no {} (input {})", node.op_type(), role, index));
  const std::string& tensor = node.input(index);
  const auto found = shapes_.find(tensor);
  const std::string hint = dynamic_inputs().empty()
                               ? ""
                               : fmt::format("; give the sizes of the model's dynamic inputs ({}) with "
                                             "--input-shape NAME=d0,d1,… or --batch N",
                                             dynamic_inputs());
  if (found == shapes_.end())
    fail(name, fmt::format("the shape of its {} '{}' is unknown: shape inference could not resolve it{}{}", role,
                           tensor, unresolved_origin(tensor), hint));
  Dims shape;
  for (const Dimension& dim : found->second) {
    if (dim.value < 0)
      fail(name, fmt::format("its {} '{}' has the dynamic dimension '{}' that shape inference cannot resolve{}{}",
                             role, tensor, dim.symbol.empty() ? "?" : dim.symbol, unresolved_origin(tensor),
                             hint.empty() ? " (export the model with fixed input sizes)" : hint));
    shape.push_back(dim.value);
  }
  return shape;
}

// The values of a constant input (an initializer, after folding), or nullopt when it is computed at run time.
std::optional<TensorValue> GraphReader::constant(const std::string& tensor) const {
  const auto found = initializers_.find(tensor);
  if (found == initializers_.end()) return std::nullopt;
  return tensor_value(model_.graph().initializer(found->second), path_, "initializer " + tensor);
}

// Float values of a constant input, or nullopt (computed at run time, or absent).
std::optional<std::vector<double>> GraphReader::values(const onnx::NodeProto& node, int index) const {
  if (index >= node.input_size() || node.input(index).empty()) return std::nullopt;
  const auto value = constant(node.input(index));
  if (!value) return std::nullopt;
  std::vector<double> out;
  for (std::int64_t i = 0; i < value->elements(); ++i) out.push_back(value->real(std::size_t(i)));
  return out;
}

const onnx::AttributeProto* GraphReader::attribute(const onnx::NodeProto& node, const std::string& key) {
  for (const auto& attribute : node.attribute())
    if (attribute.name() == key) return &attribute;
  return nullptr;
}

Dims GraphReader::ints(const onnx::NodeProto& node, const std::string& name, const std::string& key,
                       Dims fallback) const {
  const onnx::AttributeProto* found = attribute(node, key);
  if (!found) return fallback;
  if (found->type() != onnx::AttributeProto_AttributeType_INTS)
    fail(name, fmt::format("attribute '{}': expected a list of integers (INTS)", key));
  return Dims(found->ints().begin(), found->ints().end());
}

std::int64_t GraphReader::integer(const onnx::NodeProto& node, const std::string& name, const std::string& key,
                                  std::int64_t fallback) const {
  const onnx::AttributeProto* found = attribute(node, key);
  if (!found) return fallback;
  if (found->type() != onnx::AttributeProto_AttributeType_INT)
    fail(name, fmt::format("attribute '{}': expected an integer (INT)", key));
  return found->i();
}

double GraphReader::real(const onnx::NodeProto& node, const std::string& name, const std::string& key,
                         double fallback) const {
  const onnx::AttributeProto* found = attribute(node, key);
  if (!found) return fallback;
  if (found->type() != onnx::AttributeProto_AttributeType_FLOAT)
    fail(name, fmt::format("attribute '{}': expected a float (FLOAT)", key));
  // Every float attribute the importer reads scales, offsets or bounds values: NaN or ±inf there would reach the
  // weights or the unit's tables (issue 43: a Gemm of alpha NaN passed silently).
  if (!std::isfinite(found->f()))
    fail(name, fmt::format("attribute '{}': expected a finite float, found {}", key, found->f()));
  return found->f();
}

std::string GraphReader::text(const onnx::NodeProto& node, const std::string& name, const std::string& key,
                              const std::string& fallback) const {
  const onnx::AttributeProto* found = attribute(node, key);
  if (!found) return fallback;
  if (found->type() != onnx::AttributeProto_AttributeType_STRING)
    fail(name, fmt::format("attribute '{}': expected a string (STRING)", key));
  return found->s();
}

// Pads [x1_begin, …, x1_end, …] from auto_pad / pads for `spatial` axes.
Dims GraphReader::onnx_pads(const onnx::NodeProto& node, const std::string& name, const Dims& in, const Dims& spans,
                            const Dims& strides) const {
  const std::size_t n = in.size();
  const std::string mode = text(node, name, "auto_pad", "NOTSET");
  Dims pads = ints(node, name, "pads", Dims(2 * n, 0));
  if (mode == "VALID") {
    pads.assign(2 * n, 0);
  } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
    pads.assign(2 * n, 0);
    for (std::size_t axis = 0; axis < n; ++axis) {
      const std::int64_t outputs = util::ceil_div(in[axis], strides[axis]);
      const std::int64_t total = std::max<std::int64_t>(0, (outputs - 1) * strides[axis] + spans[axis] - in[axis]);
      const std::int64_t first = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[axis] = first;
      pads[axis + n] = total - first;
    }
  }
  if (pads.size() != 2 * n) fail(name, fmt::format("pads {}: expected {} values", list(pads), 2 * n));
  return pads;
}

// Pads from auto_pad / pads for `spatial` axes, symmetric per axis or an error (a pooling window's: a zero
// border is not what max and average pools do with their padding).
Dims GraphReader::symmetric_pads(const onnx::NodeProto& node, const std::string& name, const Dims& in,
                                 const Dims& spans, const Dims& strides) const {
  const std::size_t n = in.size();
  const std::string mode = text(node, name, "auto_pad", "NOTSET");
  const Dims pads = onnx_pads(node, name, in, spans, strides);
  for (std::size_t axis = 0; axis < n; ++axis)
    if (pads[axis] != pads[axis + n])
      fail(name, fmt::format("asymmetric pads {} (begin and end differ{}) are not supported: a pooling window "
                             "pads both sides of an axis alike",
                             list(pads), mode == "NOTSET" ? "" : ", from auto_pad " + mode));
  return Dims(pads.begin(), pads.begin() + std::ptrdiff_t(n));
}

// Shape inference's output shape, where it has one, must be the Layer's (a disagreement means this importer
// read an attribute differently from ONNX).
void GraphReader::check_output(const onnx::NodeProto& node, const std::string& name, const Dims& expected) const {
  if (node.output_size() < 1) return;
  const auto found = shapes_.find(node.output(0));
  if (found == shapes_.end() || found->second.size() != expected.size()) return;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (found->second[i].value >= 0 && found->second[i].value != expected[i])
      fail(name, fmt::format("ONNX infers output dimension {} = {}, the layer's shape gives {}", i,
                             found->second[i].value, expected[i]));
}

}  // namespace maeri::importer
