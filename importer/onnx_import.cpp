// ONNX graph → Network (see onnx_import.hpp; the attribute mapping is docs/workload-spec.md, "ONNX models").
#include "importer/onnx_import.hpp"

#include <fmt/format.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "contracts/strict_yaml.hpp"
#include "importer/onnx_graph_checks.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"
#include "util/integer_math.hpp"
#include "util/utf8_text.hpp"

namespace maeri::importer {
namespace {

// One dimension as shape inference left it: a value, or the symbol (dim_param) or nothing when unresolved.
struct Dimension {
  std::int64_t value = -1;
  std::string symbol;
};
using Shape = std::vector<Dimension>;

// Why a node that is not a Conv, Gemm or MatMul is skipped: MAERI's multipliers and reduction tree compute
// multiply-accumulates of convolutions and matrix products; the rest runs beside the fabric (or is folded away).
std::string skip_reason(const std::string& op) {
  static const std::set<std::string> pooling = {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
                                                "LpPool", "GlobalLpPool", "MaxRoiPool", "MaxUnpool"};
  static const std::set<std::string> activation = {
      "Relu",     "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "Tanh",     "Softmax", "LogSoftmax", "Clip",
      "Elu",      "Selu",      "Celu",  "Gelu",    "Erf",         "Softplus", "Softsign", "HardSwish", "Mish",
      "ThresholdedRelu"};
  static const std::set<std::string> elementwise = {"Add", "Sub", "Mul", "Div",  "Pow",   "Sqrt", "Exp",
                                                    "Log", "Neg", "Abs", "Max",  "Min",   "Sum",  "Mean",
                                                    "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Where",
                                                    "Equal", "Less", "Greater", "Not", "And", "Or"};
  static const std::set<std::string> normalisation = {"BatchNormalization", "LayerNormalization",
                                                      "InstanceNormalization", "LpNormalization", "ReduceMean",
                                                      "ReduceSum", "ReduceMax", "ReduceL2", "LRN",
                                                      "GroupNormalization"};
  static const std::set<std::string> layout = {
      "Reshape", "Flatten", "Transpose", "Concat", "Split", "Slice", "Gather", "Squeeze", "Unsqueeze", "Shape",
      "Constant", "ConstantOfShape", "Identity", "Cast", "Dropout", "Expand", "Tile", "Pad", "Resize", "Upsample",
      "DepthToSpace", "SpaceToDepth", "Range", "GatherElements", "ScatterND", "NonZero", "TopK"};
  if (pooling.count(op)) return "pooling: comparisons or an average per window, no weights for the multipliers";
  if (activation.count(op)) return "activation: element-wise, applied to the outputs beside the fabric";
  if (elementwise.count(op)) return "element-wise arithmetic: no reduction, computed beside the fabric";
  if (normalisation.count(op))
    return "normalisation/reduction: a per-channel scale and shift (fold it into the convolution before export)";
  if (layout.count(op)) return "data layout or shape computation: moves data, no multiply-accumulates";
  if (op == "ConvTranspose" || op == "ConvInteger" || op == "QLinearConv" || op == "QLinearMatMul" ||
      op == "MatMulInteger")
    return "not supported by this importer (only Conv, Gemm and MatMul become layers)";
  return "no MAERI mapping for this operator (only Conv, Gemm and MatMul become layers)";
}

class GraphReader {
 public:
  GraphReader(const std::string& path, onnx::ModelProto& model) : path_(path), model_(model) {}

