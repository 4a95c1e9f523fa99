// Reads a workload spec (kind: workload): a flat list of CONV, FC and GEMM layers sharing one batch size (a chain),
// or a graph of declared inputs and operators naming the tensors they read and write (docs/workload-spec.md,
// "Graphs"). Output sizes and tensor shapes are derived and checked here, so every later stage can trust a Layer
// and a Network.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "contracts/matrix_product.hpp"
#include "contracts/elementwise_pairs.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/strict_yaml.hpp"

namespace maeri::contracts {
namespace {

// Sizes are read within the shared limits (contracts/layer.hpp); the rules between them are checked once the whole
// layer is read, by shape_violation().
// In a graph (`from_input` given) X and Y may be left out: the input tensor's shape fixes them, so they are 0 here,
// named in *from_input, and set once that shape is known (layer_sized_by_input).
Layer read_convolution(StrictMap& entry, Layer layer, std::vector<std::string>* from_input) {
  layer.K = entry.integer("K", 1, kMaxLayerDimension);
  layer.C = entry.integer("C", 1, kMaxLayerDimension);
  layer.R = entry.integer("R", 1, kMaxLayerDimension);
  layer.S = entry.integer("S", 1, kMaxLayerDimension);
  for (auto [field, size] : {std::pair{"X", &layer.X}, std::pair{"Y", &layer.Y}}) {
    if (from_input && !entry.has(field))
      from_input->push_back(field);
    else
      *size = entry.integer(field, 1, kMaxLayerDimension);
  }
  // Per-axis fields take one integer for both axes or a list [along X, along Y].
  const auto stride = entry.optional_integer_pair("stride", 1, kMaxStride);
  if (!stride)
    entry.fail("stride", fmt::format("missing required field (expected an integer in [1, {}] or a list [along X, "
                                     "along Y])",
                                     kMaxStride));
  const auto padding = entry.optional_integer_pair("padding", 0, kMaxLayerDimension);
  if (!padding) entry.fail("padding", "missing required field (expected an integer >= 0 or a list [along X, along Y])");
  const auto dilation = entry.optional_integer_pair("dilation", 1, kMaxDilation).value_or(std::array<std::int64_t, 2>{1, 1});
  layer.stride_x = (*stride)[0];
  layer.stride_y = (*stride)[1];
  layer.padding_x = (*padding)[0];
  layer.padding_y = (*padding)[1];
  layer.dilation_x = dilation[0];
  layer.dilation_y = dilation[1];
  layer.groups = entry.optional_integer("groups", 1, kMaxLayerDimension).value_or(1);
  if (const auto violation = workload_padding_violation(layer)) entry.fail(violation->field, violation->message);
  return layer;
}

// A GEMM M×K by K×N (per batch element) as the 1×1 convolution N = batch, K = N, C = K, X = M, Y = 1
// (docs/workload-spec.md): the B operand's columns are the filters, the A operand's rows the input positions.
Layer read_gemm(StrictMap& entry, Layer layer) {
  const std::int64_t m = entry.integer("M", 1, kMaxLayerDimension);
  const std::int64_t k = entry.integer("K", 1, kMaxLayerDimension);
  const std::int64_t n = entry.integer("N", 1, kMaxLayerDimension);
  const std::int64_t batch = entry.optional_integer("batch", 1, kMaxBatch).value_or(1);
  if (layer.N * batch > kMaxBatch)
    entry.fail("batch", fmt::format("expected the workload's batch ({}) times the layer's at most {}, found {}",
                                    layer.N, kMaxBatch, layer.N * batch));
  Layer gemm = gemm_layer(layer.N * batch, m, k, n);
  gemm.name = layer.name;
  // G independent products of M×(K/G) by (K/G)×(N/G), each its own B: a matrix product's layer as a flat list
  // writes it (contracts/matrix_product.hpp); shape_violation checks that G divides K and N.
  gemm.groups = entry.optional_integer("groups", 1, kMaxLayerDimension).value_or(1);
  return gemm;
}

// Optional declared output sizes (X_out, Y_out) catch shape mistakes in hand-written networks.
struct DeclaredOutputs {
  std::optional<std::int64_t> x, y;
};
DeclaredOutputs read_declared_outputs(StrictMap& entry) {
  return {entry.optional_integer("X_out", 1, kMaxLayerDimension), entry.optional_integer("Y_out", 1, kMaxLayerDimension)};
}
void check_declared_outputs(const StrictMap& entry, const Layer& layer, const DeclaredOutputs& declared) {
  if (declared.x && *declared.x != layer.output_x())
    entry.fail("X_out", fmt::format("declared {} but (X + 2*padding_x - (R-1)*dilation_x - 1)/stride_x + 1 = {}",
                                    *declared.x, layer.output_x()));
  if (declared.y && *declared.y != layer.output_y())
    entry.fail("Y_out", fmt::format("declared {} but (Y + 2*padding_y - (S-1)*dilation_y - 1)/stride_y + 1 = {}",
                                    *declared.y, layer.output_y()));
}

Layer read_fully_connected(StrictMap& entry, Layer layer) {
  layer.K = entry.integer("K", 1, kMaxLayerDimension);
  layer.C = entry.integer("C", 1, kMaxLayerDimension);
  return layer;
}

}  // namespace

LayerType layer_type_of(const std::string& name) {
  if (name == "fc") return LayerType::FullyConnected;
  if (name == "gemm") return LayerType::Gemm;
  return LayerType::Convolution;
}

void check_layer_shape(const StrictMap& map, const Layer& layer) {
  const auto violation = shape_violation(layer);
  if (!violation) return;
  if (violation->field.empty()) map.fail_here(violation->message);
  map.fail(violation->field, violation->message);
}

namespace {

// The shape rules and the declared outputs of a layer whose sizes are all known.
void check_fabric_layer(const StrictMap& entry, const Layer& layer, const DeclaredOutputs& declared) {
  check_layer_shape(entry, layer);
  check_declared_outputs(entry, layer, declared);
}

// A graph conv that leaves sizes to its input: what it left out, and its declared outputs to check once sized.
struct SizesFromInput {
  std::vector<std::string> fields;  // "X", "Y"
  DeclaredOutputs declared;
};

// One conv / fc / gemm entry (of `layers` or `operators`): its fields, the shape rules and the declared outputs —
// the latter two later (size_layer_by_input) for a graph's conv that leaves its input's sizes to its input.
Layer read_fabric_layer(StrictMap& entry, const std::string& type, std::int64_t batch,
                        SizesFromInput* from_input = nullptr) {
  Layer layer;
  layer.name = entry.text("name");
  layer.N = batch;
  layer.type = layer_type_of(type);
  if (layer.type == LayerType::Convolution) layer = read_convolution(entry, layer, from_input ? &from_input->fields : nullptr);
  if (layer.type == LayerType::FullyConnected) layer = read_fully_connected(entry, layer);
  if (layer.type == LayerType::Gemm) layer = read_gemm(entry, layer);
  const DeclaredOutputs declared = layer.type == LayerType::Convolution ? read_declared_outputs(entry) : DeclaredOutputs{};
  if (from_input && !from_input->fields.empty())
    from_input->declared = declared;
  else
    check_fabric_layer(entry, layer, declared);
  return layer;
}

// Network::total_macs() must fit int64 too.
void add_macs(const StrictMap& entry, const Layer& layer, long double& total_macs) {
  total_macs += static_cast<long double>(layer.macs());
  if (total_macs > kMaxMacsForInt64Counts)
    entry.fail_here("workload too large: its layers add up to more than 4e18 multiply-accumulates");
}

Network load_chain(StrictMap& root, const std::string& name, std::int64_t batch) {
  const YAML::Node layers = root.sequence("layers");
  std::set<std::string> names;
  std::vector<Layer> chain;
  long double total_macs = 0;
  for (std::size_t index = 0; index < layers.size(); ++index) {
    StrictMap entry = root.element_map("layers", layers, index);
    const std::string layer_name = entry.text("name");
    if (!names.insert(layer_name).second) {
      entry.fail("name", fmt::format("duplicate layer name '{}' (names must be unique)", layer_name));
    }
    const Layer layer = read_fabric_layer(entry, entry.choice("type", {"conv", "fc", "gemm"}), batch);
    entry.finish();
    add_macs(entry, layer, total_macs);
    chain.push_back(layer);
  }
  return chain_network(name, std::move(chain));
}

// The `type` names of graph operators and the kinds they load as (relu6 is clip 0..6, flatten a reshape); the table
// functions' types come from contracts/elementwise_functions.hpp's list.
std::vector<std::string> operator_types() {
  std::vector<std::string> types = {"conv",   "fc",         "gemm",           "relu",         "relu6",
                                    "clip",   "max_pool",   "average_pool",   "global_average_pool", "add",
                                    "concat", "flatten",    "reshape",        "requantize",   "softmax",
                                    "channel_affine", "pad", "mul",          "sub",          "max",
                                    "min",    "transpose",  "slice",          "gather",       "layer_normalization",
                                    "reduce_mean", "reduce_sum", "reduce_max", "matmul", "resize",
                                    "lookup"};
#define MAERI_UNARY_FUNCTION_TYPE(id, type, label, onnx, alpha, beta, gamma, uses) types.push_back(type);
  MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_TYPE)
#undef MAERI_UNARY_FUNCTION_TYPE
  return types;
}

OperatorKind kind_of(const std::string& type) {
  if (type == "conv" || type == "fc" || type == "gemm" || type == "matmul") return OperatorKind::FabricLayer;
  if (type == "relu") return OperatorKind::Relu;
  if (type == "relu6" || type == "clip") return OperatorKind::Clip;
  if (type == "max_pool") return OperatorKind::MaxPool;
  if (type == "average_pool") return OperatorKind::AveragePool;
  if (type == "global_average_pool") return OperatorKind::GlobalAveragePool;
  if (type == "add") return OperatorKind::Add;
  if (type == "concat") return OperatorKind::Concat;
  if (type == "flatten" || type == "reshape") return OperatorKind::Reshape;
  if (type == "requantize") return OperatorKind::Requantize;
  if (type == "softmax") return OperatorKind::Softmax;
  if (type == "pad") return OperatorKind::Pad;
  if (type == "mul") return OperatorKind::Mul;
  if (type == "sub") return OperatorKind::Sub;
  if (type == "max") return OperatorKind::Maximum;
  if (type == "min") return OperatorKind::Minimum;
  if (function_of_yaml_type(type)) return OperatorKind::TableFunction;
  if (type == "transpose") return OperatorKind::Transpose;
  if (type == "slice") return OperatorKind::Slice;
  if (type == "gather") return OperatorKind::Gather;
  if (type == "layer_normalization") return OperatorKind::LayerNormalization;
  if (type == "reduce_mean") return OperatorKind::ReduceMean;
  if (type == "reduce_sum") return OperatorKind::ReduceSum;
  if (type == "reduce_max") return OperatorKind::ReduceMax;
  if (type == "resize") return OperatorKind::Resize;
  if (type == "lookup") return OperatorKind::Lookup;
  return OperatorKind::ChannelAffine;
}

constexpr std::size_t kMaxTensorRank = 8;

// (N, …) → (N, product of the rest, 1, 1): the (N, C, 1, 1) an FC layer reads.
std::vector<std::int64_t> flattened(const std::vector<std::int64_t>& shape) {
  std::int64_t rest = 1;
  for (std::size_t d = 1; d < shape.size(); ++d) rest *= shape[d];
  return {shape.at(0), rest, 1, 1};
}

// One entry of `operators` as read, kept for the rules that need the whole graph and for their positioned errors.
struct GraphEntry {
  StrictMap map;
  Operator op;
  std::vector<std::string> inputs;
  const char* inputs_field = "input";
  std::string output;
  const char* output_field = "name";  // where a clash of the output's name is reported
  std::string weights, bias;          // fabric layers; bias empty: none
  std::string scale, shift;           // channel affine
  std::string constant;               // an element-wise pair's constant operand ("": two tensors), a lookup's table
  std::vector<std::int64_t> constant_shape;
  std::optional<std::vector<std::int64_t>> reshape_target;  // reshape; flatten computes it from its input
  // Attributes in ONNX's form, resolved once the input's shape is known (resolve_axes): a negative axis, a slice's
  // starts / ends / axes / steps, a gather's negative indices.
  std::vector<std::int64_t> starts, ends, axes, steps;
  SizesFromInput from_input = {};  // a conv's sizes left out, taken from its input's shape
};

// An element-wise pair's operands: `inputs: [a, b]`, or `inputs: [a]` with `constant: NAME` and `constant_shape`
// (and, for a sub, `constant_first: true` for NAME − a).
void read_pair_operands(StrictMap& map, const std::string& type, GraphEntry& read) {
  read.inputs_field = "inputs";
  read.inputs = map.text_list("inputs");
  const bool constant = map.has("constant");
  if (read.inputs.size() != (constant ? 1u : 2u))
    map.fail("inputs", fmt::format("{} reads 2 tensors (or 1 and a 'constant'), found a list of {}{}", type,
                                   read.inputs.size(), constant ? " and a constant" : ""));
  if (!constant) return;
  read.constant = map.text("constant");
  read.constant_shape = map.integer_list("constant_shape", 1, kMaxLayerDimension, kMaxTensorRank);
  if (read.constant_shape.empty()) map.fail("constant_shape", "expected the constant's shape (at least one extent)");
  if (type == "sub" && map.has("constant_first")) read.op.constant_first = map.choice("constant_first", {"true", "false"}) == "true";
}

// A table function's parameters: those it reads (alpha, beta, gamma), each optional with ONNX's default.
FunctionCall read_function(StrictMap& map, const std::string& type) {
  FunctionCall call = default_call(*function_of_yaml_type(type));
  const unsigned uses = parameters_read(call.function);
  if ((uses & kUsesAlpha) && map.has("alpha")) call.alpha = map.number("alpha", -1e30, 1e30);
  if ((uses & kUsesBeta) && map.has("beta")) call.beta = map.number("beta", -1e30, 1e30);
  if ((uses & kUsesGamma) && map.has("gamma")) call.gamma = map.number("gamma", -1e30, 1e30);
  return call;
}

// Transpose's perm; slice's starts, ends and optional axes and steps (ONNX's rules); gather's axis, indices and
// optional indices_shape (default: one axis of as many entries; `scalar: 1` for one index that removes the axis);
// a reduction's axes and keepdims (default 1).
void read_layout_attributes(GraphEntry& read) {
  StrictMap& map = read.map;
  Operator& op = read.op;
  constexpr std::int64_t kRank = std::int64_t(kMaxTensorRank);
  constexpr std::int64_t kIndex = std::int64_t{1} << 62;  // ONNX writes ±2^63 − 1 for "to the end"
  if (op.kind == OperatorKind::Transpose) {
    op.perm = map.integer_list("perm", 0, kRank - 1, kMaxTensorRank);
  } else if (op.kind == OperatorKind::Slice) {
    read.starts = map.integer_list("starts", -kIndex, kIndex, kMaxTensorRank);
    read.ends = map.integer_list("ends", -kIndex, kIndex, kMaxTensorRank);
    if (map.has("axes")) read.axes = map.integer_list("axes", -kRank, kRank - 1, kMaxTensorRank);
    if (map.has("steps")) read.steps = map.integer_list("steps", -kIndex, kIndex, kMaxTensorRank);
  } else if (op.kind == OperatorKind::Gather) {
    op.axis = map.optional_integer("axis", -kRank, kRank - 1).value_or(0);
    op.indices = map.integer_list("indices", -kMaxLayerDimension, kMaxLayerDimension, kMaxYamlSequenceLength);
    op.indices_shape = map.has("indices_shape") ? map.integer_list("indices_shape", 1, kMaxLayerDimension, kMaxTensorRank)
                                                : std::vector<std::int64_t>{std::int64_t(op.indices.size())};
    if (map.optional_integer("scalar", 0, 1).value_or(0) == 1) {
      if (op.indices.size() != 1) map.fail("scalar", "a scalar index is one index");
      op.indices_shape.clear();
    }
  } else {  // the reductions
    op.reduce_axes = map.integer_list("axes", -kRank, kRank - 1, kMaxTensorRank);
    op.keep_dims = map.optional_integer("keepdims", 0, 1).value_or(1) == 1;
  }
}

// A lookup's table (`table: NAME`, `table_shape: [extents]`, a constant) and the table's `axis` its indices pick
// along (default 0; negative from the back).
void read_lookup_table(GraphEntry& read) {
  StrictMap& map = read.map;
  read.constant = map.text("table");
  read.constant_shape = map.integer_list("table_shape", 1, kMaxLayerDimension, kMaxTensorRank);
  const std::int64_t rank = std::int64_t(read.constant_shape.size());
  if (rank == 0) map.fail("table_shape", "expected the table's shape (at least one extent)");
  read.op.axis = map.optional_integer("axis", -rank, rank - 1).value_or(0);
  if (read.op.axis < 0) read.op.axis += rank;
}

// A resize's mode (default nearest), coordinate_transformation_mode (default half_pixel), nearest_mode (default
// round_prefer_floor) and its scales or sizes (one of the two), ONNX's names and defaults (contracts/resize.hpp).
void read_resize_attributes(StrictMap& map, ResizeForm& form) {
  const auto names = [](std::size_t count, auto to_text) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back(to_text(i));
    return out;
  };
  if (map.has("mode"))
    form.mode = *resize_mode_named(map.choice("mode", names(2, [](std::size_t i) { return to_string(ResizeMode(i)); })));
  if (map.has("coordinate_transformation_mode"))
    form.coordinates = *coordinate_mode_named(map.choice(
        "coordinate_transformation_mode", names(4, [](std::size_t i) { return to_string(CoordinateMode(i)); })));
  if (map.has("nearest_mode"))
    form.nearest = *nearest_rounding_named(
        map.choice("nearest_mode", names(4, [](std::size_t i) { return to_string(NearestRounding(i)); })));
  if (map.has("scales") == map.has("sizes")) map.fail("scales", "a resize gives its scales or its sizes (one of the two)");
  if (map.has("scales")) form.scales = map.number_list("scales", 1e-6, 1e6, kMaxTensorRank);
  if (map.has("sizes")) form.sizes = map.integer_list("sizes", 1, kMaxLayerDimension, kMaxTensorRank);
}

