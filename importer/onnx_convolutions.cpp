// Conv (1-D, 2-D) and ConvTranspose as convolution layers: the Layer's shape from the input, the weights and the
// attributes; pads the Layer cannot express (asymmetric ones, a transposed convolution's extra zeros) as a zero
// border a Pad operator adds to the input; the weights and bias (a transposed convolution's flipped and with its
// channels swapped), with what follows the layer folded into them.
#include "importer/onnx_graph_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace maeri::importer {
namespace {

// ONNX's ConvTranspose weights [C][K/g][R][S] as the layer's [K][C/g][R][S], flipped along R and S.
std::vector<double> flipped_weights(const std::vector<double>& weights, const contracts::Layer& layer,
                                    std::int64_t k_group) {
  const std::int64_t c_group = layer.C / layer.groups;
  std::vector<double> flipped(weights.size());
  for (std::int64_t c = 0; c < layer.C; ++c)
    for (std::int64_t kg = 0; kg < k_group; ++kg)
      for (std::int64_t r = 0; r < layer.R; ++r)
        for (std::int64_t s = 0; s < layer.S; ++s) {
          const std::int64_t group = c / c_group, k = group * k_group + kg, cg = c % c_group;
          flipped[std::size_t(((k * c_group + cg) * layer.R + (layer.R - 1 - r)) * layer.S + (layer.S - 1 - s))] =
              weights[std::size_t(((c * k_group + kg) * layer.R + r) * layer.S + s)];
        }
  return flipped;
}

}  // namespace

// Conv: X [N, C, H, W], W [M, C/group, kH, kW]; H is the Layer's X (rows, R), W its Y (columns, S). A 1-D
// convolution (X [N, C, L]) is one with Y = 1.
void GraphReader::convolution(const onnx::NodeProto& node, int index, const std::string& name) {
  const Dims x = input_shape(node, name, 0, "input");
  const Dims w = input_shape(node, name, 1, "weight");
  if (x.size() != w.size() || (x.size() != 4 && x.size() != 3))
    fail(name, fmt::format("only 1-D and 2-D convolutions (3-D or 4-D input and weight) become layers; the input "
                           "has rank {}, the weight rank {}",
                           x.size(), w.size()));
  const std::size_t n = x.size() - 2;
  contracts::Layer layer;
  layer.type = contracts::LayerType::Convolution;
  layer.N = x[0];
  layer.C = x[1];
  layer.X = x[2];
  layer.Y = n == 2 ? x[3] : 1;
  layer.K = w[0];
  layer.R = w[2];
  layer.S = n == 2 ? w[3] : 1;
  layer.groups = integer(node, name, "group", 1);
  if (layer.groups < 1 || w[1] * layer.groups != layer.C)
    fail(name, fmt::format("group = {} with {} input channels needs weights of {} channels each, found {}",
                           layer.groups, layer.C, layer.groups > 0 ? layer.C / layer.groups : 0, w[1]));
  const Dims kernel = ints(node, name, "kernel_shape", Dims(w.begin() + 2, w.end()));
  if (kernel != Dims(w.begin() + 2, w.end()))
    fail(name, fmt::format("kernel_shape {} disagrees with the weight's {}", list(kernel), list(Dims(w.begin() + 2, w.end()))));
  const Dims strides = ints(node, name, "strides", Dims(n, 1));
  const Dims dilations = ints(node, name, "dilations", Dims(n, 1));
  if (strides.size() != n) fail(name, fmt::format("strides {}: expected {} values", list(strides), n));
  if (dilations.size() != n) fail(name, fmt::format("dilations {}: expected {} values", list(dilations), n));
  layer.stride_x = strides[0];
  layer.stride_y = n == 2 ? strides[1] : 1;
  layer.dilation_x = dilations[0];
  layer.dilation_y = n == 2 ? dilations[1] : 1;
  Dims spans = {layer.filter_span_x(), layer.filter_span_y()};
  spans.resize(n);
  const Dims pads = onnx_pads(node, name, Dims(x.begin() + 2, x.end()), spans, strides);
  // A Layer pads both sides of an axis alike: the common part is its padding, the excess (TensorFlow's SAME at
  // stride 2, explicit asymmetric pads) a zero border a Pad operator adds to its input.
  layer.padding_x = std::min(pads[0], pads[n]);
  layer.padding_y = n == 2 ? std::min(pads[1], pads[3]) : 0;
  const contracts::PadBorder border{pads[0] - layer.padding_x, pads[n] - layer.padding_x,
                                    n == 2 ? pads[1] - layer.padding_y : 0, n == 2 ? pads[3] - layer.padding_y : 0};
  const Dims unpadded = {layer.N, layer.C, layer.X, layer.Y};
  layer.X = border.output_x(layer.X);
  layer.Y = border.output_y(layer.Y);
  Dims expected = {layer.N, layer.K, layer.output_x(), layer.output_y()};
  expected.resize(x.size());
  check_output(node, name, expected);

  LayerLinks links;
  links.input = node.input(0);
  if (unpadded[2] != layer.X || unpadded[3] != layer.Y) {
    note(fmt::format("layer {}: pads {} as a zero border (x {}+{}, y {}+{}) before the convolution, which pads {}x{}",
                     name, list(pads), border.x_begin, border.x_end, border.y_begin, border.y_end,
                     layer.padding_x, layer.padding_y));
    links.input_tensor = zero_bordered(node.input(0), unpadded, border, name);
    links.input_in_order = false;  // when there is no activation to border, a network input of the padded shape
    links.cut_reason = "its input with the zero border of its asymmetric pads";
  }
  links.output = node.output(0);
  links.weights = values(node, 1);
  if (links.weights) {
    std::vector<double> bias = values(node, 2).value_or(std::vector<double>(std::size_t(layer.K), 0.0));
    if (bias.size() != std::size_t(layer.K))
      fail(name, fmt::format("its bias has {} values for {} output channels", bias.size(), layer.K));
    const std::size_t before = result_.notes.size();
    links.output = fold_into(index, name, layer.K, ChannelAxis::Second, *links.weights, bias);
    // Folded values are the layer's own; unfolded ones keep the initializer's name (the quantizer's key).
    if (result_.notes.size() == before) links.weight_name = node.input(1);
    if (node.input_size() > 2 || result_.notes.size() != before) links.bias = std::move(bias);
  } else {
    note(fmt::format("layer {}: its weights '{}' are computed at run time, not given as an initializer", name,
                     node.input(1)));
  }
  add_layer(node, layer, name, std::move(links));
}