  OnnxImport read() {
    const onnx::GraphProto& graph = model_.graph();
    for (const auto& value : graph.input()) record(value);
    for (const auto& value : graph.value_info()) record(value);
    for (const auto& value : graph.output()) record(value);
    for (const auto& tensor : graph.initializer()) {
      Shape shape;
      for (const std::int64_t dim : tensor.dims()) shape.push_back({dim, ""});
      shapes_[tensor.name()] = shape;
    }
    OnnxImport result;
    result.network.name = graph.name().empty() ? std::filesystem::path(path_).stem().string() : graph.name();
    check_utf8(result.network.name, "graph", "the graph's name");
    std::set<std::string> names;
    std::vector<contracts::Layer> layers;
    std::vector<contracts::LayerTensorNames> tensor_names;
    for (int index = 0; index < graph.node_size(); ++index) {
      const onnx::NodeProto& node = graph.node(index);
      const std::string base = node_label(node, index);
      std::string name = base;
      for (int copy = 2; names.count(name); ++copy) name = fmt::format("{}_{}", base, copy);
      names.insert(name);
      if (!in_default_domain(node)) {
        result.skipped.push_back({name, node.op_type(), "operator of the custom domain '" + node.domain() + "'"});
        continue;
      }
      std::optional<contracts::Layer> layer;
      if (node.op_type() == "Conv") layer = convolution(node, name);
      if (node.op_type() == "Gemm") layer = gemm(node, name);
      if (node.op_type() == "MatMul") layer = matmul(node, name);
      if (!layer) {
        result.skipped.push_back({name, node.op_type(), skip_reason(node.op_type())});
        continue;
      }
      layer->name = name;
      check_utf8(name, fmt::format("node #{} ({})", index, node.op_type()), "the node's name");
      check_layer(node, *layer);
      if (layers.size() == contracts::kMaxYamlSequenceLength)
        throw util::InputError({path_, 0, 0}, "graph",
                               fmt::format("more than {} Conv, Gemm and MatMul nodes: more layers than a workload "
                                           "may list (kMaxYamlSequenceLength, docs/cli.md: Limits)",
                                           contracts::kMaxYamlSequenceLength));
      layers.push_back(*layer);
      const auto name_at = [](const auto& list, int i) { return i < list.size() ? list.Get(i) : std::string(); };
      tensor_names.push_back({name_at(node.input(), 0), name_at(node.input(), 1), name_at(node.output(), 0)});
    }
    if (layers.empty())
      throw util::InputError({path_, 0, 0}, "graph",
                            fmt::format("the model has no Conv, Gemm or MatMul node ({} nodes, all skipped)",
                                        graph.node_size()));
    result.network = contracts::graph_network(std::move(result.network.name), std::move(layers), tensor_names);
    return result;
  }

 private:
  [[noreturn]] void fail(const std::string& node, const std::string& problem) const {
    throw util::InputError({path_, 0, 0}, "node " + node, problem);
  }

  // Names become the workload's and its layers' names, which JSON, YAML and file names need as valid UTF-8
  // (the loader refuses a workload file that is not); `field` locates the name without repeating its bytes.
  void check_utf8(const std::string& text, const std::string& field, const std::string& what) const {
    const std::size_t bad = util::first_invalid_utf8(text);
    if (bad != text.size())
      throw util::InputError({path_, 0, 0}, field,
                             fmt::format("{} is not valid UTF-8 text: byte 0x{:02x} at offset {}", what,
                                         static_cast<unsigned char>(text[bad]), bad));
  }

  // The rules every workload file obeys (contracts::shape_violation and the workload's padding rule), so that
  // what `maeri import` writes loads; a layer breaking one was read from attributes no workload can state.
  void check_layer(const onnx::NodeProto& node, const contracts::Layer& layer) const {
    auto violation = contracts::shape_violation(layer);
    if (!violation && layer.type == contracts::LayerType::Convolution)
      violation = contracts::workload_padding_violation(layer);
    if (violation)
      fail(layer.name, fmt::format("the {} layer it gives is not valid: {}{}{}", node.op_type(), violation->field,
                                   violation->field.empty() ? "" : ": ", violation->message));
  }

  void record(const onnx::ValueInfoProto& value) {
    if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) return;
    Shape shape;
    for (const auto& dim : value.type().tensor_type().shape().dim())
      shape.push_back(dim.has_dim_value() ? Dimension{dim.dim_value(), ""} : Dimension{-1, dim.dim_param()});
    shapes_[value.name()] = shape;
  }

  // The fully known shape of input `index` of `node`, or an error naming the node, the tensor and what is unknown.
  std::vector<std::int64_t> input_shape(const onnx::NodeProto& node, const std::string& name, int index,
                                        const char* role) const {
    if (index >= node.input_size() || node.input(index).empty())
      fail(name, fmt::format("{} has no {} (input {})", node.op_type(), role, index));
    const std::string& tensor = node.input(index);
    const auto found = shapes_.find(tensor);
    if (found == shapes_.end())
      fail(name, fmt::format("the shape of its {} '{}' is unknown: shape inference could not resolve it (export the "
                             "model with fixed input sizes)",
                             role, tensor));
    std::vector<std::int64_t> shape;
    for (const Dimension& dim : found->second) {
      if (dim.value < 0)
        fail(name, fmt::format("its {} '{}' has the dynamic dimension '{}' that shape inference cannot resolve "
                               "(export the model with fixed input sizes)",
                               role, tensor, dim.symbol.empty() ? "?" : dim.symbol));
      shape.push_back(dim.value);
    }
    return shape;
  }

