// The Network contract: a DNN as a graph of tensors and operators with producer → consumer edges. Operators on the
// fabric (conv / FC / GEMM) refer to their Layer; the operators beside the fabric (activations and gates, pooling,
// residual adds, products, concatenation, reshapes, requantization, softmax) run in the post-processing unit. A flat
// workload file (a list of layers) is the special case of a chain (chain_network). docs/workload-spec.md, "Networks"; what every
// operator computes on integers is docs/quantization.md (contracts/quantized_network.hpp holds its parameters).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/elementwise_functions.hpp"
#include "contracts/layer.hpp"
#include "contracts/resize.hpp"
#include "contracts/tensor_layout.hpp"

namespace maeri::contracts {

// A tensor's shape is (N, C, X, Y) for activations and (K, C/groups, R, S) for weights, in the Layer's names; a
// fabric layer's bias is (K). Reshape may give an activation another rank (flatten: (N, C·X·Y)); the operators that
// need rank 4 (pooling, fabric layers) say so in network_violation.
struct Tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  bool constant = false;  // weights: given with the network, produced by no operator
  // A network input where the importer cut an ONNX graph: "node NAME (OP): why MAERI does not compute it" — the
  // skipped node's output, which a chained run computes by the float reference from the model (an ONNX workload) or
  // must be given (a YAML one, where `cut:` keeps the reason). Empty for every other tensor.
  std::string cut = {};
  std::int64_t elements() const;
};

// Every operator a network may hold. The first runs on the fabric; the others run beside it, in the
// post-processing unit (docs/quantization.md gives each one's integer semantics). One list: the YAML names, the
// model's and the unit's per-kind counts and the references all iterate it.
#define MAERI_OPERATOR_KINDS(X)                                                                                    \
  X(FabricLayer, "fabric layer")       /* conv / FC / GEMM on MAERI: (activation, weights[, bias]) → output      */ \
  X(Requantize, "requantize")          /* one input → the same values at another scale                          */ \
  X(Relu, "relu")                      /* max(x, 0)                                                             */ \
  X(Clip, "clip")                      /* min(max(x, clip_min), clip_max); ReLU6 is clip 0..6                   */ \
  X(MaxPool, "max pool")               /* window maximum over X, Y (rank 4), padding never wins                  */ \
  X(AveragePool, "average pool")       /* window mean over X, Y (rank 4), padding not counted                    */ \
  X(GlobalAveragePool, "global average pool") /* mean over all of X, Y: (N, C, X, Y) → (N, C, 1, 1)              */ \
  X(Add, "add")                        /* a + b, broadcast (contracts/elementwise_pairs.hpp); b may be a constant */ \
  X(Concat, "concat")                  /* inputs joined along `axis` (1 = channels)                              */ \
  X(Reshape, "reshape")                /* the same elements in row-major order, the output tensor's shape        */ \
  X(Softmax, "softmax")                /* along `axis` (any; classes are axis 1 of a classifier)                 */ \
  X(ChannelAffine, "channel affine")   /* x·scale[c] + shift[c] along axis 1: (activation, scale, shift) → output */ \
  X(Pad, "pad")                        /* a zero border around X, Y (rank 4): (N, C, X, Y) → (N, C, X + …, Y + …) */ \
  X(TableFunction, "table function")   /* f(x) by a table over the input integers: op.function, one of the list   \
                                          of contracts/elementwise_functions.hpp (sigmoid, tanh, gelu, log, …)  */ \
  X(Mul, "mul")                        /* a · b, broadcast; b may be a constant                                  */ \
  X(Sub, "sub")                        /* a − b, broadcast; b may be a constant (constant_first: b − a)          */ \
  X(Maximum, "max")                    /* max(a, b), broadcast; b may be a constant                              */ \
  X(Minimum, "min")                    /* min(a, b), broadcast; b may be a constant                              */ \
  X(Transpose, "transpose")            /* axes permuted: output axis i is input axis perm[i] (tensor_layout.hpp)  */ \
  X(Slice, "slice")                    /* per axis `count` elements from `start` by `step` (tensor_layout.hpp)    */ \
  X(Gather, "gather")                  /* the entries `indices` along `axis` (constant indices; tensor_layout.hpp) */ \
  X(LayerNormalization, "layer normalization") /* (x − mean) / √(var + ε) · γ + β over the axes from `axis` on:   \
                                          (activation, scale γ, shift β) → output (layer_normalization.hpp)     */ \
  X(ReduceMean, "reduce mean")         /* mean over `reduce_axes` (keep_dims: extent 1 there, else removed)        */ \
  X(ReduceSum, "reduce sum")           /* sum over `reduce_axes`, requantized to the output's scale               */ \
  X(ReduceMax, "reduce max")           /* maximum over `reduce_axes`                                              */ \
  X(Resize, "resize")                  /* nearest or linear resampling of any axes (contracts/resize.hpp)          */ \
  X(Lookup, "lookup")                  /* a constant table's entries along `axis` at run-time indices (an           \
                                          embedding): (indices, table) → output (contracts/table_lookup.hpp)    */

