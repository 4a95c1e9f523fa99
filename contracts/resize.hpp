// Resize (ONNX Resize, Upsample): where each output element comes from and with what weights, the one home of the
// rule shared by the shape inference (contracts/network.cpp), the float and integer references (testbench/), the
// post-processing unit (sim/post_processing_resize.cpp) and its model (mapper/model/). docs/quantization.md,
// "Resize"; docs/workload-spec.md, "Graphs".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maeri::contracts {

struct Operator;

// ONNX's interpolation modes that MAERI runs (cubic is refused by the importer).
enum class ResizeMode { Nearest, Linear };
// ONNX's coordinate_transformation_mode: the input coordinate of output coordinate x along an axis of input extent
// `in`, output extent `out` and scale `s`:
//   half_pixel           (x + 0.5) / s − 0.5
//   pytorch_half_pixel   (x + 0.5) / s − 0.5 when out > 1, else 0
//   align_corners        x · (in − 1) / (out − 1), 0 when out = 1
//   asymmetric           x / s
//   tf_half_pixel_for_nn (x + 0.5) / s   (tf2onnx's nearest resize of TensorFlow's half_pixel_centers)
enum class CoordinateMode { HalfPixel, PytorchHalfPixel, AlignCorners, Asymmetric, TfHalfPixelForNn };
// ONNX's nearest_mode: how a nearest resize rounds the input coordinate (clamped to [0, in − 1] after).
enum class NearestRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

const char* to_string(ResizeMode mode);
const char* to_string(CoordinateMode mode);
const char* to_string(NearestRounding rounding);
std::optional<ResizeMode> resize_mode_named(const std::string& name);
std::optional<CoordinateMode> coordinate_mode_named(const std::string& name);
std::optional<NearestRounding> nearest_rounding_named(const std::string& name);

struct ResizeForm {
  ResizeMode mode = ResizeMode::Nearest;
  CoordinateMode coordinates = CoordinateMode::HalfPixel;
  NearestRounding nearest = NearestRounding::RoundPreferFloor;
  // One per input axis. Either may be empty: ONNX gives one of them; the output extent is sizes[d], or
  // floor(in[d] · scales[d]) when sizes is empty; the scale the coordinates divide by is scales[d], or
  // sizes[d] / in[d] when scales is empty.
  std::vector<double> scales;
  std::vector<std::int64_t> sizes;
};

// Linear weights are fixed point with kResizeWeightBits fraction bits per axis: the two weights of an axis,
// round(w · 2^F) and 2^F minus it, sum to 2^F exactly, so an output's weights sum to 2^(F · rank).
inline constexpr int kResizeWeightBits = 10;
// A linear resize's weights over all axes must stay below 2^62.
inline constexpr std::int64_t kMaxResizeRank = 6;

// The output extents of `form` on an input of `input` extents, or why they do not fit: scales or sizes of another
// length than the rank, a scale not finite or ≤ 0, an output extent < 1, a linear resize of rank above
// kMaxResizeRank. `label` names the operator.
std::optional<std::string> resize_violation(const ResizeForm& form, const std::vector<std::int64_t>& input,
                                            const std::string& label);
std::vector<std::int64_t> resized_shape(const ResizeForm& form, const std::vector<std::int64_t>& input);

// The taps of every output element in row-major order: output o reads sources[first[o] … first[o + 1]) with the
// real weights `weights` (the float reference) and the integer weights `fixed` (summing to 2^shift); a nearest
// resize has one tap of weight 1 per output (shift 0). Linear: per axis the two neighbours floor(x) and
// floor(x) + 1 of the input coordinate x clamped to [0, in − 1] (ONNX Runtime's rule), the upper one dropped where
// its real weight is 0; an output's taps are the products over the axes.
struct ResizeTaps {
  std::vector<std::int64_t> first;
  std::vector<std::int64_t> sources;
  std::vector<double> weights;
  std::vector<std::int64_t> fixed;
  int shift = 0;
  std::int64_t outputs() const { return std::int64_t(first.size()) - 1; }
};
ResizeTaps resize_taps(const ResizeForm& form, const std::vector<std::int64_t>& input);

// The float reference: Σ weight · x over each output's taps.
std::vector<double> resized_reals(const ResizeTaps& taps, const std::vector<double>& x);
// The integer rule (docs/quantization.md, "Resize"): saturate(round_shift(Σ fixed · x, shift)) at the input's scale.
std::vector<std::int64_t> resized_integers(const ResizeTaps& taps, const std::vector<std::int64_t>& x,
                                           int data_width);

}  // namespace maeri::contracts
