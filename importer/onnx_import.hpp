// ONNX import: reads an ONNX model (protobuf), writes the input sizes the user gives into it, folds its shape
// computations, runs ONNX shape inference, and turns it into a Network graph: every Conv (2-D and 1-D), Gemm,
// MatMul, Einsum, ConvTranspose and recurrent node (LSTM, GRU, RNN, unrolled per time step) becomes a fabric layer
// with its real shape, named after the node, and the operators the post-processing unit runs (Relu, Clip,
// pooling, Add, Concat, Flatten/Reshape, Softmax) sit between them with their tensor shapes. BatchNormalization and
// a constant Mul/Add after a convolution, Gemm or MatMul fold into its weights and bias; elsewhere (after a ReLU, a
// BatchNorm1d) one of constant per-channel values is a channel affine. Every other node is skipped with the
// reason: the graph is cut there (its consumers read a network input of its output's shape). The fabric layers'
// float weights and biases come from the initializers. The mapping of ONNX operators and attributes is
// docs/workload-spec.md, "ONNX models".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "contracts/layer.hpp"
#include "contracts/network.hpp"

namespace maeri::importer {

// The sizes of a model's inputs where the model leaves them dynamic (--input-shape NAME=d0,d1,… and --batch N).
struct ModelInputShapes {
  std::map<std::string, std::vector<std::int64_t>> shapes;  // every dimension of the named input
  std::int64_t batch = 0;  // the first dimension of every other input whose first dimension is dynamic (0: none)
  // --input-value NAME=V: a run-time input (a sample rate, a flag) whose value the user knows: it becomes a constant
  // of the model, so that what depends on it folds (an If on it imports the branch taken; importer/onnx_input_values).
  std::map<std::string, double> values;
  bool empty() const { return shapes.empty() && batch == 0 && values.empty(); }
  // Parses and adds "NAME=d0,d1,…" (sizes ≥ 1, at most contracts::kMaxLayerDimension each); throws
  // std::invalid_argument saying what is wrong with `text`.
  void add(const std::string& text);
  // Parses and adds "NAME=V" (V a finite number); throws std::invalid_argument saying what is wrong with `text`.
  void add_value(const std::string& text);
};

struct SkippedNode {
  std::string name;     // the node's name (or "<op_type>#<index>" when it has none)
  std::string op_type;  // e.g. "Sigmoid"
  std::string reason;   // why MAERI does not compute it, and what happens to the graph there
  std::vector<std::string> outputs;  // the ONNX tensors it writes: where a network input of the cut graph comes from
  std::vector<std::string> inputs;   // the ONNX tensors it reads ("" : an optional input left out)
  std::string node;                  // the ONNX NodeProto, serialised: what importer/onnx_node_evaluation reads
};

// What computing the skipped nodes in float needs besides the Network's own tensors (importer/onnx_node_evaluation:
// a chained run computes a cut tensor by the float reference from the real input instead of seeding it).
struct RealArray {
  std::vector<std::int64_t> shape;
  std::vector<double> values;  // row-major
};
struct SkippedGraph {
  std::int64_t opset = 1;
  std::map<std::string, RealArray> constants;   // the ONNX constants the skipped nodes read
  std::map<std::string, std::string> held_by;   // ONNX tensor → the Network tensor that holds its elements in order
  std::map<std::string, std::vector<std::int64_t>> shapes;  // the shapes the graph gives their inputs and outputs
};

struct OnnxImport {
  contracts::Network network;
  std::vector<SkippedNode> skipped;
  // The recurrent nodes (LSTM, GRU, RNN) as the float reference evaluates them: their gates do not run on the unit,
  // so their ONNX outputs and each unrolled layer's inputs (x_t, h_{t−1}) are network inputs the float reference
  // computes. `outputs` lists the node's ONNX outputs, then per direction and step the input and recurrent layers'
  // input tensors (importer/onnx_node_evaluation.hpp).
  std::vector<SkippedNode> recurrent;
  SkippedGraph skipped_graph;
  // What the import did besides layers and operators: "folded BatchNormalization bn1 into conv1", "cut: layer fc
  // reads 'x' in another order …", unrolled recurrent nodes, a network input given after its Transpose.
  std::vector<std::string> notes;
  // The float values of the fabric layers' constant tensors (weights, biases) and the channel affines' (scale,
  // shift: (C)), keyed by the Network tensor's name, row-major in the tensor's shape: weights (K, C/groups, R, S) as
  // contracts::weight_shape gives, biases (K). A
  // layer whose weights the model does not hold as constants (attention's second operand, …) has no entry.
  std::map<std::string, std::vector<double>> weights;
};

// Protobuf's own limit on a serialised message (2 GiB - 1): a larger .onnx keeps its weights as external data, which
// the importer does not read. The model must be a regular file (a device or a FIFO is refused, not read).
inline constexpr std::size_t kMaxOnnxFileBytes = (std::size_t(1) << 31) - 1;

// Throws util::InputError naming the file (and the node, initializer or option as the field) when the file is not
// an ONNX model, an input size contradicts the model, a folded shape computation is inconsistent, shape inference
// fails, a fabric node has a dimension nothing resolves (dynamic shapes: the message names the inputs and the
// options that give their sizes), an attribute the Layer cannot express (asymmetric pads, 3-D convolution, …), a
// weight stored as external data, or a shape that breaks the Layer's rules.
OnnxImport import_onnx(const std::string& path, const ModelInputShapes& sizes = {});

}  // namespace maeri::importer
