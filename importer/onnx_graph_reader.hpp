// The importer's reader of one ONNX graph (after its shapes are folded and inferred), which import_onnx runs: it
// walks the nodes in order and turns each into fabric layers, operators beside the fabric, a weight it folds, or a
// skipped node. Internal to importer/: its member functions live in one file per family of operators —
//   onnx_graph_reader.cpp        the walk and the dispatch on op_type
//   onnx_graph_lookup.cpp        what the graph says: shapes, constants, attributes, pads
//   onnx_network_builder.cpp     the Network being built: tensors, operators, fabric layers and their links
//   onnx_layer_folding.cpp       BatchNormalization and constant Mul/Add folded into a layer's weights
//   onnx_convolutions.cpp        Conv, ConvTranspose
//   onnx_matrix_products.cpp     Gemm, MatMul, Einsum
//   onnx_recurrent.cpp           LSTM, GRU, RNN (unrolled)
//   onnx_elementwise_operators.cpp  activations and table functions beside the fabric
//   onnx_elementwise_pairs.cpp   binary element-wise arithmetic (broadcast, constant operands), Div, Pow
//   onnx_pooling.cpp             pooling beside the fabric
//   onnx_channel_affines.cpp     BatchNormalization and per-channel constants that did not fold
//   onnx_normalization.cpp       ReduceMean/Sum/Max, LayerNormalization and its decomposed form
//   onnx_layout_operators.cpp    Concat, Reshape and its kin, Transpose, Pad, Slice, Gather, Split
//   onnx_lookup.cpp              Gather of a constant table at run-time indices (a token embedding)
//   onnx_scatter.cpp             ScatterND of constant indices (cache updates) as Concat and Gather
//   onnx_mirrored_pad.cpp        Pad of mode reflect or edge as Gathers of constant indices
//   onnx_instance_normalization.cpp  InstanceNormalization as a layer normalization and a channel affine
//   onnx_resize.cpp              Resize, Upsample
//   onnx_prelu.cpp               PRelu
//   onnx_skip_reasons.cpp        why the other operators are skipped
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "contracts/layer.hpp"
#include "contracts/network.hpp"
#include "importer/onnx_import.hpp"
#include "importer/onnx_tensor_data.hpp"

namespace maeri::importer {

using Dims = std::vector<std::int64_t>;

// One dimension as shape inference left it: a value, or the symbol (dim_param) or nothing when unresolved.
struct Dimension {
  std::int64_t value = -1;
  std::string symbol;
};
using Shape = std::vector<Dimension>;

// The end of every skip reason: what a skipped node does to the graph.
inline constexpr char kCut[] = "; the graph is cut here (its consumers read a network input)";

// Whether the op_type is one of the binary element-wise operators elementwise_pair reads.
bool is_elementwise_pair_operator(const std::string& op);

// Why a node of this op_type is skipped (the operator's family and what MAERI runs of it), ending in kCut.
std::string skip_reason(const std::string& op);

// "[1, 2, 3]": a list of dimensions or attribute values as messages quote it.
std::string list(const Dims& values);

// Where a fabric layer's output channels (its K) are in the ONNX tensor it writes: a convolution's axis 1, a
// Gemm's or MatMul's last axis (the columns of B).
enum class ChannelAxis { Second, Last };

class GraphReader {
 public:
  GraphReader(const std::string& path, onnx::ModelProto& model);
  OnnxImport read();

 private:
  // ---- the walk (onnx_graph_reader.cpp) ----
  contracts::Network& network() { return result_.network; }
  [[noreturn]] void fail(const std::string& node, const std::string& problem) const;
  std::string run_time_branches(const onnx::GraphProto& graph) const;
  void skip(const onnx::NodeProto& node, const std::string& name, const std::string& reason);
  void record_skipped_graph();
  void note(const std::string& text) { result_.notes.push_back(text); }
  void check_utf8(const std::string& text, const std::string& field, const std::string& what) const;
  void record(const onnx::ValueInfoProto& value);
  void read_node(const onnx::NodeProto& node, int index, const std::string& name);
  // Adds the node as an operator of the post-processing unit (or an alias for a no-op); returns "" when it did,
  // the reason it is skipped otherwise.
  std::string post_operator(const onnx::NodeProto& node, const std::string& name);

