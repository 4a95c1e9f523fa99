// ONNX import: reads an ONNX model (protobuf), runs ONNX shape inference, and turns every Conv, Gemm and MatMul
// node into a Layer with its real shape — batch from the input, groups, dilations, strides, pads — named after
// the node; every other node is skipped with the reason (pooling, activations, element-wise, layout). The
// mapping of ONNX attributes onto Layer fields is docs/workload-spec.md, "ONNX models".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "contracts/layer.hpp"
#include "contracts/network.hpp"
#include "contracts/network.hpp"

namespace maeri::importer {

struct SkippedNode {
  std::string name;     // the node's name (or "<op_type>#<index>" when it has none)
  std::string op_type;  // e.g. "MaxPool"
  std::string reason;   // why MAERI does not compute it
};

struct OnnxImport {
  contracts::Network network;
  std::vector<SkippedNode> skipped;
};

// Protobuf's own limit on a serialised message (2 GiB - 1): a larger .onnx keeps its weights as external data, which
// the importer does not read. The model must be a regular file (a device or a FIFO is refused, not read).
inline constexpr std::size_t kMaxOnnxFileBytes = (std::size_t(1) << 31) - 1;

// Throws util::InputError naming the file (and the node as the field) when the file is not an ONNX model, shape
// inference fails, a Conv/Gemm/MatMul has a dimension inference cannot resolve (dynamic shapes), an attribute
// the Layer cannot express (asymmetric pads, 1-D or 3-D convolution, …), or a shape breaks the Layer's rules.
OnnxImport import_onnx(const std::string& path);

}  // namespace maeri::importer