// The attributes of an operator's kind (a clip's bounds, a pool's window, an axis, a reshape's target, the constants
// of an affine or a normalisation, pads, a table function), read into `read`.
void read_operator_attributes(StrictMap& map, const std::string& type, GraphEntry& read) {
  Operator& op = read.op;
  if (type == "relu6") {
    op.clip_max = 6;
  } else if (type == "clip") {
    op.clip_min = map.number("min", -1e30, 1e30);
    op.clip_max = map.number("max", -1e30, 1e30);
  } else if (op.kind == OperatorKind::MaxPool || op.kind == OperatorKind::AveragePool) {
    const auto size = map.optional_integer_pair("size", 1, kMaxLayerDimension);
    if (!size) map.fail("size", "missing required field (expected an integer >= 1 or a list [along X, along Y])");
    const auto stride = map.optional_integer_pair("stride", 1, kMaxStride);
    if (!stride)
      map.fail("stride", fmt::format("missing required field (expected an integer in [1, {}] or a list [along X, "
                                     "along Y])",
                                     kMaxStride));
    const auto padding =
        map.optional_integer_pair("padding", 0, kMaxLayerDimension).value_or(std::array<std::int64_t, 2>{0, 0});
    op.pool = {(*size)[0], (*size)[1], (*stride)[0], (*stride)[1], padding[0], padding[1]};
  } else if (op.kind == OperatorKind::Concat || op.kind == OperatorKind::Softmax) {
    op.axis = map.optional_integer("axis", -std::int64_t(kMaxTensorRank), std::int64_t(kMaxTensorRank) - 1).value_or(1);
  } else if (op.kind == OperatorKind::Transpose || op.kind == OperatorKind::Slice || op.kind == OperatorKind::Gather ||
             is_reduction(op)) {
    read_layout_attributes(read);
  } else if (op.kind == OperatorKind::Resize) {
    read_resize_attributes(map, op.resize);
  } else if (op.kind == OperatorKind::Lookup) {
    read_lookup_table(read);
  } else if (type == "reshape") {
    read.reshape_target = map.integer_list("shape", 1, std::int64_t(kMaxTensorElementsForInt64Bytes), kMaxTensorRank);
    long double elements = 1;
    for (std::int64_t extent : *read.reshape_target) elements *= static_cast<long double>(extent);
    if (elements > kMaxTensorElementsForInt64Bytes)
      map.fail("shape", "more than 10^18 elements (kMaxTensorElementsForInt64Bytes)");
  } else if (op.kind == OperatorKind::ChannelAffine || op.kind == OperatorKind::LayerNormalization) {
    read.scale = map.text("scale");
    read.shift = map.text("shift");
    if (op.kind == OperatorKind::LayerNormalization) {
      op.axis = map.optional_integer("axis", -std::int64_t(kMaxTensorRank), std::int64_t(kMaxTensorRank) - 1).value_or(-1);
      if (map.has("epsilon")) op.epsilon = map.number("epsilon", 0, 1e30);
    }
  } else if (op.kind == OperatorKind::Pad) {
    // ONNX's order for the two spatial axes: both begins, then both ends.
    const std::vector<std::int64_t> pads = map.integer_list("pads", 0, kMaxLayerDimension, 4);
    if (pads.size() != 4)
      map.fail("pads", fmt::format("expected 4 values [x_begin, y_begin, x_end, y_end], found {}", pads.size()));
    op.pad = {pads[0], pads[2], pads[1], pads[3]};
  } else if (op.kind == OperatorKind::TableFunction) {
    op.function = read_function(map, type);
  }
}