  // ---- shapes, constants and attributes of the ONNX graph (onnx_graph_lookup.cpp) ----
  std::optional<Dims> known_shape(const std::string& tensor) const;
  std::string dynamic_inputs() const;
  std::string unresolved_origin(const std::string& tensor) const;
  Dims input_shape(const onnx::NodeProto& node, const std::string& name, int index, const char* role) const;
  std::optional<TensorValue> constant(const std::string& tensor) const;
  std::optional<std::vector<double>> values(const onnx::NodeProto& node, int index) const;
  static const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const std::string& key);
  Dims ints(const onnx::NodeProto& node, const std::string& name, const std::string& key, Dims fallback) const;
  std::int64_t integer(const onnx::NodeProto& node, const std::string& name, const std::string& key,
                       std::int64_t fallback) const;
  double real(const onnx::NodeProto& node, const std::string& name, const std::string& key, double fallback) const;
  std::string text(const onnx::NodeProto& node, const std::string& name, const std::string& key,
                   const std::string& fallback) const;
  Dims onnx_pads(const onnx::NodeProto& node, const std::string& name, const Dims& in, const Dims& spans,
                 const Dims& strides) const;
  Dims symmetric_pads(const onnx::NodeProto& node, const std::string& name, const Dims& in, const Dims& spans,
                      const Dims& strides) const;
  void check_output(const onnx::NodeProto& node, const std::string& name, const Dims& expected) const;

  // ---- the Network being built (onnx_network_builder.cpp) ----

  // How a layer's activation, weights and output meet the ONNX tensors.
  struct LayerLinks {
    std::string input;         // ONNX tensor the layer reads ("" : a network input of its own)
    std::optional<std::size_t> input_tensor;  // or the Network tensor the importer made for it (a zero border)
    bool input_in_order = true;  // the ONNX tensor's elements, row-major, are the layer's input (N, C, X, Y)
    std::string output;        // ONNX tensor the layer writes ("" : none, its output is a network output)
    bool output_in_order = true;
    std::optional<std::string> weight_name;  // the constant's ONNX name when its values are given as they are
    std::optional<std::vector<double>> weights, bias;
    std::string cut_reason;    // why the input or output is not linked
  };

  // A node read as an operator beside the fabric: its output's shape and the Network tensors it reads.
  struct OperatorNode {
    const onnx::NodeProto& node;
    const std::string& name;
    Dims out_shape;
    std::vector<std::size_t> inputs;  // what take_inputs found, what emit's operator reads
  };

  std::string unique_tensor_name(const std::string& wanted);
  std::size_t add_tensor(const std::string& wanted, Dims shape, bool constant);
  std::size_t add_operator(const std::string& wanted, contracts::OperatorKind kind, std::vector<std::size_t> inputs,
                           std::size_t output);
  std::optional<std::size_t> activation(const std::string& name);
  std::size_t reshaped(std::size_t tensor, const std::string& wanted, const Dims& shape, const std::string& op_name);
  std::optional<std::size_t> zero_bordered(const std::string& onnx_input, const Dims& unpadded,
                                           const contracts::PadBorder& border, const std::string& layer);
  std::optional<std::size_t> zero_inserted(const std::string& onnx_input, const Dims& x, const Dims& strides,
                                           const contracts::PadBorder& border, const std::string& layer);
  void add_layer(const onnx::NodeProto& node, contracts::Layer layer, const std::string& name, LayerLinks links);
  bool take_inputs(OperatorNode& read, int count);
  std::size_t emit(OperatorNode& read, contracts::OperatorKind kind);

  // ---- weights folded into a layer (onnx_layer_folding.cpp) ----
  std::string fold_into(int index, const std::string& layer, std::int64_t channels, ChannelAxis channel_axis,
                        std::vector<double>& weights, std::vector<double>& bias);
  bool folded_scale_shift(const onnx::NodeProto& node, const std::string& name, const std::string& output,
                          std::int64_t channels, ChannelAxis channel_axis, std::vector<double>& scale,
                          std::vector<double>& shift) const;
  std::optional<std::vector<double>> per_channel_constant(const std::string& tensor, const std::string& output,
                                                          std::int64_t channels, ChannelAxis channel_axis) const;
  void fold_after_product(int index, const std::string& name, std::int64_t columns, LayerLinks& links);

  // ---- fabric layers (onnx_convolutions.cpp, onnx_matrix_products.cpp, onnx_recurrent.cpp) ----
  void convolution(const onnx::NodeProto& node, int index, const std::string& name);
  void transposed_convolution(const onnx::NodeProto& node, const std::string& name);
  Dims transposed_pads(const onnx::NodeProto& node, const std::string& name, const Dims& x, const Dims& strides,
                       const Dims& spans, Dims& output_padding) const;
  void gemm(const onnx::NodeProto& node, int index, const std::string& name);
  void matmul(const onnx::NodeProto& node, int index, const std::string& name);
  void batched_constant_product(const onnx::NodeProto& node, const std::string& name, const std::vector<double>& b,
                                std::int64_t slices, std::int64_t batch, std::int64_t m, std::int64_t k,
                                std::int64_t n, std::int64_t a_batch);
  std::int64_t broadcast_batch(const std::string& name, const Dims& a, const Dims& b) const;
  bool activation_product(const onnx::NodeProto& node, const std::string& name);
  std::optional<std::string> last_axes_swapped(const std::string& tensor) const;
  bool folds_into_products(const onnx::NodeProto& node) const;
  bool folds_into_products_of(const std::string& source, const std::string& transposed) const;
  static std::optional<Dims> broadcast_leading_axes(const Dims& a, const Dims& b);  // onnx_product_broadcast.cpp
  std::size_t broadcast_operand(const std::string& name, const std::string& operand, std::size_t tensor,
                                const Dims& leading);
  void einsum(const onnx::NodeProto& node, const std::string& name);
  void recurrent(const onnx::NodeProto& node, const std::string& name);

