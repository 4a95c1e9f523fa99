// Test helper of the ONNX Runtime oracle (tests/oracle/README.md): writes a copy of an ONNX model in which every
// float tensor a top-level node writes is also a graph output, so that ONNX Runtime (which returns only graph
// outputs) gives the value of every intermediate tensor the toolkit's references compute. The element types come
// from ONNX shape inference (the model's own value_info when inference fails on it); the shapes are left out, so a
// dynamic dimension never contradicts the run's. Nodes inside subgraphs (If, Loop bodies) are not exposed. Weights
// that an old model (IR version 3: MXNet's and CNTK's exporters) also lists as graph inputs are dropped from the
// inputs (IR version 4 on), so that the runner, which feeds every graph input, does not replace them. A
// BatchNormalization of opset < 9 with `spatial` 0 but one parameter per channel (MXNet's exporter writes it so) gets
// `spatial` 1: ONNX Runtime fuses it into the Conv before it, per channel, when its output is not a graph output, and
// refuses the parameters' shape when it is (as here).
// Usage: maeri_expose_onnx_tensors MODEL.onnx OUT.onnx
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>

namespace {

bool read_model(const std::string& path, onnx::ModelProto& model) {
  std::ifstream file(path, std::ios::binary);
  return file && model.ParseFromIstream(&file);
}

// The element type of every value the graph describes (inputs, outputs, value_info), after shape inference.
std::map<std::string, int> element_types(onnx::ModelProto model) {
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& error) {
    std::cerr << "shape inference failed (" << error.what() << "): using the model's own value_info\n";
  }
  std::map<std::string, int> types;
  const onnx::GraphProto& graph = model.graph();
  for (const auto* values : {&graph.input(), &graph.output(), &graph.value_info()})
    for (const onnx::ValueInfoProto& value : *values)
      if (value.type().has_tensor_type()) types[value.name()] = value.type().tensor_type().elem_type();
  return types;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: maeri_expose_onnx_tensors MODEL.onnx OUT.onnx\n";
    return 2;
  }
  onnx::ModelProto model;
  if (!read_model(argv[1], model)) {
    std::cerr << argv[1] << ": not an ONNX model\n";
    return 2;
  }
  const std::map<std::string, int> types = element_types(model);
  onnx::GraphProto& graph = *model.mutable_graph();
  std::set<std::string> initializers;
  for (const onnx::TensorProto& initializer : graph.initializer()) initializers.insert(initializer.name());
  auto& inputs = *graph.mutable_input();
  inputs.erase(std::remove_if(inputs.begin(), inputs.end(),
                              [&](const onnx::ValueInfoProto& input) { return initializers.count(input.name()) > 0; }),
               inputs.end());
  if (model.ir_version() < 4) model.set_ir_version(4);
  std::map<std::string, int> ranks;
  for (const onnx::TensorProto& initializer : graph.initializer()) ranks[initializer.name()] = initializer.dims_size();
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    if (node.op_type() != "BatchNormalization" || node.input_size() < 2 || ranks[node.input(1)] != 1) continue;
    for (onnx::AttributeProto& attribute : *node.mutable_attribute())
      if (attribute.name() == "spatial" && attribute.i() == 0) attribute.set_i(1);
  }
  std::set<std::string> outputs;
  for (const onnx::ValueInfoProto& output : graph.output()) outputs.insert(output.name());
  int exposed = 0;
  for (const onnx::NodeProto& node : graph.node())
    for (const std::string& name : node.output()) {
      const auto type = types.find(name);
      if (name.empty() || outputs.count(name) || type == types.end() ||
          type->second != onnx::TensorProto_DataType_FLOAT)
        continue;
      onnx::ValueInfoProto& output = *graph.add_output();
      output.set_name(name);
      output.mutable_type()->mutable_tensor_type()->set_elem_type(type->second);
      outputs.insert(name);
      ++exposed;
    }
  std::ofstream file(argv[2], std::ios::binary);
  if (!file || !model.SerializeToOstream(&file)) {
    std::cerr << argv[2] << ": cannot write\n";
    return 2;
  }
  std::cout << "exposed " << exposed << " tensors\n";
  return 0;
}