GraphEntry read_operator(StrictMap entry, std::int64_t batch, std::vector<Layer>& layers, long double& total_macs) {
  GraphEntry read{entry, {}, {}, "input", {}, "name", {}, {}, {}, {}, {}, {}, std::nullopt, {}, {}, {}, {}};
  StrictMap& map = read.map;
  Operator& op = read.op;
  static const std::vector<std::string> types = operator_types();
  const std::string type = map.choice("type", types);
  op.kind = kind_of(type);
  if (type == "matmul") {
    // Its layer follows from its operands' shapes, known once the operators before it have theirs (shaped_in_order).
    layers.emplace_back().name = map.text("name");
    op.name = layers.back().name;
    op.layer = layers.size() - 1;
    op.product.two_activations = true;
    for (const char* field : {"transpose_a", "transpose_b"})
      if (map.has(field))
        (std::string(field) == "transpose_a" ? op.product.transpose_a : op.product.transpose_b) =
            map.choice(field, {"false", "true"}) == "true";
  } else if (op.kind == OperatorKind::FabricLayer) {
    layers.push_back(read_fabric_layer(map, type, batch, &read.from_input));
    if (read.from_input.fields.empty()) add_macs(map, layers.back(), total_macs);
    op.name = layers.back().name;
    op.layer = layers.size() - 1;
    read.weights = map.has("weights") ? map.text("weights") : op.name + ".weights";
    if (map.has("bias")) read.bias = map.text("bias");
  } else {
    op.name = map.text("name");
  }
  if (is_elementwise_pair(op.kind)) {
    read_pair_operands(map, type, read);
  } else if (op.kind == OperatorKind::Concat || op.product.two_activations) {
    read.inputs_field = "inputs";
    read.inputs = map.text_list("inputs");
  } else {
    read.inputs = {map.text("input")};
  }
  if (map.has("output")) {
    read.output = map.text("output");
    read.output_field = "output";
  } else {
    read.output = op.name;
  }
  read_operator_attributes(map, type, read);
  map.finish();
  return read;
}