// ConvTranspose: the convolution of the input with zeros inserted between its elements (stride − 1 per gap),
// at stride 1, over the flipped kernel with its channels swapped. It reads dilation·(k − 1) − pad_begin zeros
// before the input and dilation·(k − 1) − pad_end + output_padding after it: the layer pads both sides by the
// smaller of the two, and the other side's excess zeros extend its input (a Pad operator at stride 1).
void GraphReader::transposed_convolution(const onnx::NodeProto& node, const std::string& name) {
  const Dims x = input_shape(node, name, 0, "input");
  const Dims w = input_shape(node, name, 1, "weight");
  if (x.size() != 4 || w.size() != 4)
    fail(name, fmt::format("only 2-D ConvTranspose becomes a layer; the input has rank {}", x.size()));
  // VALID is no padding (CoreML converters write it beside output_shape); SAME is refused.
  const std::string auto_pad = text(node, name, "auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID")
    fail(name, "attribute auto_pad " + auto_pad + " is not supported (the ONNX definition and runtimes split an odd "
               "SAME padding differently): give pads instead");
  Dims output_padding = ints(node, name, "output_padding", {0, 0});
  if (output_padding.size() != 2 || output_padding[0] < 0 || output_padding[1] < 0)
    fail(name, fmt::format("output_padding {}: expected two values of at least 0", list(output_padding)));
  const std::int64_t groups = integer(node, name, "group", 1);
  if (groups < 1 || w[0] != x[1] || w[0] % groups)
    fail(name, fmt::format("group = {} with {} input channels and weights of shape {}", groups, x[1], list(w)));
  const Dims strides = ints(node, name, "strides", {1, 1}), dilations = ints(node, name, "dilations", {1, 1});
  if (strides.size() != 2 || dilations.size() != 2) fail(name, "strides and dilations need two values each");
  const Dims spans = {dilations[0] * (w[2] - 1), dilations[1] * (w[3] - 1)};  // the dilated kernel's span − 1
  const Dims pads = transposed_pads(node, name, x, strides, spans, output_padding);
  const std::int64_t before_x = spans[0] - pads[0], after_x = spans[0] - pads[2] + output_padding[0];
  const std::int64_t before_y = spans[1] - pads[1], after_y = spans[1] - pads[3] + output_padding[1];
  if (std::min({before_x, after_x, before_y, after_y}) < 0)
    fail(name, fmt::format("pads {} exceed the kernel's span: the equivalent convolution would crop its input",
                           list(pads)));
  contracts::Layer layer;
  layer.type = contracts::LayerType::Convolution;
  layer.N = x[0];
  layer.C = x[1];
  layer.K = w[1] * groups;
  layer.R = w[2];
  layer.S = w[3];
  layer.groups = groups;
  layer.dilation_x = dilations[0];
  layer.dilation_y = dilations[1];
  layer.padding_x = std::min(before_x, after_x);
  layer.padding_y = std::min(before_y, after_y);
  const contracts::PadBorder border{before_x - layer.padding_x, after_x - layer.padding_x,
                                    before_y - layer.padding_y, after_y - layer.padding_y};
  layer.X = border.output_x((x[2] - 1) * strides[0] + 1);
  layer.Y = border.output_y((x[3] - 1) * strides[1] + 1);
  check_output(node, name, {layer.N, layer.K, layer.output_x(), layer.output_y()});
  LayerLinks links;
  links.input = node.input(0);
  const bool zeros_inserted = strides[0] != 1 || strides[1] != 1;
  const bool bordered = border.output_x(x[2]) != x[2] || border.output_y(x[3]) != x[3];
  links.input_in_order = !zeros_inserted && !bordered;
  links.cut_reason = "the zero-inserted input of a transposed convolution";
  if (!zeros_inserted && bordered) links.input_tensor = zero_bordered(node.input(0), x, border, name);
  if (zeros_inserted) links.input_tensor = zero_inserted(node.input(0), x, strides, border, name);
  links.output = node.output(0);
  if (const auto weights = values(node, 1)) {
    links.weights = flipped_weights(*weights, layer, w[1]);
    if (const auto bias = values(node, 2)) links.bias = *bias;
  }
  note(fmt::format("layer {}: ConvTranspose as a convolution over its zero-inserted input ({}x{} → {}x{}{})", name,
                   x[2], x[3], layer.X, layer.Y,
                   bordered ? fmt::format(", with a zero border x {}+{}, y {}+{}", border.x_begin, border.x_end,
                                          border.y_begin, border.y_end)
                            : ""));
  add_layer(node, layer, name, std::move(links));
}

