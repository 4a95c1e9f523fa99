// The values of ONNX tensors (initializers, Constant nodes, folded shape computations) as the importer computes
// with them: integers exactly as int64, everything else as double. Reads raw_data (little-endian, what every
// exporter writes) and the typed fields; a tensor kept as external data is refused, never read as zeros.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace maeri::importer {

struct TensorValue {
  std::int32_t type = onnx::TensorProto_DataType_INT64;  // onnx::TensorProto_DataType
  std::vector<std::int64_t> dims;
  std::vector<std::int64_t> integers;  // integer and boolean types
  std::vector<double> reals;           // FLOAT, DOUBLE, FLOAT16, BFLOAT16
  bool integral() const { return is_integer_type(type); }
  std::int64_t elements() const;
  double real(std::size_t i) const { return integral() ? double(integers[i]) : reals[i]; }
  static bool is_integer_type(std::int32_t type);
};

// The largest tensor the importer computes with while folding (a Range or ConstantOfShape beyond it is left to
// the graph): shape computations are a few dozen integers, and a crafted model must not exhaust memory.
inline constexpr std::int64_t kMaxFoldedElements = std::int64_t(1) << 22;

// Throws util::InputError for `path`, field "initializer NAME" (or `field`), when the tensor's data is external, of
// a type without numbers (string, complex), or its size disagrees with its dimensions.
TensorValue tensor_value(const onnx::TensorProto& tensor, const std::string& path, const std::string& field);

// `value` as a TensorProto named `name` (raw_data, little-endian), of its own type.
onnx::TensorProto tensor_proto(const TensorValue& value, const std::string& name);

}  // namespace maeri::importer