// A graph as it is read: its tensors by name, and where each was declared (for the messages of a clash).
struct GraphReading {
  Network network;
  std::map<std::string, std::size_t> tensor_of;
  std::vector<std::string> declared_by;  // per tensor: "declared in 'inputs'", "produced by operator 'x'", …
  std::vector<GraphEntry> entries;       // the operators in the file's order

  std::size_t add_tensor(const std::string& tensor, std::vector<std::int64_t> shape, bool constant,
                         std::string origin) {
    tensor_of[tensor] = network.tensors.size();
    network.tensors.push_back({tensor, std::move(shape), constant, {}});
    declared_by.push_back(std::move(origin));
    return network.tensors.size() - 1;
  }
};

// The graph's declared inputs, tensors 0… in the file's order.
void read_graph_inputs(StrictMap& root, const YAML::Node& inputs, GraphReading& graph) {
  for (std::size_t index = 0; index < inputs.size(); ++index) {
    StrictMap entry = root.element_map("inputs", inputs, index);
    const std::string tensor = entry.text("name");
    if (graph.tensor_of.count(tensor)) entry.fail("name", fmt::format("input '{}' is declared twice", tensor));
    const std::vector<std::int64_t> shape = entry.integer_list("shape", 1, kMaxLayerDimension, kMaxTensorRank);
    long double elements = 1;
    for (std::int64_t extent : shape) elements *= static_cast<long double>(extent);
    if (elements > kMaxTensorElementsForInt64Bytes)
      entry.fail("shape", "more than 10^18 elements (kMaxTensorElementsForInt64Bytes)");
    const std::string cut = entry.has("cut") ? entry.text("cut") : std::string();
    entry.finish();
    graph.network.tensors[graph.add_tensor(tensor, shape, false, "declared in 'inputs'")].cut = cut;
  }
}

