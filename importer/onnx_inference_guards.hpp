// Guards around ONNX's own shape inference functions (libonnx 1.12): the convolution and pooling ones read the
// input's spatial dimensions for every kernel dimension the weights or `kernel_shape` give without checking that
// the input has that many (a rank-3 input to a Conv of 4-D weights is a SIGSEGV in onnx::convPoolShapeInference; the
// fuzz harness onnx_model found it, tests/fuzz/regressions/onnx_model/crash-5294717e…). The attributes alone cannot be
// checked before inference (onnx_graph_checks.hpp) because a tensor's rank inside the graph is known only while
// inference runs, so the check wraps the schemas' inference functions: a rank that disagrees becomes ONNX's own
// shape-inference error, which the importer reports naming the graph.
#pragma once

namespace maeri::importer {

// Wraps the inference function of every registered version of Conv, ConvTranspose, ConvInteger, QLinearConv,
// MaxPool, AveragePool, LpPool and MaxUnpool once per process (thread-safe); later calls do nothing.
void guard_onnx_shape_inference();

}  // namespace maeri::importer