  static const onnx::AttributeProto* attribute(const onnx::NodeProto& node, const std::string& key) {
    for (const auto& attribute : node.attribute())
      if (attribute.name() == key) return &attribute;
    return nullptr;
  }
  static std::vector<std::int64_t> ints(const onnx::NodeProto& node, const std::string& key,
                                        std::vector<std::int64_t> fallback) {
    const onnx::AttributeProto* found = attribute(node, key);
    return found ? std::vector<std::int64_t>(found->ints().begin(), found->ints().end()) : fallback;
  }
  static std::int64_t integer(const onnx::NodeProto& node, const std::string& key, std::int64_t fallback) {
    const onnx::AttributeProto* found = attribute(node, key);
    return found ? found->i() : fallback;
  }

  static std::string list(const std::vector<std::int64_t>& values) {
    std::string text;
    for (const std::int64_t v : values) text += (text.empty() ? "" : ", ") + std::to_string(v);
    return "[" + text + "]";
  }

  // Conv: X [N, C, H, W], W [M, C/group, kH, kW]; H is the Layer's X (rows, R), W its Y (columns, S).
  contracts::Layer convolution(const onnx::NodeProto& node, const std::string& name) const {
    const auto x = input_shape(node, name, 0, "input");
    const auto w = input_shape(node, name, 1, "weight");
    if (x.size() != 4 || w.size() != 4)
      fail(name, fmt::format("only 2-D convolutions (4-D input and weight) become layers; the input has rank {}, "
                             "the weight rank {}",
                             x.size(), w.size()));
    contracts::Layer layer;
    layer.type = contracts::LayerType::Convolution;
    layer.N = x[0];
    layer.C = x[1];
    layer.X = x[2];
    layer.Y = x[3];
    layer.K = w[0];
    layer.R = w[2];
    layer.S = w[3];
    layer.groups = integer(node, "group", 1);
    if (layer.groups < 1 || w[1] * layer.groups != layer.C)
      fail(name, fmt::format("group = {} with {} input channels needs weights of {} channels each, found {}",
                             layer.groups, layer.C, layer.groups > 0 ? layer.C / layer.groups : 0, w[1]));
    const auto kernel = ints(node, "kernel_shape", {w[2], w[3]});
    if (kernel != std::vector<std::int64_t>{w[2], w[3]})
      fail(name, fmt::format("kernel_shape {} disagrees with the weight's {}x{}", list(kernel), w[2], w[3]));
    const auto strides = ints(node, "strides", {1, 1});
    const auto dilations = ints(node, "dilations", {1, 1});
    if (strides.size() != 2) fail(name, fmt::format("strides {}: expected two values", list(strides)));
    if (dilations.size() != 2) fail(name, fmt::format("dilations {}: expected two values", list(dilations)));
    layer.stride_x = strides[0];
    layer.stride_y = strides[1];
    layer.dilation_x = dilations[0];
    layer.dilation_y = dilations[1];
    // pads = [x1_begin, x2_begin, x1_end, x2_end]; auto_pad SAME_* pads to ceil(in / stride) outputs.
    const onnx::AttributeProto* auto_pad = attribute(node, "auto_pad");
    const std::string mode = auto_pad ? auto_pad->s() : "NOTSET";
    std::vector<std::int64_t> pads = ints(node, "pads", {0, 0, 0, 0});
    if (mode == "VALID") {
      pads = {0, 0, 0, 0};
    } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
      const std::int64_t spans[2] = {layer.filter_span_x(), layer.filter_span_y()};
      const std::int64_t in[2] = {layer.X, layer.Y}, stride[2] = {layer.stride_x, layer.stride_y};
      for (int axis = 0; axis < 2; ++axis) {
        const std::int64_t outputs = util::ceil_div(in[axis], stride[axis]);
        const std::int64_t total = std::max<std::int64_t>(0, (outputs - 1) * stride[axis] + spans[axis] - in[axis]);
        const std::int64_t first = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
        pads[size_t(axis)] = first;
        pads[size_t(axis) + 2] = total - first;
      }
    }  // else NOTSET: the values are checked before shape inference (onnx_graph_checks)
    if (pads.size() != 4) fail(name, fmt::format("pads {}: expected four values", list(pads)));
    if (pads[0] != pads[2] || pads[1] != pads[3])
      fail(name, fmt::format("asymmetric pads {} (begin and end differ{}) are not supported: a Layer pads both "
                             "sides of an axis alike",
                             list(pads), mode == "NOTSET" ? "" : ", from auto_pad " + mode));
    layer.padding_x = pads[0];
    layer.padding_y = pads[1];
    check_output(node, name, {layer.N, layer.K, layer.output_x(), layer.output_y()});
    return layer;
  }

