// ONNX test models (see onnx_models.hpp).
#include "onnx_models.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace maeri::test {

OnnxModelBuilder::OnnxModelBuilder(const std::string& graph_name, int opset) {
  model_.set_ir_version(8);
  model_.set_producer_name("maeri tests");
  auto* import = model_.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model_.mutable_graph()->set_name(graph_name);
}

void OnnxModelBuilder::import_domain(const std::string& domain, int version) {
  auto* import = model_.add_opset_import();
  import->set_domain(domain);
  import->set_version(version);
}

void OnnxModelBuilder::input(const std::string& name, const std::vector<std::int64_t>& dims) {
  onnx::ValueInfoProto* value = model_.mutable_graph()->add_input();
  value->set_name(name);
  onnx::TypeProto_Tensor* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  for (const std::int64_t dim : dims) {
    auto* shape_dim = tensor->mutable_shape()->add_dim();
    if (dim < 0) {
      static const char* const symbols[] = {"batch", "height", "width", "sequence"};
      shape_dim->set_dim_param(symbols[std::min<std::int64_t>(-dim, 4) - 1]);
    } else {
      shape_dim->set_dim_value(dim);
    }
  }
}

void OnnxModelBuilder::weight(const std::string& name, const std::vector<std::int64_t>& dims) {
  onnx::TensorProto* tensor = model_.mutable_graph()->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto_DataType_FLOAT);
  std::int64_t count = 1;
  for (const std::int64_t dim : dims) {
    tensor->add_dims(dim);
    count *= dim;
  }
  tensor->mutable_raw_data()->assign(std::size_t(count) * sizeof(float), '\0');  // zeros: only shapes matter
}

void OnnxModelBuilder::weight(const std::string& name, const std::vector<std::int64_t>& dims,
                              const std::vector<float>& values) {
  onnx::TensorProto* tensor = model_.mutable_graph()->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto_DataType_FLOAT);
  for (const std::int64_t dim : dims) tensor->add_dims(dim);
  std::string raw;
  for (const float value : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    for (int byte = 0; byte < 4; ++byte) raw.push_back(static_cast<char>((bits >> (8 * byte)) & 0xff));
  }
  tensor->set_raw_data(raw);
}

void OnnxModelBuilder::integers(const std::string& name, const std::vector<std::int64_t>& dims,
                                const std::vector<std::int64_t>& values) {
  onnx::TensorProto* tensor = model_.mutable_graph()->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto_DataType_INT64);
  for (const std::int64_t dim : dims) tensor->add_dims(dim);
  for (const std::int64_t value : values) tensor->add_int64_data(value);
}

void OnnxModelBuilder::output(const std::string& name, const std::vector<std::int64_t>& dims) {
  onnx::ValueInfoProto* value = model_.mutable_graph()->add_output();
  value->set_name(name);
  onnx::TypeProto_Tensor* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto_DataType_FLOAT);
  for (const std::int64_t dim : dims) tensor->mutable_shape()->add_dim()->set_dim_value(dim);
}

onnx::NodeProto& OnnxModelBuilder::node(const std::string& op, const std::string& name,
                                        const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* node = model_.mutable_graph()->add_node();
  node->set_op_type(op);
  node->set_name(name);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return *node;
}

void OnnxModelBuilder::set_ints(onnx::NodeProto& node, const std::string& key, const std::vector<std::int64_t>& values) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(key);
  attribute->set_type(onnx::AttributeProto_AttributeType_INTS);
  for (const std::int64_t v : values) attribute->add_ints(v);
}

void OnnxModelBuilder::set_int(onnx::NodeProto& node, const std::string& key, std::int64_t value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(key);
  attribute->set_type(onnx::AttributeProto_AttributeType_INT);
  attribute->set_i(value);
}

void OnnxModelBuilder::set_string(onnx::NodeProto& node, const std::string& key, const std::string& value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(key);
  attribute->set_type(onnx::AttributeProto_AttributeType_STRING);
  attribute->set_s(value);
}

void OnnxModelBuilder::set_float(onnx::NodeProto& node, const std::string& key, float value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(key);
  attribute->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  attribute->set_f(value);
}

void OnnxModelBuilder::set_tensor(onnx::NodeProto& node, const std::string& key, const onnx::TensorProto& value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(key);
  attribute->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  *attribute->mutable_t() = value;
}

void OnnxModelBuilder::set_graph(onnx::NodeProto& node, const std::string& key, const onnx::GraphProto& value) {
  onnx::AttributeProto* attribute = node.add_attribute();
  attribute->set_name(key);
  attribute->set_type(onnx::AttributeProto_AttributeType_GRAPH);
  *attribute->mutable_g() = value;
}

void OnnxModelBuilder::write(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  if (!out || !model_.SerializeToOstream(&out)) throw std::runtime_error("cannot write the ONNX model " + path);
}

void OnnxModelBuilder::write_one_conv(const std::string& path, const std::string& name,
                                      const std::vector<std::int64_t>& input, const std::vector<std::int64_t>& weight,
                                      const std::function<void(onnx::NodeProto&)>& attributes) {
  OnnxModelBuilder model(name);
  model.input("x", input);
  model.weight("w", weight);
  onnx::NodeProto& conv = model.node("Conv", name, {"x", "w"}, "y");
  if (attributes) attributes(conv);
  model.output("y");
  model.write(path);
}

onnx::GraphProto loop_body(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  onnx::GraphProto body;
  body.set_name("body");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    onnx::ValueInfoProto* value = body.add_input();
    value->set_name(inputs[i]);
    value->mutable_type()->mutable_tensor_type()->set_elem_type(
        i == 0 ? onnx::TensorProto_DataType_INT64 : i == 1 ? onnx::TensorProto_DataType_BOOL : onnx::TensorProto_DataType_FLOAT);
  }
  for (const std::string& name : outputs) {
    onnx::ValueInfoProto* value = body.add_output();
    value->set_name(name);
  }
  return body;
}

onnx::NodeProto& body_node(onnx::GraphProto& body, const std::string& op, const std::string& name,
                           const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* node = body.add_node();
  node->set_op_type(op);
  node->set_name(name);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  return *node;
}

}  // namespace maeri::test
