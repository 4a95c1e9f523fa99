// Layout operators beside the fabric: Concat, Slice, Gather and Split (a slice per output) of constant indices,
// Transpose (a reshape when it moves no data), and a Pad of a zero border on X and Y. (Flatten, Reshape, Squeeze and
// Unsqueeze are reshapes: GraphReader::unary.)
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace maeri::importer {

// Concat of activations along an axis (negative axes count from the end).
std::string GraphReader::concat(OperatorNode& read) {
  const std::size_t rank = read.out_shape.size();
  const std::int64_t axis = integer(read.node, read.name, "axis", 1);
  if (axis < -std::int64_t(rank) || axis >= std::int64_t(rank))
    fail(read.name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
  if (!take_inputs(read, read.node.input_size()))
    return "concat of a constant or of a tensor of unknown shape" + std::string(kCut);
  const std::size_t index = emit(read, contracts::OperatorKind::Concat);
  network().operators[index].axis = axis < 0 ? axis + std::int64_t(rank) : axis;
  return "";
}

// A Transpose that only moves unit dimensions is a reshape; the others are transposes of the post-processing unit,
// that of an NHWC model's input included: the network input is the graph input in its own shape and layout, so a
// user's .npy of the ONNX input's shape is the run's input as it is (the unit's transpose is the one home of the
// layout change).
std::string GraphReader::transpose(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& name = read.name;
  const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
  if (!x) return skip_reason("Transpose");
  if (folds_into_products(node)) {
    note(fmt::format("Transpose {} folds into the operand layout of the MatMuls that read '{}'", name, node.output(0)));
    return "";
  }
  Dims perm = ints(node, name, "perm", {});
  if (perm.empty())
    for (std::size_t i = x->size(); i-- > 0;) perm.push_back(std::int64_t(i));
  Dims moved;
  for (const std::int64_t axis : perm) {
    if (axis < 0 || axis >= std::int64_t(x->size())) fail(name, fmt::format("attribute 'perm': {} is not a permutation", list(perm)));
    if ((*x)[std::size_t(axis)] != 1) moved.push_back(axis);
  }
  if (std::is_sorted(moved.begin(), moved.end())) {
    if (!take_inputs(read, 1)) return skip_reason("Transpose");
    emit(read, contracts::OperatorKind::Reshape);
    return "";
  }
  if (!take_inputs(read, 1)) return skip_reason("Transpose");
  network().operators[emit(read, contracts::OperatorKind::Transpose)].perm = perm;
  return "";
}

// Pad of mode "constant" with the value 0 (or none), only on the spatial axes 2 and 3 of a rank-4 tensor (axis 2 of
// a rank-3 one, between reshapes to and from (N, C, L, 1)), by at
// least 0: `pads` an attribute before opset 11 (`paddings` at opset 1), a constant input from 11 on, with the
// `axes` input of opset 18. Other pads are skipped with the reason.
std::string GraphReader::pad(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& name = read.name;
  const std::string cut = kCut;
  const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
  if (!x || (x->size() != 4 && x->size() != 3))
    return "pad: only a rank-3 (N, C, L) or rank-4 (N, C, H, W) tensor gets a border beside the fabric" + cut;
  const std::int64_t rank = std::int64_t(x->size());
  const std::string mode = text(node, name, "mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return fmt::format("pad: mode '{}' (zeros, a reflection or the edge repeated are what the unit writes)", mode) + cut;
  Dims pads;
  std::optional<double> value;
  Dims axes = rank == 4 ? Dims{0, 1, 2, 3} : Dims{0, 1, 2};
  if (opset_ < 11) {
    pads = ints(node, name, opset_ < 2 ? "paddings" : "pads", {});
    if (attribute(node, "value")) value = real(node, name, "value", 0);
  } else {
    const auto given = node.input_size() > 1 ? constant(node.input(1)) : std::nullopt;
    if (!given || !given->integral()) return "pad: its pads are not a constant list of integers" + cut;
    pads = given->integers;
    if (node.input_size() > 2 && !node.input(2).empty()) {
      const auto constant_value = constant(node.input(2));
      if (!constant_value || constant_value->elements() != 1) return "pad: its value is not a constant scalar" + cut;
      value = constant_value->real(0);
    }
    if (node.input_size() > 3 && !node.input(3).empty()) {
      const auto given_axes = constant(node.input(3));
      if (!given_axes || !given_axes->integral()) return "pad: its axes are not a constant list of integers" + cut;
      axes = given_axes->integers;
      for (std::int64_t& axis : axes) {
        if (axis < -rank || axis >= rank)
          fail(name, fmt::format("input 'axes': {} is out of range for rank {}", axis, rank));
        if (axis < 0) axis += rank;
      }
    }
  }
  if (pads.size() != 2 * axes.size())
    fail(name, fmt::format("pads {}: expected {} values (a begin and an end per axis)", list(pads), 2 * axes.size()));
  for (std::size_t i = 0; i < pads.size(); ++i)
    if (pads[i] < 0) return fmt::format("pad: negative pads {} (a crop)", list(pads)) + cut;
  if (mode != "constant") return mirrored_pad(read, *x, mode, pads, axes);
  if (value && *value != 0) return fmt::format("pad: the value {} (only zeros are a border the unit writes)", *value) + cut;
  contracts::PadBorder border, channel_border;
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] == 1) channel_border.x_begin = pads[i], channel_border.x_end = pads[i + axes.size()];
  bool channels_only = channel_border.x_begin + channel_border.x_end > 0;
  for (std::size_t i = 0; i < axes.size(); ++i)
    channels_only = channels_only && (axes[i] == 1 || (pads[i] == 0 && pads[i + axes.size()] == 0));
  if (channels_only && (!value || *value == 0)) return channel_padded(read, *x, channel_border);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t begin = pads[i], end = pads[i + axes.size()];
    if (axes[i] < 2 && (begin != 0 || end != 0))
      return fmt::format("pad: pads {} on the batch or channel axis (the unit pads X and Y)", list(pads)) + cut;
    if (axes[i] == 2) border.x_begin = begin, border.x_end = end;
    if (axes[i] == 3) border.y_begin = begin, border.y_end = end;
  }
  const Dims image = rank == 4 ? *x : Dims{(*x)[0], (*x)[1], (*x)[2], 1};
  const Dims padded{image[0], image[1], border.output_x(image[2]), border.output_y(image[3])};
  const auto out = known_shape(node.output(0));
  if (!out || *out != (rank == 4 ? padded : Dims(padded.begin(), padded.end() - 1)))
    fail(name, "ONNX infers another output shape than the pads give");
  if (!take_inputs(read, 1)) return skip_reason("Pad");
  if (rank == 4) {
    network().operators[emit(read, contracts::OperatorKind::Pad)].pad = border;
    return "";
  }
  // 1-D (a causal or "same" 1-D convolution's border): a border along X of (N, C, L, 1) between two reshapes.
  const std::size_t input = reshaped(read.inputs[0], name + ".input", image, name + ".reshape_input");
  const std::size_t bordered = add_tensor(name + ".padded", padded, false);
  network().operators[add_operator(name, contracts::OperatorKind::Pad, {input}, bordered)].pad = border;
  const std::size_t output = add_tensor(node.output(0), *out, false);
  tensor_of_[node.output(0)] = output;
  add_operator(name + ".reshape_output", contracts::OperatorKind::Reshape, {bordered}, output);
  return "";
}