  // Gemm: Y = alpha·A'·B' + beta·C with A' = A or Aᵀ (M×K) and B' = B or Bᵀ (K×N).
  contracts::Layer gemm(const onnx::NodeProto& node, const std::string& name) const {
    const auto a = input_shape(node, name, 0, "input A");
    const auto b = input_shape(node, name, 1, "input B");
    if (a.size() != 2 || b.size() != 2)
      fail(name, fmt::format("Gemm needs 2-D A and B, found ranks {} and {}", a.size(), b.size()));
    const bool transpose_a = integer(node, "transA", 0) != 0, transpose_b = integer(node, "transB", 0) != 0;
    const std::int64_t m = transpose_a ? a[1] : a[0], k = transpose_a ? a[0] : a[1];
    const std::int64_t k_b = transpose_b ? b[1] : b[0], n = transpose_b ? b[0] : b[1];
    if (k != k_b) fail(name, fmt::format("A' is {}x{} but B' is {}x{}", m, k, k_b, n));
    return contracts::gemm_layer(1, m, k, n);
  }

  // MatMul (numpy semantics): [..., M, K] by [..., K, N]; the broadcast leading dimensions are the batch.
  contracts::Layer matmul(const onnx::NodeProto& node, const std::string& name) const {
    auto a = input_shape(node, name, 0, "input A");
    auto b = input_shape(node, name, 1, "input B");
    if (a.empty() || b.empty()) fail(name, "MatMul of a scalar");
    if (a.size() == 1) a.insert(a.begin(), 1);  // a vector is one row
    if (b.size() == 1) b.push_back(1);          // … or one column
    const std::int64_t m = a[a.size() - 2], k = a.back(), k_b = b[b.size() - 2], n = b.back();
    if (k != k_b) fail(name, fmt::format("A is …x{}x{} but B is …x{}x{}", m, k, k_b, n));
    std::int64_t batch = 1;
    const size_t leading = std::max(a.size(), b.size()) - 2;
    for (size_t i = 0; i < leading; ++i) {
      const std::int64_t da = i < a.size() - 2 ? a[a.size() - 3 - i] : 1;
      const std::int64_t db = i < b.size() - 2 ? b[b.size() - 3 - i] : 1;
      if (da != db && da != 1 && db != 1)
        fail(name, fmt::format("batch dimensions {} and {} do not broadcast", da, db));
      const std::int64_t broadcast = da == 1 ? db : da;  // 1 stretches to the other, 0 stays 0
      if (broadcast == 0) fail(name, "a batch dimension of 0: an empty product, no multiply-accumulates to map");
      // Compared before multiplying: the product of two dimensions may not fit int64.
      if (broadcast > contracts::kMaxBatch / batch)
        fail(name, fmt::format("a batch of more than {} products (the Layer's limit)", contracts::kMaxBatch));
      batch *= broadcast;
    }
    return contracts::gemm_layer(batch, m, k, n);
  }

  // Shape inference's output shape, where it has one, must be the Layer's (a disagreement means this importer
  // read an attribute differently from ONNX).
  void check_output(const onnx::NodeProto& node, const std::string& name, const std::vector<std::int64_t>& expected) const {
    if (node.output_size() < 1) return;
    const auto found = shapes_.find(node.output(0));
    if (found == shapes_.end() || found->second.size() != expected.size()) return;
    for (size_t i = 0; i < expected.size(); ++i)
      if (found->second[i].value >= 0 && found->second[i].value != expected[i])
        fail(name, fmt::format("ONNX infers output dimension {} = {}, the layer's shape gives {}", i,
                               found->second[i].value, expected[i]));
  }

  std::string path_;
  onnx::ModelProto& model_;
  std::map<std::string, Shape> shapes_;
};

}  // namespace

OnnxImport import_onnx(const std::string& path) {
  const std::string bytes =
      util::read_input_file(path, {"an ONNX model", kMaxOnnxFileBytes, "kMaxOnnxFileBytes", true});
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes) || !model.has_graph() || model.ir_version() <= 0 ||
      model.opset_import_size() == 0)
    throw util::InputError({path, 0, 0}, "model",
                          "not an ONNX model (expected a serialised onnx.ModelProto with an IR version, opset imports "
                          "and a graph)");
  check_graph_before_inference(model.graph(), path);
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& error) {
    throw util::InputError({path, 0, 0}, "graph", std::string("ONNX shape inference failed: ") + error.what());
  }
  return GraphReader(path, model).read();
}

}  // namespace maeri::importer
