// The float value of an ONNX node the importer skipped (the unit does not run it): what a chained run uses to compute
// a cut tensor from the real input by the float reference instead of seeding it (testbench/float_computed_inputs).
// ONNX's semantics in double precision (onnx/onnx docs/Operators.md), one family per function:
//   element-wise: one input (Floor, Ceil, Round — half to even —, Sign, Abs, Neg, Exp, Log, Sqrt, Reciprocal, Sin,
//     Cos, Erf, Sigmoid, Tanh, Relu, LeakyRelu, ThresholdedRelu, Elu, Selu, Softplus, Softsign, HardSigmoid, Not,
//     Identity, Dropout), two or more broadcast (Add, Sub, Mul, Div, Pow, Mod, Max, Min, Sum, Mean, Equal, Less,
//     Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor), Where, Clip, Cast (to an integer type: towards zero);
//   layout (onnx_node_evaluation_layout.cpp): Reshape, Flatten, Squeeze, Unsqueeze (the graph's output shape),
//     Transpose, Concat, Expand, Gather, ScatterND, Softmax, LogSoftmax, ReduceMean/Sum/Max/Min/Prod/L2, ArgMax, ArgMin, CumSum.
#pragma once

#include <string>
#include <vector>

#include "importer/onnx_import.hpp"

namespace maeri::importer {

// Whether evaluate_skipped_node computes nodes of this op_type (of the default domain).
bool evaluates(const std::string& op_type);

// The values of `node`'s outputs from its inputs' (`inputs[i]` for node.inputs[i]; nullptr where an optional input
// is left out); `graph` gives the shapes the model declares for its outputs. Throws std::invalid_argument naming the
// node, its operator and what it cannot compute (an operator not listed, an attribute or input it does not take).
std::vector<RealArray> evaluate_skipped_node(const SkippedNode& node, const std::vector<const RealArray*>& inputs,
                                             const SkippedGraph& graph);

}  // namespace maeri::importer
