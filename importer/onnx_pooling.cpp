// Pooling beside the fabric: MaxPool, AveragePool and GlobalMaxPool windows (1-D and 2-D) and GlobalAveragePool, with
// the attributes of a window the post-processing unit computes; other windows are skipped with the reason.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace maeri::importer {

namespace {

// A max pool's border (begin per axis, then end per axis) with ceil_mode's extra end: ONNX's output extent
// ⌈(X + b + e − k) / s⌉ + 1, one less when the last window would start past the input and its begin padding.
Dims with_ceil_border(Dims border, const Dims& extents, const Dims& kernel, const Dims& strides) {
  const std::size_t n = extents.size();
  for (std::size_t a = 0; a < n; ++a) {
    const std::int64_t padded = extents[a] + border[a] + border[a + n];
    std::int64_t outputs = (padded - kernel[a] + strides[a] - 1) / strides[a] + 1;
    if ((outputs - 1) * strides[a] >= extents[a] + border[a]) --outputs;
    border[a + n] += std::max<std::int64_t>(0, (outputs - 1) * strides[a] + kernel[a] - padded);
  }
  return border;
}

// A max pool's window padding: its pads when they are symmetric (`border` cleared), else 0 with `border` kept for
// edge_replicated; empty when a side of an asymmetric border is not in [0, kernel).
Dims window_padding(Dims& border, const Dims& kernel) {
  const std::size_t axes = kernel.size();
  if (std::equal(border.begin(), border.begin() + std::ptrdiff_t(axes), border.begin() + std::ptrdiff_t(axes))) {
    const Dims pads(border.begin(), border.begin() + std::ptrdiff_t(axes));
    border.clear();
    return pads;
  }
  for (std::size_t a = 0; a < border.size(); ++a)
    if (border[a] < 0 || border[a] >= kernel[a % axes]) return {};
  return Dims(axes, 0);
}

}  // namespace

// `tensor` of `shape` with its edges along `axis` repeated `begin` times before and `end` times after: a gather of
// constant indices (0 … 0, 0 … X − 1, X − 1 … X − 1). A max over a window that reaches into such a border is the max
// over the window's elements inside the tensor (every window holds an edge element next to the border it reaches),
// so a max pool over the repeated edges is ONNX's max pool with a −∞ border.
std::size_t GraphReader::edge_replicated(std::size_t tensor, Dims& shape, std::size_t axis, std::int64_t begin,
                                         std::int64_t end, const std::string& name) {
  if (begin == 0 && end == 0) return tensor;
  contracts::Operator gather;
  const std::int64_t extent = shape[axis];
  for (std::int64_t i = -begin; i < extent + end; ++i) gather.indices.push_back(std::clamp<std::int64_t>(i, 0, extent - 1));
  shape[axis] = std::int64_t(gather.indices.size());
  const std::size_t output = add_tensor(name, shape, false);
  contracts::Operator& op = network().operators[add_operator(name, contracts::OperatorKind::Gather, {tensor}, output)];
  op.axis = std::int64_t(axis);
  op.indices = gather.indices;
  op.indices_shape = {shape[axis]};
  return output;
}

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
  Dims border;  // a max pool's asymmetric border (begins, then ends), given as repeated edges (edge_replicated)
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
    const bool ceil_mode = integer(node, name, "ceil_mode", 0) != 0;
    if (ceil_mode && op != "MaxPool") return "pooling: an average pool's ceil_mode 1 (the unit rounds output sizes down)" + std::string(kCut);
    Dims pads;
    if (op == "MaxPool") {
      border = onnx_pads(node, name, extents, kernel, strides);
      if (ceil_mode) border = with_ceil_border(border, extents, kernel, strides);
      pads = window_padding(border, kernel);
      if (!border.empty() && pads.empty())
        fail(name, fmt::format("pads {}{}: each side of a max pool's asymmetric border must be in [0, kernel) (no "
                               "window entirely in the border)",
                               list(border), ceil_mode ? " (with ceil_mode's extra end)" : ""));
    } else {
      pads = symmetric_pads(node, name, extents, kernel, strides);
    }
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
  Dims bordered = *x;  // the input the window slides over: with the repeated edges of an asymmetric border
  for (std::size_t a = 0; a < border.size() / 2; ++a) bordered[2 + a] += border[a] + border[a + axes];
  const Dims pooled4 = {(*x)[0], (*x)[1], window.output_x(bordered[2]), window.output_y(axes == 2 ? bordered[3] : 1)};
  const Dims expected = axes == 2 ? pooled4 : Dims{pooled4[0], pooled4[1], pooled4[2]};
  const auto out = known_shape(node.output(0));
  if (!out || *out != expected) fail(name, "ONNX infers another output shape than the pooling window gives");
  if (!take_inputs(read, 1)) return skip_reason(op);
  if (!border.empty()) {
    Dims shape = *x;
    for (std::size_t a = 0; a < axes; ++a)
      read.inputs[0] = edge_replicated(read.inputs[0], shape, 2 + a, border[a], border[a + axes],
                                       fmt::format("{}.edge_{}", name, a == 0 ? "x" : "y"));
    note(fmt::format("max pool {}: pads {} as repeated edges (a −∞ border: padding never wins)", name, list(border)));
  }
  const contracts::OperatorKind kind = op == "AveragePool" ? contracts::OperatorKind::AveragePool : contracts::OperatorKind::MaxPool;
  std::size_t index;
  if (axes == 2) {
    index = emit(read, kind);
  } else {
    const std::size_t input = reshaped(read.inputs[0], name + ".input", {(*x)[0], (*x)[1], bordered[2], 1}, name + ".reshape_input");
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