// Zero channels before and after the channels of (N, C, …) (TensorFlow's channel padding of a residual that widens
// its channels): the channels as axis 2 of (N, 1, C, rest) between two reshapes, with a pad of `border` along it.
std::string GraphReader::channel_padded(OperatorNode& read, const Dims& x, const contracts::PadBorder& border) {
  const std::string& name = read.name;
  std::int64_t rest = 1;
  for (std::size_t d = 2; d < x.size(); ++d) rest *= x[d];
  if (!take_inputs(read, 1)) return skip_reason("Pad");
  const Dims image{x[0], 1, x[1], rest};
  const std::size_t input = reshaped(read.inputs[0], name + ".input", image, name + ".reshape_input");
  const std::size_t bordered = add_tensor(name + ".padded", {x[0], 1, border.output_x(x[1]), rest}, false);
  network().operators[add_operator(name, contracts::OperatorKind::Pad, {input}, bordered)].pad = border;
  const std::size_t output = add_tensor(read.node.output(0), read.out_shape, false);
  tensor_of_[read.node.output(0)] = output;
  add_operator(name + ".reshape_output", contracts::OperatorKind::Reshape, {bordered}, output);
  return "";
}

}  // namespace maeri::importer

namespace maeri::importer {

namespace {

// An integer list from a constant input (opset ≥ 10 Slice, ≥ 13 Split) or nullopt when it is absent or not constant.
std::optional<Dims> constant_integers(const std::optional<TensorValue>& value) {
  if (!value || !value->integral()) return std::nullopt;
  return value->integers;
}

}  // namespace

// Slice with constant starts, ends, axes and steps (attributes before opset 10, inputs from 10 on): ONNX's clamping
// (contracts::onnx_slice), negative steps included.
std::string GraphReader::slice(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string cut = kCut;
  const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
  if (!x) return skip_reason("Slice");
  Dims starts, ends, axes, steps;
  if (opset_ < 10) {
    starts = ints(node, read.name, "starts", {});
    ends = ints(node, read.name, "ends", {});
    axes = ints(node, read.name, "axes", {});
  } else {
    const auto input = [&](int i) -> std::optional<Dims> {
      if (i >= node.input_size() || node.input(i).empty()) return Dims{};
      return constant_integers(constant(node.input(i)));
    };
    const auto given_starts = input(1), given_ends = input(2), given_axes = input(3), given_steps = input(4);
    if (!given_starts || !given_ends || !given_axes || !given_steps)
      return "slice: its starts, ends, axes or steps are not constant integers" + cut;
    starts = *given_starts, ends = *given_ends, axes = *given_axes, steps = *given_steps;
  }
  std::vector<contracts::SliceAxis> axes_taken;
  if (const auto violation = contracts::onnx_slice(*x, starts, ends, axes, steps, axes_taken))
    fail(read.name, fmt::format("slice of a tensor of shape {}: {}", list(*x), *violation));
  if (!take_inputs(read, 1)) return skip_reason("Slice");
  network().operators[emit(read, contracts::OperatorKind::Slice)].slice = axes_taken;
  return "";
}

// Gather of constant indices (negative ones count from the end) along any axis.
std::string GraphReader::gather(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const auto x = node.input_size() > 1 ? known_shape(node.input(0)) : std::nullopt;
  const auto indices = node.input_size() > 1 ? constant(node.input(1)) : std::nullopt;
  if (x && !indices && node.input_size() > 1 && constant(node.input(0))) return lookup(read);
  if (!x || !indices || !indices->integral())
    return "gather: its indices are not constant integers" + std::string(kCut);
  const std::int64_t rank = std::int64_t(x->size());
  std::int64_t axis = integer(node, read.name, "axis", 0);
  if (axis < -rank || axis >= rank)
    fail(read.name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
  if (axis < 0) axis += rank;
  Dims entries = indices->integers;
  for (std::int64_t& entry : entries) {
    const std::int64_t extent = (*x)[std::size_t(axis)];
    if (entry < -extent || entry >= extent)
      fail(read.name, fmt::format("index {} is out of range for axis {} of extent {}", entry, axis, extent));
    if (entry < 0) entry += extent;
  }
  if (!take_inputs(read, 1)) return skip_reason("Gather");
  contracts::Operator& op = network().operators[emit(read, contracts::OperatorKind::Gather)];
  op.axis = axis;
  op.indices = std::move(entries);
  op.indices_shape = indices->dims;
  return "";
}

// Split into constant sizes along any axis (the `split` attribute before opset 13, an input from 13 on; equal parts
// when absent, the last one smaller as opset 18 allows): one slice `NODE.<output>` per output.
std::string GraphReader::split(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
  if (!x) return skip_reason("Split");
  const std::int64_t rank = std::int64_t(x->size());
  std::int64_t axis = integer(node, read.name, "axis", 0);
  if (axis < -rank || axis >= rank)
    fail(read.name, fmt::format("attribute 'axis': {} is out of range for rank {}", axis, rank));
  if (axis < 0) axis += rank;
  const std::int64_t extent = (*x)[std::size_t(axis)], parts = node.output_size();
  Dims sizes;
  if (opset_ < 13) {
    sizes = ints(node, read.name, "split", {});
  } else if (node.input_size() > 1 && !node.input(1).empty()) {
    const auto given = constant_integers(constant(node.input(1)));
    if (!given) return "split: its sizes are not constant integers" + std::string(kCut);
    sizes = *given;
  }
  if (sizes.empty())
    for (std::int64_t i = 0, each = (extent + parts - 1) / parts; i < parts; ++i)
      sizes.push_back(std::min(each, extent - i * each));
  std::int64_t total = 0;
  for (const std::int64_t size : sizes) total += size < 1 ? extent + 1 : size;
  if (std::int64_t(sizes.size()) != parts || total != extent)
    fail(read.name, fmt::format("split {} of axis {} (extent {}) into {} outputs: the sizes must be at least 1 and "
                                "add up to the extent",
                                list(sizes), axis, extent, parts));
  if (!take_inputs(read, 1)) return skip_reason("Split");
  std::int64_t start = 0;
  for (int o = 0; o < node.output_size(); ++o) {
    std::vector<contracts::SliceAxis> taken;
    for (const std::int64_t whole : *x) taken.push_back({0, 1, whole});
    taken[std::size_t(axis)] = {start, 1, sizes[std::size_t(o)]};
    start += sizes[std::size_t(o)];
    if (node.output(o).empty()) continue;
    Dims shape = *x;
    shape[std::size_t(axis)] = sizes[std::size_t(o)];
    const std::size_t output = add_tensor(node.output(o), shape, false);
    tensor_of_[node.output(o)] = output;
    const std::size_t op =
        add_operator(fmt::format("{}.{}", read.name, node.output(o)), contracts::OperatorKind::Slice, read.inputs, output);
    network().operators[op].slice = std::move(taken);
  }
  return "";
}

}  // namespace maeri::importer