// The pads [x_begin, y_begin, x_end, y_end] of a ConvTranspose: its attribute pads (none under auto_pad VALID), or
// those that give its attribute output_shape. An output_shape beyond the unpadded output adds that many rows or
// columns at the end, as ONNX Runtime computes it (its total padding clamped at 0, the output extended): they read
// only the inserted zeros, like output_padding's, which grows by them.
Dims GraphReader::transposed_pads(const onnx::NodeProto& node, const std::string& name, const Dims& x,
                                  const Dims& strides, const Dims& spans, Dims& output_padding) const {
  const bool valid = text(node, name, "auto_pad", "NOTSET") == "VALID";
  Dims pads = valid ? Dims{0, 0, 0, 0} : ints(node, name, "pads", {0, 0, 0, 0});
  if (pads.size() != 4) fail(name, fmt::format("pads {}: expected four values", list(pads)));
  if (attribute(node, "output_shape")) {
    // The pads that give output_shape, when the total per axis splits evenly: ONNX's definition puts an odd
    // one's extra zero at the beginning, onnxruntime at the end, so only explicit pads say which.
    Dims wanted = ints(node, name, "output_shape", {});
    if (wanted.size() == 4) wanted.erase(wanted.begin(), wanted.begin() + 2);
    if (wanted.size() != 2) fail(name, "attribute output_shape: expected the two spatial extents");
    for (std::size_t axis = 0; axis < 2; ++axis) {
      const std::int64_t total =
          strides[axis] * (x[2 + axis] - 1) + output_padding[axis] + spans[axis] + 1 - wanted[axis];
      if (total < 0) {
        output_padding[axis] -= total;
        pads[axis] = pads[axis + 2] = 0;
        continue;
      }
      if (total % 2 != 0)
        fail(name, fmt::format("output_shape {} is not equivalent to explicit pads: it needs a total padding of {} "
                               "along axis {}, odd (runtimes put its extra zero on different sides); give pads "
                               "instead",
                               list(wanted), total, axis + 2));
      pads[axis] = pads[axis + 2] = total / 2;
    }
  }
  return pads;
}

}  // namespace maeri::importer