enum class OperatorKind {
#define MAERI_OPERATOR_KIND_ENUM(kind, label) kind,
  MAERI_OPERATOR_KINDS(MAERI_OPERATOR_KIND_ENUM)
#undef MAERI_OPERATOR_KIND_ENUM
};
const char* to_string(OperatorKind kind);

// A pooling window over X and Y (MaxPool, AveragePool), in the Layer's names.
struct PoolWindow {
  std::int64_t size_x = 1, size_y = 1;
  std::int64_t stride_x = 1, stride_y = 1;
  std::int64_t padding_x = 0, padding_y = 0;  // on each side
  // Output extents: floor((X + 2·padding − size) / stride) + 1, like Layer::output_x.
  std::int64_t output_x(std::int64_t x) const { return (x + 2 * padding_x - size_x) / stride_x + 1; }
  std::int64_t output_y(std::int64_t y) const { return (y + 2 * padding_y - size_y) / stride_y + 1; }
};

// A zero border around X and Y (Pad), in the Layer's names: begin before the first row / column, end after the
// last. Asymmetric borders are what a Layer's padding (the same on both sides) cannot express: TensorFlow's "SAME"
// convolutions of stride 2, Keras ZeroPadding2D, a transposed convolution's output_padding.
struct PadBorder {
  std::int64_t x_begin = 0, x_end = 0, y_begin = 0, y_end = 0;
  std::int64_t output_x(std::int64_t x) const { return x + x_begin + x_end; }
  std::int64_t output_y(std::int64_t y) const { return y + y_begin + y_end; }
};

// A fabric layer that multiplies two activations (attention's Q·Kᵀ, P·V; contracts/matrix_product.hpp): its
// weights are its second activation, not a constant, and either operand may be read transposed.
struct MatrixProductForm {
  bool two_activations = false;
  bool transpose_a = false;  // A is given as [..., K, M]
  bool transpose_b = false;  // B is given as [..., N, K]
};
struct Network;

struct Operator {
  std::string name;
  OperatorKind kind = OperatorKind::FabricLayer;
  std::size_t layer = 0;             // index into Network::layers (FabricLayer)
  std::vector<std::size_t> inputs;   // indices into Network::tensors; a FabricLayer's are (activation, weights) or
                                     // (activation, weights, bias) — a matrix product's (B, A); Add's two, Concat's
                                     // ≥ 1; a ChannelAffine's (activation, scale, shift); a Lookup's (indices,
                                     // table); every other one
  std::vector<std::size_t> outputs;  // indices into Network::tensors; exactly one for every kind
  // Attributes of the kinds that have them (the others ignore them), in real (float) units:
  double clip_min = 0, clip_max = 0;  // Clip
  PoolWindow pool;                    // MaxPool, AveragePool
  std::int64_t axis = 1;              // Concat, Softmax, Gather, Lookup (the table's), LayerNormalization (the first
                                      // normalised axis)
  double epsilon = 1e-5;              // LayerNormalization (ONNX's default)
  PadBorder pad;                      // Pad
  std::vector<std::int64_t> perm;     // Transpose: a permutation of [0, rank)
  std::vector<SliceAxis> slice;       // Slice: one per input axis
  std::vector<std::int64_t> indices, indices_shape;  // Gather: the entries along `axis` in [0, extent), their shape
  std::vector<std::int64_t> reduce_axes;  // ReduceMean, ReduceSum, ReduceMax: distinct, ascending, in [0, rank)
  bool keep_dims = true;
  FunctionCall function;              // TableFunction: the function and its parameters (alpha, beta, gamma)
  bool constant_first = false;        // Sub with a constant operand: the constant is the left one (c − x)
  MatrixProductForm product;          // FabricLayer
  ResizeForm resize;                  // Resize
};

