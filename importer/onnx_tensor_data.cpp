// ONNX tensor data in and out (see onnx_tensor_data.hpp).
#include "importer/onnx_tensor_data.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "util/input_error.hpp"

namespace maeri::importer {
namespace {

using DataType = onnx::TensorProto_DataType;

// Bytes per element of the types read from raw_data; 0 for the types without numbers.
std::size_t element_bytes(std::int32_t type) {
  switch (type) {
    case onnx::TensorProto_DataType_BOOL:
    case onnx::TensorProto_DataType_INT8:
    case onnx::TensorProto_DataType_UINT8: return 1;
    case onnx::TensorProto_DataType_INT16:
    case onnx::TensorProto_DataType_UINT16:
    case onnx::TensorProto_DataType_FLOAT16:
    case onnx::TensorProto_DataType_BFLOAT16: return 2;
    case onnx::TensorProto_DataType_INT32:
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_FLOAT: return 4;
    case onnx::TensorProto_DataType_INT64:
    case onnx::TensorProto_DataType_UINT64:
    case onnx::TensorProto_DataType_DOUBLE: return 8;
    default: return 0;
  }
}

template <typename T>
T little_endian_at(const std::string& raw, std::size_t index) {
  unsigned char bytes[sizeof(T)];
  for (std::size_t b = 0; b < sizeof(T); ++b) bytes[b] = static_cast<unsigned char>(raw[index * sizeof(T) + b]);
  std::uint64_t bits = 0;
  for (std::size_t b = sizeof(T); b-- > 0;) bits = (bits << 8) | bytes[b];
  T value;
  if constexpr (sizeof(T) == 8) {
    std::memcpy(&value, &bits, 8);
  } else {
    const auto narrow = static_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t,
                                                       std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>>(bits);
    std::memcpy(&value, &narrow, sizeof(T));
  }
  return value;
}

double half_to_double(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

double bfloat16_to_double(std::uint16_t bits) {
  const std::uint32_t widened = std::uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &widened, 4);
  return value;
}

}  // namespace

bool TensorValue::is_integer_type(std::int32_t type) {
  switch (type) {
    case onnx::TensorProto_DataType_BOOL:
    case onnx::TensorProto_DataType_INT8:
    case onnx::TensorProto_DataType_UINT8:
    case onnx::TensorProto_DataType_INT16:
    case onnx::TensorProto_DataType_UINT16:
    case onnx::TensorProto_DataType_INT32:
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_INT64:
    case onnx::TensorProto_DataType_UINT64: return true;
    default: return false;
  }
}

std::int64_t TensorValue::elements() const {
  std::int64_t count = 1;
  for (const std::int64_t dim : dims) count *= dim;
  return count;
}

namespace {

// Appends one number to the value's integers or reals, by its type.
template <typename Number>
void append(TensorValue& value, Number number) {
  if (value.integral()) value.integers.push_back(static_cast<std::int64_t>(number));
  else value.reals.push_back(static_cast<double>(number));
}

// The `count` elements of raw_data (little-endian) appended to `value`, of its type; the size was checked.
void read_raw_data(const std::string& raw, std::int64_t count, TensorValue& value) {
  for (std::int64_t i = 0; i < count; ++i) {
    switch (value.type) {
      case onnx::TensorProto_DataType_BOOL:
      case onnx::TensorProto_DataType_UINT8: append(value, little_endian_at<std::uint8_t>(raw, i)); break;
      case onnx::TensorProto_DataType_INT8: append(value, little_endian_at<std::int8_t>(raw, i)); break;
      case onnx::TensorProto_DataType_INT16: append(value, little_endian_at<std::int16_t>(raw, i)); break;
      case onnx::TensorProto_DataType_UINT16: append(value, little_endian_at<std::uint16_t>(raw, i)); break;
      case onnx::TensorProto_DataType_INT32: append(value, little_endian_at<std::int32_t>(raw, i)); break;
      case onnx::TensorProto_DataType_UINT32: append(value, little_endian_at<std::uint32_t>(raw, i)); break;
      case onnx::TensorProto_DataType_INT64: append(value, little_endian_at<std::int64_t>(raw, i)); break;
      case onnx::TensorProto_DataType_UINT64: append(value, std::int64_t(little_endian_at<std::uint64_t>(raw, i))); break;
      case onnx::TensorProto_DataType_FLOAT: append(value, little_endian_at<float>(raw, i)); break;
      case onnx::TensorProto_DataType_DOUBLE: append(value, little_endian_at<double>(raw, i)); break;
      case onnx::TensorProto_DataType_FLOAT16: append(value, half_to_double(little_endian_at<std::uint16_t>(raw, i))); break;
      case onnx::TensorProto_DataType_BFLOAT16: append(value, bfloat16_to_double(little_endian_at<std::uint16_t>(raw, i))); break;
      default: break;
    }
  }
}

// The typed field of the value's type (onnx.proto) appended to `value`: float_data for FLOAT; int32_data for the
// narrower integers, BOOL and the 16-bit floats (their bits); int64_data, uint64_data, double_data for their own
// types. Returns how many values the field holds.
std::int64_t read_typed_field(const onnx::TensorProto& tensor, TensorValue& value) {
  switch (value.type) {
    case onnx::TensorProto_DataType_FLOAT:
      for (const float number : tensor.float_data()) append(value, number);
      return tensor.float_data_size();
    case onnx::TensorProto_DataType_DOUBLE:
      for (const double number : tensor.double_data()) append(value, number);
      return tensor.double_data_size();
    case onnx::TensorProto_DataType_INT64:
      for (const std::int64_t number : tensor.int64_data()) append(value, number);
      return tensor.int64_data_size();
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_UINT64:
      for (const std::uint64_t number : tensor.uint64_data()) append(value, std::int64_t(number));
      return tensor.uint64_data_size();
    case onnx::TensorProto_DataType_FLOAT16:
      for (const std::int32_t bits : tensor.int32_data()) append(value, half_to_double(std::uint16_t(bits)));
      return tensor.int32_data_size();
    case onnx::TensorProto_DataType_BFLOAT16:
      for (const std::int32_t bits : tensor.int32_data()) append(value, bfloat16_to_double(std::uint16_t(bits)));
      return tensor.int32_data_size();
    default:
      for (const std::int32_t number : tensor.int32_data()) append(value, number);
      return tensor.int32_data_size();
  }
}

}  // namespace

TensorValue tensor_value(const onnx::TensorProto& tensor, const std::string& path, const std::string& field) {
  const auto fail = [&](const std::string& problem) { throw util::InputError({path, 0, 0}, field, problem); };
  if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL || tensor.external_data_size() > 0)
    fail("its data is stored outside the model (external data), which the importer does not read: save the model "
         "with its weights inside (onnx.save_model(..., save_as_external_data=False))");
  TensorValue value;
  value.type = tensor.data_type();
  const std::size_t bytes = element_bytes(value.type);
  if (bytes == 0) fail(fmt::format("its data type {} holds no numbers the importer computes with", value.type));
  std::int64_t count = 1;
  for (const std::int64_t dim : tensor.dims()) {
    if (dim < 0 || (dim > 0 && count > kMaxFoldedElements * 64 / dim))
      fail(fmt::format("dimension {} is negative or the tensor too large", dim));
    count *= dim;
    value.dims.push_back(dim);
  }
  if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    if (raw.size() != std::size_t(count) * bytes)
      fail(fmt::format("raw_data holds {} bytes, its dimensions need {} ({} elements of {} bytes)", raw.size(),
                       std::size_t(count) * bytes, count, bytes));
    read_raw_data(raw, count, value);
    return value;
  }
  const std::int64_t found = read_typed_field(tensor, value);
  if (found != count)
    fail(fmt::format("it holds {} values, its dimensions need {}{}", found, count,
                     found == 0 ? " (no data: neither raw_data nor a typed field)" : ""));
  return value;
}

onnx::TensorProto tensor_proto(const TensorValue& value, const std::string& name) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  for (const std::int64_t dim : value.dims) tensor.add_dims(dim);
  // The tensor keeps its type, so that shape inference's type checks see what the folded node wrote.
  tensor.set_data_type(value.type);
  switch (value.type) {
    case onnx::TensorProto_DataType_INT64:
      for (const std::int64_t number : value.integers) tensor.add_int64_data(number);
      break;
    case onnx::TensorProto_DataType_UINT32:
    case onnx::TensorProto_DataType_UINT64:
      for (const std::int64_t number : value.integers) tensor.add_uint64_data(std::uint64_t(number));
      break;
    case onnx::TensorProto_DataType_DOUBLE:
      for (const double number : value.reals) tensor.add_double_data(number);
      break;
    default:
      if (value.integral()) {
        for (const std::int64_t number : value.integers) tensor.add_int32_data(std::int32_t(number));
      } else {  // FLOAT, and the 16-bit floats widened to it
        tensor.set_data_type(onnx::TensorProto_DataType_FLOAT);
        for (const double number : value.reals) tensor.add_float_data(float(number));
      }
  }
  return tensor;
}

}  // namespace maeri::importer
