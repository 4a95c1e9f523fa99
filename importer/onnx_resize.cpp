// Resize and Upsample beside the fabric (contracts/resize.hpp): nearest and linear with ONNX's coordinate
// transformations, the scales or sizes given as constants. Upsample (opsets 7–9) and Resize of opset 10 have no
// coordinate attributes: their rule is asymmetric coordinates rounded down.
#include <fmt/format.h>

#include <cmath>

#include "importer/onnx_graph_reader.hpp"

namespace maeri::importer {

namespace {

// Why a Resize attribute outside what the unit runs is refused, or "" when it is one it runs.
std::string unsupported_attributes(const std::string& mode, const std::string& coordinates, std::int64_t antialias,
                                   const Dims& axes, const std::string& aspect) {
  if (mode == "cubic") return "cubic interpolation (MAERI runs nearest and linear)";
  if (coordinates == "tf_crop_and_resize")
    return fmt::format("coordinate_transformation_mode '{}' (MAERI runs half_pixel, pytorch_half_pixel, "
                       "align_corners, asymmetric and tf_half_pixel_for_nn)",
                       coordinates);
  if (antialias != 0) return "antialias 1 (a filter wider than the two neighbours)";
  if (!axes.empty()) return "an 'axes' attribute (resizes of some axes only)";
  if (aspect != "stretch") return fmt::format("keep_aspect_ratio_policy '{}'", aspect);
  return "";
}

}  // namespace

std::string GraphReader::resize(OperatorNode& read) {
  const onnx::NodeProto& node = read.node;
  const std::string& name = read.name;
  const std::string cut = kCut;
  const auto x = node.input_size() > 0 ? known_shape(node.input(0)) : std::nullopt;
  if (!x) return "resize: its input's shape is unknown" + cut;
  const bool upsample = node.op_type() == "Upsample";
  const bool attributes_of_11 = !upsample && opset_ >= 11;
  std::string mode = text(node, name, "mode", "nearest");
  if (mode == "bilinear") mode = "linear";  // Upsample of opset 7's name
  const std::string coordinates =
      attributes_of_11 ? text(node, name, "coordinate_transformation_mode", "half_pixel") : "asymmetric";
  const std::string nearest = attributes_of_11 ? text(node, name, "nearest_mode", "round_prefer_floor") : "floor";
  const std::string refused = unsupported_attributes(mode, coordinates, integer(node, name, "antialias", 0),
                                                     ints(node, name, "axes", {}),
                                                     text(node, name, "keep_aspect_ratio_policy", "stretch"));
  if (!refused.empty()) return "resize: " + refused + cut;
  contracts::ResizeForm form;
  const auto known_mode = contracts::resize_mode_named(mode);
  const auto known_coordinates = contracts::coordinate_mode_named(coordinates);
  const auto known_nearest = contracts::nearest_rounding_named(nearest);
  if (!known_mode) fail(name, fmt::format("attribute 'mode': '{}' is not nearest, linear or cubic", mode));
  if (!known_coordinates) fail(name, fmt::format("attribute 'coordinate_transformation_mode': '{}' is unknown", coordinates));
  if (!known_nearest) fail(name, fmt::format("attribute 'nearest_mode': '{}' is unknown", nearest));
  form.mode = *known_mode, form.coordinates = *known_coordinates, form.nearest = *known_nearest;
  // Where the scales and sizes are: Upsample 7's attribute, else inputs (Upsample 9, Resize 10: X, scales;
  // Resize 11+: X, roi, scales, sizes), an empty or absent one not given.
  const int scales_input = attributes_of_11 ? 2 : 1;
  const bool has_scales = scales_input < node.input_size() && !node.input(scales_input).empty();
  const bool has_sizes = attributes_of_11 && node.input_size() > 3 && !node.input(3).empty();
  if (upsample && opset_ < 9) {
    const onnx::AttributeProto* given = attribute(node, "scales");
    if (given) form.scales.assign(given->floats().begin(), given->floats().end());
  } else if (has_scales) {
    const auto scales = values(node, scales_input);
    if (!scales) return "resize: its scales are computed at run time, not a constant" + cut;
    form.scales = *scales;
  }
  if (form.scales.empty() && has_sizes) {
    const auto sizes = values(node, 3);
    if (!sizes) return "resize: its sizes are computed at run time, not a constant" + cut;
    for (double size : *sizes) form.sizes.push_back(std::int64_t(std::llround(size)));
  }
  if (const auto violation = contracts::resize_violation(form, *x, "resize"))
    fail(name, fmt::format("on an input of shape {}: {}", list(*x), *violation));
  if (contracts::resized_shape(form, *x) != read.out_shape)
    fail(name, fmt::format("resize of {} to {}: its output's shape is {}", list(*x),
                           list(contracts::resized_shape(form, *x)), list(read.out_shape)));
  if (!take_inputs(read, 1)) return "resize: its input is not a tensor the network computes" + cut;
  network().operators[emit(read, contracts::OperatorKind::Resize)].resize = form;
  return "";
}

}  // namespace maeri::importer
