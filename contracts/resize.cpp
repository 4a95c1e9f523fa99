// Resize's index and weight rule (contracts/resize.hpp): ONNX's coordinate transformation, nearest rounding and
// linear neighbours, as ONNX Runtime computes them (onnxruntime/core/providers/cpu/tensor/upsample.cc).
#include "contracts/resize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "contracts/quantized_network.hpp"

namespace maeri::contracts {

namespace {

constexpr std::array<const char*, 2> kModes{"nearest", "linear"};
constexpr std::array<const char*, 5> kCoordinates{"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                                  "tf_half_pixel_for_nn"};
constexpr std::array<const char*, 4> kRoundings{"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

template <typename Enum, std::size_t N>
std::optional<Enum> named(const std::array<const char*, N>& names, const std::string& name) {
  for (std::size_t i = 0; i < N; ++i)
    if (name == names[i]) return Enum(i);
  return std::nullopt;
}

double scale_of(const ResizeForm& form, const std::vector<std::int64_t>& input, std::size_t d) {
  return form.scales.empty() ? double(form.sizes[d]) / double(input[d]) : form.scales[d];
}

// The input coordinate of output coordinate x along axis d (ONNX's coordinate_transformation_mode).
double input_coordinate(const ResizeForm& form, std::int64_t in, std::int64_t out, double scale, std::int64_t x) {
  switch (form.coordinates) {
    case CoordinateMode::HalfPixel: return (double(x) + 0.5) / scale - 0.5;
    case CoordinateMode::PytorchHalfPixel: return out > 1 ? (double(x) + 0.5) / scale - 0.5 : 0.0;
    case CoordinateMode::AlignCorners: return out == 1 ? 0.0 : double(x) * double(in - 1) / double(out - 1);
    case CoordinateMode::Asymmetric: return double(x) / scale;
    case CoordinateMode::TfHalfPixelForNn: return (double(x) + 0.5) / scale;
  }
  return 0;
}

std::int64_t nearest_index(NearestRounding rounding, double coordinate) {
  const double floor = std::floor(coordinate);
  switch (rounding) {
    case NearestRounding::RoundPreferFloor: return std::int64_t(coordinate - floor == 0.5 ? floor : std::round(coordinate));
    case NearestRounding::RoundPreferCeil:
      return std::int64_t(coordinate - floor == 0.5 ? floor + 1 : std::round(coordinate));
    case NearestRounding::Floor: return std::int64_t(floor);
    case NearestRounding::Ceil: return std::int64_t(std::ceil(coordinate));
  }
  return 0;
}

// One axis's taps of one output coordinate: (input index, real weight, fixed weight).
struct AxisTap {
  std::int64_t index;
  double weight;
  std::int64_t fixed;
};

std::vector<AxisTap> axis_taps(const ResizeForm& form, std::int64_t in, std::int64_t out, double scale,
                               std::int64_t x) {
  const double coordinate = input_coordinate(form, in, out, scale, x);
  if (form.mode == ResizeMode::Nearest) {
    const std::int64_t index = std::clamp<std::int64_t>(nearest_index(form.nearest, coordinate), 0, in - 1);
    return {{index, 1.0, 1}};
  }
  const std::int64_t one = std::int64_t(1) << kResizeWeightBits;
  const double clamped = std::clamp(coordinate, 0.0, double(in - 1));
  const std::int64_t lower = std::min(std::int64_t(clamped), in - 1);
  const double upper_weight = clamped - double(lower);
  if (upper_weight == 0 || lower + 1 >= in) return {{lower, 1.0, one}};
  const std::int64_t upper_fixed = std::llround(upper_weight * double(one));
  return {{lower, 1.0 - upper_weight, one - upper_fixed}, {lower + 1, upper_weight, upper_fixed}};
}

}  // namespace

const char* to_string(ResizeMode mode) { return kModes[std::size_t(mode)]; }
const char* to_string(CoordinateMode mode) { return kCoordinates[std::size_t(mode)]; }
const char* to_string(NearestRounding rounding) { return kRoundings[std::size_t(rounding)]; }
std::optional<ResizeMode> resize_mode_named(const std::string& name) { return named<ResizeMode>(kModes, name); }
std::optional<CoordinateMode> coordinate_mode_named(const std::string& name) {
  return named<CoordinateMode>(kCoordinates, name);
}
std::optional<NearestRounding> nearest_rounding_named(const std::string& name) {
  return named<NearestRounding>(kRoundings, name);
}

std::optional<std::string> resize_violation(const ResizeForm& form, const std::vector<std::int64_t>& input,
                                            const std::string& label) {
  const std::size_t rank = input.size();
  if (form.scales.empty() && form.sizes.empty()) return label + ": resize gives neither scales nor sizes";
  if (!form.scales.empty() && form.scales.size() != rank)
    return fmt::format("{}: {} scales for an input of rank {}", label, form.scales.size(), rank);
  if (!form.sizes.empty() && form.sizes.size() != rank)
    return fmt::format("{}: {} sizes for an input of rank {}", label, form.sizes.size(), rank);
  for (double scale : form.scales)
    if (!std::isfinite(scale) || scale <= 0) return fmt::format("{}: resize scale {} is not > 0", label, scale);
  for (std::size_t d = 0; d < rank; ++d)
    if (input[d] < 1) return fmt::format("{}: an input extent of {} along axis {}", label, input[d], d);
  for (std::size_t d = 0; d < rank; ++d) {
    const double extent = form.sizes.empty() ? std::floor(double(input[d]) * form.scales[d]) : double(form.sizes[d]);
    if (extent < 1 || extent > double(kMaxLayerDimension))
      return fmt::format("{}: output extent {} along axis {} is not in [1, {}]", label, extent, d, kMaxLayerDimension);
  }
  if (form.mode == ResizeMode::Linear && std::int64_t(rank) > kMaxResizeRank)
    return fmt::format("{}: a linear resize of rank {} (at most {})", label, rank, kMaxResizeRank);
  return std::nullopt;
}

std::vector<std::int64_t> resized_shape(const ResizeForm& form, const std::vector<std::int64_t>& input) {
  std::vector<std::int64_t> out;
  for (std::size_t d = 0; d < input.size(); ++d)
    out.push_back(form.sizes.empty() ? std::int64_t(std::floor(double(input[d]) * form.scales[d])) : form.sizes[d]);
  return out;
}

ResizeTaps resize_taps(const ResizeForm& form, const std::vector<std::int64_t>& input) {
  const std::vector<std::int64_t> output = resized_shape(form, input);
  const std::size_t rank = input.size();
  std::vector<std::vector<std::vector<AxisTap>>> per_axis(rank);  // [axis][output coordinate]
  for (std::size_t d = 0; d < rank; ++d)
    for (std::int64_t x = 0; x < output[d]; ++x)
      per_axis[d].push_back(axis_taps(form, input[d], output[d], scale_of(form, input, d), x));
  ResizeTaps taps;
  taps.shift = form.mode == ResizeMode::Linear ? kResizeWeightBits * int(rank) : 0;
  taps.first.push_back(0);
  std::vector<std::int64_t> coordinate(rank, 0);
  std::int64_t count = 1;
  for (std::int64_t extent : output) count *= extent;
  for (std::int64_t o = 0; o < count; ++o) {
    // The products over the axes, the last axis fastest.
    std::vector<AxisTap> combined{{0, 1.0, 1}};
    for (std::size_t d = 0; d < rank; ++d) {
      std::vector<AxisTap> next;
      for (const AxisTap& partial : combined)
        for (const AxisTap& tap : per_axis[d][std::size_t(coordinate[d])])
          next.push_back({partial.index * input[d] + tap.index, partial.weight * tap.weight, partial.fixed * tap.fixed});
      combined = std::move(next);
    }
    for (const AxisTap& tap : combined) {
      taps.sources.push_back(tap.index);
      taps.weights.push_back(tap.weight);
      taps.fixed.push_back(tap.fixed);
    }
    taps.first.push_back(std::int64_t(taps.sources.size()));
    for (std::size_t d = rank; d-- > 0;) {
      if (++coordinate[d] < output[d]) break;
      coordinate[d] = 0;
    }
  }
  return taps;
}

std::vector<double> resized_reals(const ResizeTaps& taps, const std::vector<double>& x) {
  std::vector<double> out;
  out.reserve(std::size_t(taps.outputs()));
  for (std::int64_t o = 0; o < taps.outputs(); ++o) {
    double sum = 0;
    for (std::int64_t t = taps.first[std::size_t(o)]; t < taps.first[std::size_t(o) + 1]; ++t)
      sum += taps.weights[std::size_t(t)] * x[std::size_t(taps.sources[std::size_t(t)])];
    out.push_back(sum);
  }
  return out;
}

std::vector<std::int64_t> resized_integers(const ResizeTaps& taps, const std::vector<std::int64_t>& x,
                                           int data_width) {
  std::vector<std::int64_t> out;
  out.reserve(std::size_t(taps.outputs()));
  for (std::int64_t o = 0; o < taps.outputs(); ++o) {
    WideInt sum = 0;
    for (std::int64_t t = taps.first[std::size_t(o)]; t < taps.first[std::size_t(o) + 1]; ++t)
      sum += WideInt(taps.fixed[std::size_t(t)]) * x[std::size_t(taps.sources[std::size_t(t)])];
    out.push_back(saturate(round_shift(sum, taps.shift), data_width));
  }
  return out;
}

}  // namespace maeri::contracts
