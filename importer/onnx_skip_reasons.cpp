// Why a node the importer does not read is skipped: MAERI's multipliers and reduction tree compute the
// multiply-accumulates of convolutions and matrix products, the post-processing unit the operators of
// contracts::OperatorKind; the rest is not run, and the graph is cut there.
#include "importer/onnx_graph_reader.hpp"

#include <set>

#include "contracts/elementwise_functions.hpp"

namespace maeri::importer {

namespace {

// The table functions' labels, "sigmoid, tanh, …" (contracts/elementwise_functions.hpp's list).
std::string table_function_labels() {
  std::string labels;
#define MAERI_UNARY_FUNCTION_LABEL(id, type, label, onnx, alpha, beta, gamma, uses) \
  labels += std::string(labels.empty() ? "" : ", ") + label;
  MAERI_UNARY_FUNCTIONS(MAERI_UNARY_FUNCTION_LABEL)
#undef MAERI_UNARY_FUNCTION_LABEL
  return labels;
}

}  // namespace

// Why a node is skipped: MAERI's multipliers and reduction tree compute the multiply-accumulates of convolutions
// and matrix products, the post-processing unit the operators of contracts::OperatorKind; the rest is not run.
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
      "DepthToSpace", "SpaceToDepth", "Range", "GatherElements", "ScatterND", "NonZero", "TopK", "Size"};
  std::string reason;
  if (pooling.count(op)) reason = "pooling: a window the post-processing unit does not compute";
  else if (activation.count(op))
    reason = "activation: not one the post-processing unit computes (it runs relu, clip, softmax and the table "
             "functions: " + table_function_labels() + ")";
  else if (elementwise.count(op))
    reason = "element-wise arithmetic: only add, sub, mul, div, max and min of two operands (broadcast, at most one "
             "constant) and the table functions run beside the fabric";
  else if (normalisation.count(op))
    reason = "normalisation/reduction: BatchNormalization (inference, constant parameters), LayerNormalization and "
             "ReduceMean/Sum/Max of constant parameters and axes run";
  else if (layout.count(op)) reason = "data layout or shape computation that does not fold to a reshape";
  else if (op == "ConvInteger" || op == "QLinearConv" || op == "QLinearMatMul" || op == "MatMulInteger")
    reason = "not supported by this importer (a quantized model: export the float model, MAERI quantizes it)";
  else reason = "no MAERI mapping for this operator";
  return reason + kCut;
}

}  // namespace maeri::importer
