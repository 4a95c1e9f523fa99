// The Network contract: a DNN as a graph of tensors and operators with producer → consumer edges. Operators on the
// fabric (conv / FC / GEMM) refer to their Layer; the operators beside the fabric (pooling, activations, residual
// adds, concatenation, requantization) join this list as the toolkit learns to run them. A flat workload file (a list
// of layers, today's format) is the special case of a chain (chain_network). docs/workload-spec.md, "Networks".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/layer.hpp"

namespace maeri::contracts {

// A tensor's shape is (N, C, X, Y) for activations and (K, C/groups, R, S) for weights, in the Layer's names.
struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  bool constant = false;  // weights: given with the network, produced by no operator
  std::int64_t elements() const;
};

enum class OperatorKind {
  FabricLayer,  // conv / FC / GEMM: runs on MAERI's fabric; Operator::layer names its Layer
};
const char* to_string(OperatorKind kind);

struct Operator {
  std::string name;
  OperatorKind kind = OperatorKind::FabricLayer;
  std::size_t layer = 0;             // index into Network::layers (FabricLayer)
  std::vector<std::size_t> inputs;   // indices into Network::tensors; a FabricLayer's are (activation, weights)
  std::vector<std::size_t> outputs;  // indices into Network::tensors
};

struct Network {
  std::string name;
  std::vector<Layer> layers;        // the fabric layers, in the order the operators run them (what the mapper maps)
  std::vector<Tensor> tensors;
  std::vector<Operator> operators;  // in a topological order: every input is produced by an earlier operator or is
                                    // a network input (no producer)

  std::int64_t total_macs() const;
  // The operator that writes `tensor`, or nullopt for network inputs and weights.
  std::optional<std::size_t> producer(std::size_t tensor) const;
  // The operators that read `tensor`, ascending.
  std::vector<std::size_t> consumers(std::size_t tensor) const;
  // Tensors no operator produces that are not constant (what the user feeds in), and tensors no operator reads
  // (what the network gives back); ascending.
  std::vector<std::size_t> network_inputs() const;
  std::vector<std::size_t> network_outputs() const;
};

// The shapes a fabric layer reads and writes (see Tensor).
std::vector<std::int64_t> input_shape(const Layer& layer);
std::vector<std::int64_t> weight_shape(const Layer& layer);
std::vector<std::int64_t> output_shape(const Layer& layer);

// The tensor names a fabric layer reads and writes, as its source names them (ONNX tensor and initializer names).
struct LayerTensorNames {
  std::string input, weights, output;
};
// Fabric layers joined by their tensor names: a layer reads the output of the latest earlier layer that wrote its
// input's name, when that tensor has its input's shape; otherwise a network input of that name ("<layer>.input" when
// the name is taken). Weights are constants; a name used twice for weights gets "<layer>.weights". The operators
// between layers that the toolkit does not run yet (pooling, activations, …) are left out, so a layer behind one
// reads a network input: no edge is claimed that the source does not give.
Network graph_network(std::string name, std::vector<Layer> layers, const std::vector<LayerTensorNames>& names);

// A list of layers as a chain (a flat workload file): layer i reads layer i − 1's output "<name>.output" when that
// has its input's shape, and a network input "<name>.input" of its own otherwise (a flat file leaves out the
// operators between such layers, e.g. pooling); its weights are "<name>.weights".
Network chain_network(std::string name, std::vector<Layer> layers);

// Why `network` is not a well-formed graph (an index out of range, a tensor produced twice, an operator reading a
// tensor produced later, a fabric operator whose tensors do not have its layer's shapes, a layer no operator runs or
// runs twice, duplicate tensor or operator names), or nullopt.
std::optional<std::string> network_violation(const Network& network);

}  // namespace maeri::contracts
