// Output shapes that ONNX shape inference (Debian's ONNX 1.12) leaves unknown although the node's input shape is
// known, given by the importer instead so that the layers after the node keep their shapes: the experimental
// operators the CoreML converter of OnnxMLTools writes at opset 7 (ImageScaler, Affine, Crop), which the library
// has no schema for, and Slice of opset < 10 (attributes starts, ends, axes), whose inference gives a sliced axis a
// new symbol ('unk__1') where a start is negative (tf2onnx's last step of a sequence, x[-1:]).
#pragma once

#include <onnx/onnx_pb.h>

namespace maeri::importer {

// Annotates (the graph's value_info) the first output of each such node whose first input's shape is fully known
// and whose output's shape is not with the shape the operator gives; true when it annotated one, so that shape
// inference runs again from there. A node whose attributes do not fit its input is left alone (the importer names
// it when it reads it).
bool complete_unknown_shapes(onnx::GraphProto& graph, int opset);

}  // namespace maeri::importer