// How many of `op`'s inputs are activations: they come first, and the rest are constants (a fabric layer's weights
// and bias, a channel affine's or a layer normalization's scale and shift, an element-wise pair's constant
// operand), which the operator holds as parameters rather than streams. An element-wise pair's second input is a
// parameter when its tensor is a constant (its index must be in range). A matrix product's two inputs are both
// activations.
std::size_t activation_inputs(const Network& network, const Operator& op);

// The kind's label, or a table function's own ("sigmoid", "gelu"): how reports name what an operator computes.
std::string operator_label(const Operator& op);

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

// Whether a Mul's second input `gate` of shape (N, C, 1, 1) scales each (n, c) plane of its first input `image`
// (N, C, X, Y): the squeeze-and-excitation broadcast.
bool is_se_gate(const std::vector<std::int64_t>& image, const std::vector<std::int64_t>& gate);

// The shape `op` writes, from its inputs' shapes and its attributes, or why it cannot run on them (the operator's
// rule of docs/workload-spec.md, "Graphs"): input counts (a fabric layer 2 or 3, the element-wise pairs add, sub,
// max, min and mul 2, concat at least 1, the others 1); a fabric layer's tensors with its layer's shapes (bias: (K));
// ranks (pooling, global average pool and fabric layers 4; softmax any rank, 0 ≤ axis < rank); element-wise pairs: shapes
// that broadcast (contracts::broadcast_shape; the output is the broadcast shape); concat: equal ranks and extents
// except along the axis; pools: a window that fits the padded input; clip: clip_min ≤ clip_max; pad: rank 4, a
// border of at least 0 whose padded extents stay within kMaxLayerDimension; table function: the parameters it reads
// finite (function_violation). A Reshape writes its output tensor's
// shape (the target), which must hold as many elements as its input. Every message names the operator. Inputs are
// read from network.tensors by index; the indices must be in range.
// Channel affine: 3 inputs, rank 2 or 4, its scale and shift (C) for the input's C (axis 1). Layer normalization:
// 3 inputs, 0 ≤ axis < rank, its scale and shift of the input's shape from `axis` on, a finite ε ≥ 0. A matrix
// product: contracts/matrix_product.hpp's rule (its operands agree and give its layer).
struct InferredShape {
  std::vector<std::int64_t> shape;
  std::optional<std::string> violation;  // set: `shape` is empty
};
InferredShape inferred_output_shape(const Network& network, const Operator& op);

// A topological order of the operators: each comes after the producers of its inputs, and among those ready the
// earliest listed runs first, so operators listed in a valid order keep it. When the operators form a cycle,
// `operators` is empty and `cycle_tensor` is a tensor on the cycle.
struct OperatorOrder {
  std::vector<std::size_t> operators;  // indices into Network::operators
  std::optional<std::size_t> cycle_tensor;
};
OperatorOrder topological_order(const Network& network);
// `network` with its operators in `order` (a permutation of their indices) and its layers in the order those
// operators run them (each FabricLayer's `layer` index follows).
Network reordered(Network network, const std::vector<std::size_t>& order);

// Why `network` is not a well-formed graph (an index out of range, a tensor produced twice, an operator reading a
// tensor produced later, an operator reading a constant as an activation or parameters (a fabric layer's weights
// or bias, a channel affine's scale or shift) that are not constants — a matrix product's two inputs are both
// activations —, an output tensor whose shape is not
// inferred_output_shape's or that is constant, a tensor of more than kMaxTensorElementsForInt64Bytes elements, a
// layer no operator runs or runs twice, duplicate tensor or operator names), or nullopt.
std::optional<std::string> network_violation(const Network& network);

}  // namespace maeri::contracts
