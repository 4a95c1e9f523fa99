// Building small ONNX models at test time with the ONNX C++ API (onnx::ModelProto), for the importer's tests:
// float tensors whose shapes are given (a negative dimension becomes a symbolic one: -1 "batch", -2 "height",
// -3 "width", -4 "sequence"), weight initializers with their dimensions (zeros, or given values), integer
// initializers, and nodes with integer, float, list, string, tensor and graph attributes.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace maeri::test {

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(const std::string& graph_name, int opset = 13);
  // Declares an operator set besides the default domain's (which the constructor imports).
  void import_domain(const std::string& domain, int version);
  void input(const std::string& name, const std::vector<std::int64_t>& dims);
  void weight(const std::string& name, const std::vector<std::int64_t>& dims);
  // A float initializer of the given values (raw_data, little-endian).
  void weight(const std::string& name, const std::vector<std::int64_t>& dims, const std::vector<float>& values);
  // An INT64 initializer (shapes, axes, indices).
  void integers(const std::string& name, const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& values);
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }
  // A graph output; `dims`, when given, declares its shape.
  void output(const std::string& name, const std::vector<std::int64_t>& dims = {});
  onnx::NodeProto& node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                        const std::string& output);
  static void set_ints(onnx::NodeProto& node, const std::string& key, const std::vector<std::int64_t>& values);
  static void set_int(onnx::NodeProto& node, const std::string& key, std::int64_t value);
  static void set_string(onnx::NodeProto& node, const std::string& key, const std::string& value);
  static void set_float(onnx::NodeProto& node, const std::string& key, float value);
  static void set_tensor(onnx::NodeProto& node, const std::string& key, const onnx::TensorProto& value);
  static void set_graph(onnx::NodeProto& node, const std::string& key, const onnx::GraphProto& value);
  // Serialises the model to `path`.
  void write(const std::string& path) const;
  // Writes a model of one Conv node `name` (input "x" of `input`'s dimensions, weight "w", output "y"), with the
  // attributes `attributes` sets on the node.
  static void write_one_conv(const std::string& path, const std::string& name, const std::vector<std::int64_t>& input,
                             const std::vector<std::int64_t>& weight,
                             const std::function<void(onnx::NodeProto&)>& attributes = {});

 private:
  onnx::ModelProto model_;
};

// A Loop body's graph: its inputs (iteration number, condition, carried float tensors) and outputs by name; the
// nodes are added with body_node.
onnx::GraphProto loop_body(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs);
onnx::NodeProto& body_node(onnx::GraphProto& body, const std::string& op, const std::string& name,
                           const std::vector<std::string>& inputs, const std::string& output);

}  // namespace maeri::test