// Every operator entry, with its output tensor (shape still unknown); names of operators and tensors unique.
void read_graph_operators(StrictMap& root, std::int64_t batch, GraphReading& graph) {
  const YAML::Node entries = root.sequence("operators");
  std::set<std::string> operator_names;
  long double total_macs = 0;
  for (std::size_t index = 0; index < entries.size(); ++index) {
    graph.entries.push_back(
        read_operator(root.element_map("operators", entries, index), batch, graph.network.layers, total_macs));
    GraphEntry& entry = graph.entries.back();
    if (!operator_names.insert(entry.op.name).second)
      entry.map.fail("name", fmt::format("duplicate operator name '{}' (names must be unique)", entry.op.name));
    if (graph.tensor_of.count(entry.output))
      entry.map.fail(entry.output_field, fmt::format("tensor '{}' is {}; each tensor has one producer", entry.output,
                                                     graph.declared_by[graph.tensor_of[entry.output]]));
    entry.op.outputs = {
        graph.add_tensor(entry.output, {}, false, fmt::format("produced by operator '{}'", entry.op.name))};
  }
}

// The constants of fabric layers (weights, bias) and channel affines (scale, shift), each a tensor of its own or
// shared between operators; input 0 of those operators, the activation, is left for link_activations.
void link_constants(GraphReading& graph) {
  for (GraphEntry& entry : graph.entries) {
    const bool pair_constant =
        (is_elementwise_pair(entry.op.kind) || entry.op.kind == OperatorKind::Lookup) && !entry.constant.empty();
    const bool affine = entry.op.kind == OperatorKind::ChannelAffine || entry.op.kind == OperatorKind::LayerNormalization;
    if (entry.op.kind != OperatorKind::FabricLayer && !affine && !pair_constant) continue;
    if (entry.op.product.two_activations) continue;  // both operands are activations
    const auto constant = [&](const std::string& tensor, const char* field, std::vector<std::int64_t> shape) {
      const auto found = graph.tensor_of.find(tensor);
      if (found == graph.tensor_of.end())
        return graph.add_tensor(tensor, std::move(shape), true, fmt::format("the {} of '{}'", field, entry.op.name));
      if (!graph.network.tensors[found->second].constant)
        entry.map.fail(field,
                       fmt::format("tensor '{}' is {}, not a constant", tensor, graph.declared_by[found->second]));
      return found->second;  // shared with another operator: shapes compared by inferred_output_shape
    };
    entry.op.inputs.push_back(0);  // the activation, resolved by link_activations
    if (pair_constant) {
      entry.op.inputs.push_back(constant(entry.constant, entry.op.kind == OperatorKind::Lookup ? "table" : "constant",
                                         entry.constant_shape));
      continue;
    }
    if (affine) {
      // (C) of the input (a layer normalization: its shape from the axis on), known once the operators before it
      // have their shapes: set by shaped_in_order.
      entry.op.inputs.push_back(constant(entry.scale, "scale", {}));
      entry.op.inputs.push_back(constant(entry.shift, "shift", {}));
      continue;
    }
    const Layer& layer = graph.network.layers[entry.op.layer];
    entry.op.inputs.push_back(constant(entry.weights, "weights", weight_shape(layer)));
    if (!entry.bias.empty()) entry.op.inputs.push_back(constant(entry.bias, "bias", {layer.K}));
  }
}

