// Run-time inputs given a value (see onnx_input_values.hpp).
#include "importer/onnx_input_values.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "util/input_error.hpp"

namespace maeri::importer {
namespace {

using onnx::TensorProto_DataType;

// The tensor `name` of `type` and `dims` holding `value` in every element; false when the type is not numeric or
// `value` is not one of its values (a fraction for an integer type, out of its range).
bool constant_tensor(const std::string& name, int type, const std::vector<std::int64_t>& dims, double value,
                     onnx::TensorProto& tensor) {
  std::int64_t count = 1;
  for (std::int64_t d : dims) count *= d;
  tensor.set_name(name);
  tensor.set_data_type(type);
  for (std::int64_t d : dims) tensor.add_dims(d);
  const bool whole = value == std::floor(value) && std::abs(value) < 0x1.0p62;
  for (std::int64_t i = 0; i < count; ++i) switch (type) {
      case onnx::TensorProto_DataType_FLOAT: tensor.add_float_data(float(value)); break;
      case onnx::TensorProto_DataType_DOUBLE: tensor.add_double_data(value); break;
      case onnx::TensorProto_DataType_INT64:
        if (!whole) return false;
        tensor.add_int64_data(std::int64_t(value));
        break;
      case onnx::TensorProto_DataType_INT32:
        if (!whole || std::abs(value) > 2147483647.0) return false;
        tensor.add_int32_data(std::int32_t(value));
        break;
      case onnx::TensorProto_DataType_BOOL:
        if (value != 0 && value != 1) return false;
        tensor.add_int32_data(value != 0);
        break;
      default: return false;
    }
  return true;
}

}  // namespace

std::vector<std::string> apply_input_values(onnx::ModelProto& model, const ModelInputShapes& sizes,
                                            const std::string& path) {
  std::vector<std::string> notes;
  onnx::GraphProto& graph = *model.mutable_graph();
  for (const auto& [name, value] : sizes.values) {
    const std::string field = "--input-value " + name;
    int found = -1;
    for (int i = 0; i < graph.input_size(); ++i)
      if (graph.input(i).name() == name) found = i;
    if (found < 0) throw util::InputError({path, 0, 0}, field, fmt::format("the model has no input '{}'", name));
    const onnx::ValueInfoProto& input = graph.input(found);
    std::vector<std::int64_t> dims;
    const auto& type = input.type().tensor_type();
    for (const auto& dim : type.shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() < 1)
        throw util::InputError({path, 0, 0}, field,
                               "the input's shape is not fully known: give its sizes with --input-shape too");
      dims.push_back(dim.dim_value());
    }
    onnx::TensorProto tensor;
    if (!constant_tensor(name, type.elem_type(), dims, value, tensor))
      throw util::InputError({path, 0, 0}, field,
                             fmt::format("{} is not a value of the input's element type ({})", value,
                                         onnx::TensorProto_DataType_Name(TensorProto_DataType(type.elem_type()))));
    *graph.add_initializer() = std::move(tensor);
    graph.mutable_input()->DeleteSubrange(found, 1);
    notes.push_back(fmt::format("input '{}' given the value {} (--input-value): a constant of the model", name, value));
  }
  return notes;
}

}  // namespace maeri::importer
