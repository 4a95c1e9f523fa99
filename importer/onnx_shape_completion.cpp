// Output shapes ONNX shape inference leaves unknown (see onnx_shape_completion.hpp).
#include "importer/onnx_shape_completion.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contracts/tensor_layout.hpp"

namespace maeri::importer {
namespace {

using Dims = std::vector<std::int64_t>;

// The fully known shapes of the graph's tensors, with the element type each is annotated with.
struct KnownShape {
  Dims dims;
  std::int32_t element_type = onnx::TensorProto_DataType_FLOAT;
};

std::map<std::string, KnownShape> known_shapes(const onnx::GraphProto& graph) {
  std::map<std::string, KnownShape> shapes;
  const auto record = [&](const onnx::ValueInfoProto& value) {
    if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) return;
    KnownShape shape;
    shape.element_type = value.type().tensor_type().elem_type();
    for (const auto& dim : value.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() < 0) return;
      shape.dims.push_back(dim.dim_value());
    }
    shapes[value.name()] = shape;
  };
  for (const auto& value : graph.input()) record(value);
  for (const auto& value : graph.value_info()) record(value);
  for (const auto& value : graph.output()) record(value);
  for (const auto& tensor : graph.initializer())
    shapes[tensor.name()] = {Dims(tensor.dims().begin(), tensor.dims().end()), tensor.data_type()};
  return shapes;
}

Dims ints(const onnx::NodeProto& node, const std::string& key) {
  for (const auto& attribute : node.attribute())
    if (attribute.name() == key && attribute.type() == onnx::AttributeProto_AttributeType_INTS)
      return Dims(attribute.ints().begin(), attribute.ints().end());
  return {};
}

// Crop (experimental, opset 1): border (left, top, right, bottom) removed from an (N, C, H, W) tensor, or, with
// scale (height, width), that many rows and columns kept from (top, left) on (ONNX Runtime's kernel).
std::optional<Dims> cropped(const onnx::NodeProto& node, const Dims& x) {
  const Dims border = ints(node, "border"), scale = ints(node, "scale");
  if (x.size() != 4 || border.size() != 4 || (!scale.empty() && scale.size() != 2)) return std::nullopt;
  Dims out = x;
  out[2] = scale.empty() ? x[2] - border[1] - border[3] : scale[0];
  out[3] = scale.empty() ? x[3] - border[0] - border[2] : scale[1];
  if (std::min({border[0], border[1], border[2], border[3]}) < 0 || out[2] < 1 || out[3] < 1 ||
      border[1] + out[2] > x[2] || border[0] + out[3] > x[3])
    return std::nullopt;
  return out;
}

std::optional<Dims> completed(const onnx::NodeProto& node, const Dims& x, int opset) {
  const std::string& op = node.op_type();
  if (op == "ImageScaler" || op == "Affine") return x;
  if (op == "Crop") return cropped(node, x);
  if (op == "Slice" && opset < 10) {
    std::vector<contracts::SliceAxis> slice;
    if (contracts::onnx_slice(x, ints(node, "starts"), ints(node, "ends"), ints(node, "axes"), {}, slice))
      return std::nullopt;
    Dims out;
    for (const contracts::SliceAxis& axis : slice) out.push_back(axis.count);
    return out;
  }
  return std::nullopt;
}

}  // namespace

bool complete_unknown_shapes(onnx::GraphProto& graph, int opset) {
  std::map<std::string, KnownShape> shapes = known_shapes(graph);
  bool annotated = false;
  for (const onnx::NodeProto& node : graph.node()) {
    if (!(node.domain().empty() || node.domain() == "ai.onnx") || node.input_size() < 1 || node.output_size() < 1 ||
        node.output(0).empty() || shapes.count(node.output(0)))
      continue;
    const auto input = shapes.find(node.input(0));
    if (input == shapes.end()) continue;
    const auto dims = completed(node, input->second.dims, opset);
    if (!dims) continue;
    auto& annotations = *graph.mutable_value_info();
    const std::string& name = node.output(0);
    annotations.erase(std::remove_if(annotations.begin(), annotations.end(),
                                     [&](const onnx::ValueInfoProto& info) { return info.name() == name; }),
                      annotations.end());
    onnx::ValueInfoProto* info = graph.add_value_info();
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(input->second.element_type);
    for (const std::int64_t dim : *dims) tensor->mutable_shape()->add_dim()->set_dim_value(dim);
    shapes[name] = {*dims, input->second.element_type};
    annotated = true;
  }
  return annotated;
}

}  // namespace maeri::importer