// Each operator's activations by name (declared inputs or other operators' outputs, never constants); the operators
// join the network in the file's order. Every declared input must be read.
void link_activations(StrictMap& root, const YAML::Node& inputs, GraphReading& graph) {
  Network& network = graph.network;
  std::vector<bool> read_somewhere(network.tensors.size(), false);
  for (GraphEntry& entry : graph.entries) {
    std::vector<std::size_t> activations;
    for (const std::string& tensor : entry.inputs) {
      const auto found = graph.tensor_of.find(tensor);
      if (found == graph.tensor_of.end())
        entry.map.fail(entry.inputs_field, fmt::format("tensor '{}' is produced by no operator and not declared in "
                                                       "'inputs'",
                                                       tensor));
      if (network.tensors[found->second].constant)
        entry.map.fail(entry.inputs_field, fmt::format("tensor '{}' is {}, not an activation", tensor,
                                                       graph.declared_by[found->second]));
      activations.push_back(found->second);
      read_somewhere[found->second] = true;
    }
    if (entry.op.product.two_activations) {
      entry.op.inputs = {activations[1], activations[0]};  // (B, A): the layer streams B, A is its weights
    } else if (entry.op.kind == OperatorKind::FabricLayer || entry.op.kind == OperatorKind::ChannelAffine ||
               entry.op.kind == OperatorKind::LayerNormalization || !entry.constant.empty()) {
      entry.op.inputs[0] = activations[0];
    } else {
      entry.op.inputs = activations;
    }
    network.operators.push_back(entry.op);
  }
  for (std::size_t index = 0; index < inputs.size(); ++index)
    if (!read_somewhere[index])
      root.element_map("inputs", inputs, index)
          .fail("name", fmt::format("input '{}' is read by no operator", network.tensors[index].name));
}

