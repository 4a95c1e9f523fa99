// Pooling beside the fabric: MaxPool, AveragePool and GlobalMaxPool windows (1-D and 2-D) and GlobalAveragePool, with
// the attributes of a window the post-processing unit computes; other windows are skipped with the reason.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace maeri::importer {

// 2-D pooling (rank 4) runs as it is; 1-D pooling (rank 3, [N, C, L], as after a 1-D convolution) runs as 2-D
// pooling with Y = 1 between two reshapes (`NODE.reshape_input`, `NODE.reshape_output`), as a 1-D convolution does.
std::string GraphReader::pool(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& name = read.name;
  const std::string& op = node.op_type();
  if (node.input_size() < 1) return skip_reason(op);
  const auto x = known_shape(node.input(0));
  if (!x || (x->size() != 4 && x->size() != 3))
    return "pooling: only 1-D and 2-D pooling (rank 3 or 4) runs beside the fabric" + std::string(kCut);
  if (node.output_size() > 1 && !node.output(1).empty()) return "pooling: the indices output of MaxPool" + std::string(kCut);
  const std::size_t axes = x->size() - 2;
  const Dims extents(x->begin() + 2, x->end());
  contracts::PoolWindow window;
  if (op == "GlobalMaxPool") {
    window.size_x = extents[0];
    window.size_y = axes == 2 ? extents[1] : 1;
  } else {
    const Dims kernel = ints(node, name, "kernel_shape", {});
    const std::string count = axes == 2 ? "two values" : "one value";
    if (kernel.size() != axes)
      fail(name, fmt::format("attribute 'kernel_shape': expected {}, found {}", count, list(kernel)));
    const Dims strides = ints(node, name, "strides", Dims(axes, 1));
    const Dims dilations = ints(node, name, "dilations", Dims(axes, 1));
    if (strides.size() != axes)
      fail(name, fmt::format("attribute 'strides': expected {}, found {}", count, list(strides)));
    if (dilations != Dims(axes, 1)) return "pooling: a dilated window" + std::string(kCut);
    if (integer(node, name, "ceil_mode", 0) != 0) return "pooling: ceil_mode 1 (the unit rounds output sizes down)" + std::string(kCut);
    const Dims pads = symmetric_pads(node, name, extents, kernel, strides);
    if (op == "AveragePool" && integer(node, name, "count_include_pad", 0) != 0 &&
        std::any_of(pads.begin(), pads.end(), [](std::int64_t pad) { return pad != 0; }))
      return "pooling: an average that counts the padding (count_include_pad 1)" + std::string(kCut);
    window.size_x = kernel[0];
    window.stride_x = strides[0];
    window.padding_x = pads[0];
    if (axes == 2) {
      window.size_y = kernel[1];
      window.stride_y = strides[1];
      window.padding_y = pads[1];
    }
  }
  const Dims pooled4 = {(*x)[0], (*x)[1], window.output_x(extents[0]), window.output_y(axes == 2 ? extents[1] : 1)};
  const Dims expected = axes == 2 ? pooled4 : Dims{pooled4[0], pooled4[1], pooled4[2]};
  const auto out = known_shape(node.output(0));
  if (!out || *out != expected) fail(name, "ONNX infers another output shape than the pooling window gives");
  if (!take_inputs(read, 1)) return skip_reason(op);
  const contracts::OperatorKind kind = op == "AveragePool" ? contracts::OperatorKind::AveragePool : contracts::OperatorKind::MaxPool;
  std::size_t index;
  if (axes == 2) {
    index = emit(read, kind);
  } else {
    const std::size_t input = reshaped(read.inputs[0], name + ".input", {(*x)[0], (*x)[1], extents[0], 1}, name + ".reshape_input");
    const std::size_t pooled = add_tensor(name + ".output", pooled4, false);
    index = add_operator(name, kind, {input}, pooled);
    const std::size_t output = add_tensor(node.output(0), *out, false);
    add_operator(name + ".reshape_output", contracts::OperatorKind::Reshape, {pooled}, output);
    tensor_of_[node.output(0)] = output;
  }
  network().operators[index].pool = window;
  return "";
}

// GlobalAveragePool: one average per channel; of a rank-4 tensor the global average pool, of another rank (1-D,
// 3-D) a reduce mean over the axes after the channels.
std::string GraphReader::global_average_pool(OperatorNode& read) {
  const std::size_t rank = read.out_shape.size();
  if (rank < 3 || !take_inputs(read, 1)) return skip_reason(read.node.op_type());
  if (rank == 4) {
    emit(read, contracts::OperatorKind::GlobalAveragePool);
    return "";
  }
  // (N, C, L) or (N, C, D, H, W): the mean over every axis after the channels, kept as extents of 1.
  contracts::Operator& op = network().operators[emit(read, contracts::OperatorKind::ReduceMean)];
  for (std::size_t d = 2; d < rank; ++d) op.reduce_axes.push_back(std::int64_t(d));
  op.keep_dims = true;
  return "";
}

}  // namespace maeri::importer
