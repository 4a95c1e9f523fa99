// A Cast of an activation to a real type (FLOAT, DOUBLE, FLOAT16, BFLOAT16) is the same tensor: the toolkit's tensors
// hold real values, quantized where the fabric reads them. Transformer exports cast an integer attention mask this way
// (Hugging Face's extended attention mask: Unsqueeze, Cast to the model's dtype, Sub from 1, Mul by a large negative
// number). A Cast to an integer or boolean type changes values (it truncates) and is skipped with the reason.
#include "importer/onnx_graph_reader.hpp"

namespace maeri::importer {

bool GraphReader::real_valued_cast(const onnx::NodeProto& node, const std::string& name) const {
  switch (integer(node, name, "to", onnx::TensorProto_DataType_UNDEFINED)) {
    case onnx::TensorProto_DataType_FLOAT:
    case onnx::TensorProto_DataType_DOUBLE:
    case onnx::TensorProto_DataType_FLOAT16:
    case onnx::TensorProto_DataType_BFLOAT16:
      return true;
    default:
      return false;
  }
}

}  // namespace maeri::importer