// A matmul's layer from the shapes of its operands (inputs (B, A)), or an error at its `inputs` naming both tensors.
Layer product_layer(const GraphEntry& entry, const Network& network, const Operator& op) {
  MatrixProductLayer product =
      matrix_product_layer(fmt::format("matmul '{}'", op.name), network.tensors[op.inputs[1]],
                           network.tensors[op.inputs[0]], op.product);
  if (product.violation) entry.map.fail(entry.inputs_field, *product.violation);
  product.layer.name = op.name;
  if (const auto violation = shape_violation(product.layer))
    entry.map.fail(entry.inputs_field, fmt::format("matmul '{}' gives the layer {}: {}", op.name,
                                                   shape_text(product.layer), violation->message));
  return product.layer;
}

// ONNX's forms resolved on the input's shape: a negative axis counts from the back (concat, softmax, gather), a
// negative gather index from the end of its axis, a slice's starts / ends / axes / steps become one SliceAxis per
// axis (contracts::onnx_slice).
void resolve_axes(const GraphEntry& entry, const std::vector<std::int64_t>& input, Operator& op) {
  const std::int64_t rank = std::int64_t(input.size());
  if ((op.kind == OperatorKind::Concat || op.kind == OperatorKind::Softmax || op.kind == OperatorKind::Gather ||
       op.kind == OperatorKind::LayerNormalization) &&
      op.axis < 0 && op.axis >= -rank)
    op.axis += rank;
  if (op.kind == OperatorKind::Gather && op.axis >= 0 && op.axis < rank)
    for (std::int64_t& index : op.indices)
      if (index < 0) index += input[std::size_t(op.axis)];
  if (is_reduction(op)) {
    for (std::int64_t& axis : op.reduce_axes)
      if (axis < 0 && axis >= -rank) axis += rank;
    std::sort(op.reduce_axes.begin(), op.reduce_axes.end());
  }
  if (op.kind == OperatorKind::Slice)
    if (const auto violation = onnx_slice(input, entry.starts, entry.ends, entry.axes, entry.steps, op.slice))
      entry.map.fail("starts", fmt::format("slice '{}' on its input of shape ({}): {}", op.name,
                                           fmt::join(input, ","), *violation));
}

// A graph conv that left X and/or Y out takes them from its input (N, C, X, Y); then the shape rules it skipped
// when read, and the network's MAC total with it.
void size_layer_by_input(const GraphEntry& entry, const Tensor& input, Layer& layer, long double& total_macs) {
  const std::vector<std::string>& fields = entry.from_input.fields;
  if (input.shape.size() != 4)
    entry.map.fail(entry.inputs_field,
                   fmt::format("conv '{}' leaves out {}, which its input gives only when it has shape (N, C, X, Y); "
                               "'{}' has shape ({})",
                               layer.name, fmt::join(fields, " and "), input.name, fmt::join(input.shape, ",")));
  for (const std::string& field : fields) (field == "X" ? layer.X : layer.Y) = input.shape[field == "X" ? 2 : 3];
  check_fabric_layer(entry.map, layer, entry.from_input.declared);
  add_macs(entry.map, layer, total_macs);
}