  // ---- operators beside the fabric (onnx_elementwise_operators.cpp, onnx_pooling.cpp, onnx_channel_affines.cpp,
  // onnx_layout_operators.cpp); each returns "" when it added the operator, the skip reason otherwise ----
  std::string alias(const onnx::NodeProto& node);
  bool real_valued_cast(const onnx::NodeProto& node, const std::string& name) const;  // onnx_casts.cpp
  std::string unary(OperatorNode& read, contracts::OperatorKind kind);
  std::string clip(OperatorNode& read);
  std::string softmax(OperatorNode& read);
  std::string hard_gate(OperatorNode& read);
  std::string table_function(OperatorNode& read, contracts::UnaryFunction function);
  std::string elementwise_pair(OperatorNode& read);
  std::string power(OperatorNode& read, bool constant_base, bool constant_exponent);
  std::string division(OperatorNode& read, bool constant_numerator, bool constant_divisor);
  std::size_t constant_operand(const std::string& wanted, Dims dims, std::vector<double> values);
  std::string emit_pair(OperatorNode& read, contracts::OperatorKind kind, std::size_t a, std::size_t b,
                        bool constant_first);
  std::string pool(OperatorNode& read);
  std::size_t edge_replicated(std::size_t tensor, Dims& shape, std::size_t axis, std::int64_t begin, std::int64_t end,
                              const std::string& name);
  std::string global_average_pool(OperatorNode& read);
  std::string channel_affine(OperatorNode& read, const std::string& x, std::vector<double> scale,
                             std::vector<double> shift);
  std::string batch_normalization(OperatorNode& read);
  std::optional<std::string> constant_per_channel(OperatorNode& read);
  std::string concat(OperatorNode& read);
  std::string transpose(OperatorNode& read);
  std::string slice(OperatorNode& read);
  std::string gather(OperatorNode& read);
  std::string lookup(OperatorNode& read);  // onnx_lookup.cpp
  std::string scatter(OperatorNode& read);  // onnx_scatter.cpp
  std::string expand(OperatorNode& read);   // onnx_expand.cpp
  std::string mirrored_pad(OperatorNode& read, const Dims& x, const std::string& mode, const Dims& pads,
                           const Dims& axes);  // onnx_mirrored_pad.cpp
  std::string instance_normalization(OperatorNode& read);  // onnx_instance_normalization.cpp
  std::string split(OperatorNode& read);
  std::string layer_normalization(OperatorNode& read);
  std::string reduction(OperatorNode& read);
  bool decomposed_layer_normalization(const onnx::NodeProto& node, const std::string& name);
  void emit_layer_normalization(OperatorNode& read, const std::string& output, std::int64_t axis, double epsilon,
                                std::vector<double> scale, std::vector<double> shift);
  int only_reader(const std::string& tensor) const;
  std::string affine_after(std::string normalised, std::int64_t length, std::vector<double>& gamma,
                           std::vector<double>& beta, std::vector<int>& folded) const;
  std::int64_t trailing_mean_axis(const onnx::NodeProto& node, const std::string& name, std::int64_t rank) const;
  std::string pad(OperatorNode& read);
  std::string channel_padded(OperatorNode& read, const Dims& x, const contracts::PadBorder& border);
  std::string resize(OperatorNode& read);  // onnx_resize.cpp
  std::string prelu(OperatorNode& read);   // onnx_prelu.cpp
  std::string image_scaler(OperatorNode& read);  // onnx_experimental_operators.cpp
  std::string affine(OperatorNode& read);        // onnx_experimental_operators.cpp
  std::string crop(OperatorNode& read);          // onnx_experimental_operators.cpp

  std::string path_;
  onnx::ModelProto& model_;
  std::int64_t opset_ = 1;
  std::map<std::string, Shape> shapes_;
  std::map<std::string, int> initializers_;                // initializer name → index
  std::map<std::string, std::vector<int>> readers_;        // ONNX tensor → the nodes that read it
  std::set<std::string> graph_outputs_;
  std::set<int> folded_nodes_;                             // nodes folded into a convolution before their turn
  std::set<std::string> node_names_, tensor_names_, operator_names_;
  std::map<std::string, std::size_t> tensor_of_;           // ONNX tensor → the Network tensor that holds it
  OnnxImport result_;
};

}  // namespace maeri::importer