// The operators in a topological order (a cycle is an error at its producer), each output tensor given the shape
// inferred_output_shape infers, in that order so that every input's shape is known first.
Network shaped_in_order(GraphReading& graph) {
  const OperatorOrder order = topological_order(graph.network);
  if (order.cycle_tensor) {
    const GraphEntry& producer = graph.entries[*graph.network.producer(*order.cycle_tensor)];
    producer.map.fail(producer.output_field,
                      fmt::format("the operators form a cycle through tensor '{}' (it is needed, through "
                                  "other operators, to compute itself)",
                                  graph.network.tensors[*order.cycle_tensor].name));
  }
  Network network = reordered(std::move(graph.network), order.operators);
  long double total_macs = 0;
  for (const GraphEntry& entry : graph.entries)
    if (entry.op.kind == OperatorKind::FabricLayer && entry.from_input.fields.empty())
      total_macs += static_cast<long double>(network.layers[entry.op.layer].macs());
  for (std::size_t o = 0; o < network.operators.size(); ++o) {
    const Operator& op = network.operators[o];
    const GraphEntry& entry = graph.entries[order.operators[o]];
    Tensor& output = network.tensors[op.outputs[0]];
    resolve_axes(entry, network.tensors[op.inputs[0]].shape, network.operators[o]);
    if (op.kind == OperatorKind::Reshape)
      output.shape = entry.reshape_target ? *entry.reshape_target : flattened(network.tensors[op.inputs[0]].shape);
    if (op.product.two_activations) network.layers[op.layer] = product_layer(entry, network, op);
    if (!entry.from_input.fields.empty())
      size_layer_by_input(entry, network.tensors[op.inputs[0]], network.layers[op.layer], total_macs);
    if (op.kind == OperatorKind::ChannelAffine && network.tensors[op.inputs[0]].shape.size() >= 2)
      for (std::size_t i = 1; i < 3; ++i)
        if (network.tensors[op.inputs[i]].shape.empty())
          network.tensors[op.inputs[i]].shape = {network.tensors[op.inputs[0]].shape[1]};
    if (op.kind == OperatorKind::LayerNormalization && op.axis >= 0 &&
        op.axis < std::int64_t(network.tensors[op.inputs[0]].shape.size()))
      for (std::size_t i = 1; i < 3; ++i)
        if (network.tensors[op.inputs[i]].shape.empty())
          network.tensors[op.inputs[i]].shape.assign(network.tensors[op.inputs[0]].shape.begin() + op.axis,
                                                     network.tensors[op.inputs[0]].shape.end());
    InferredShape inferred = inferred_output_shape(network, op);
    if (inferred.violation) entry.map.fail(entry.inputs_field, *inferred.violation);
    // Checked before any later operator multiplies the extents out (a pad or concat can grow a tensor past int64).
    long double elements = 1;
    for (std::int64_t extent : inferred.shape) elements *= static_cast<long double>(extent);
    if (elements > kMaxTensorElementsForInt64Bytes)
      entry.map.fail(entry.inputs_field, fmt::format("{} '{}' writes shape ({}): more than 10^18 elements",
                                                     operator_label(op), op.name, fmt::join(inferred.shape, ",")));
    output.shape = std::move(inferred.shape);
  }
  return network;
}

Network load_graph(StrictMap& root, const std::string& name, std::int64_t batch) {
  if (root.has("layers"))
    root.fail("layers", "a workload lists either 'layers' (a chain) or 'inputs' and 'operators' (a graph), not both");
  GraphReading graph;
  graph.network.name = name;
  const YAML::Node inputs = root.sequence("inputs");
  read_graph_inputs(root, inputs, graph);
  read_graph_operators(root, batch, graph);
  link_constants(graph);
  link_activations(root, inputs, graph);
  Network network = shaped_in_order(graph);
  if (const auto violation = network_violation(network)) root.fail("operators", *violation);
  return network;
}

}  // namespace

Network load_workload(const std::string& path) { return workload_from_yaml(load_yaml_file(path), path); }

Network load_workload_text(const std::string& text, const std::string& origin) {
  return workload_from_yaml(load_yaml_text(text, origin), origin);
}

Network workload_from_yaml(const YAML::Node& document, const std::string& path) {
  StrictMap root(document, path, "");
  if (root.choice("kind", {"hardware", "workload"}) != "workload") {
    root.fail("kind", "expected 'workload' (this file is a hardware spec; use it with --hardware)");
  }
  const std::string name = root.text("name");
  const std::int64_t batch = root.has("batch") ? root.integer("batch", 1, kMaxBatch) : 1;
  Network network = root.has("operators") ? load_graph(root, name, batch) : load_chain(root, name, batch);
  root.finish();
  return network;
}

}  // namespace maeri::contracts
