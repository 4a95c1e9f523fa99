// Resize's sources and weights (contracts/resize.hpp) against the expected outputs ONNX's operator definition lists
// for its test cases (onnx/onnx docs/Operators.md, Resize: resize_upsample_scales_linear,
// resize_upsample_scales_linear_align_corners, resize_downsample_scales_linear, resize_upsample_scales_nearest,
// resize_downsample_scales_nearest), the integer rule's rounding worked out by hand, and the shape rule's messages.
#include <catch2/catch.hpp>

#include <cstdint>

#include "contracts/network.hpp"

using namespace maeri::contracts;

namespace {

std::vector<double> resized(const ResizeForm& form, const std::vector<std::int64_t>& shape, std::vector<double> x) {
  return resized_reals(resize_taps(form, shape), x);
}

ResizeForm form_of(ResizeMode mode, CoordinateMode coordinates, std::vector<double> scales) {
  ResizeForm form;
  form.mode = mode;
  form.coordinates = coordinates;
  form.scales = std::move(scales);
  return form;
}

}  // namespace

TEST_CASE("resize: ONNX's linear test cases", "[contracts][resize]") {
  const std::vector<double> square{1, 2, 3, 4};
  SECTION("upsample ×2, half_pixel (resize_upsample_scales_linear)") {
    const auto out = resized(form_of(ResizeMode::Linear, CoordinateMode::HalfPixel, {1, 1, 2, 2}), {1, 1, 2, 2}, square);
    const std::vector<double> expected{1.0, 1.25, 1.75, 2.0, 1.5, 1.75, 2.25, 2.5,
                                       2.5, 2.75, 3.25, 3.5, 3.0, 3.25, 3.75, 4.0};
    REQUIRE(out.size() == expected.size());
    for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == Approx(expected[i]));
  }
  SECTION("upsample ×2, align_corners") {
    const auto out = resized(form_of(ResizeMode::Linear, CoordinateMode::AlignCorners, {1, 1, 2, 2}), {1, 1, 2, 2}, square);
    const std::vector<double> expected{1, 4 / 3.0, 5 / 3.0, 2, 5 / 3.0, 2, 7 / 3.0, 8 / 3.0,
                                       7 / 3.0, 8 / 3.0, 3, 10 / 3.0, 3, 10 / 3.0, 11 / 3.0, 4};
    REQUIRE(out.size() == expected.size());
    for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == Approx(expected[i]));
  }
  SECTION("downsample ×0.6, half_pixel (resize_downsample_scales_linear): 2×4 → 1×2") {
    const ResizeForm form = form_of(ResizeMode::Linear, CoordinateMode::HalfPixel, {1, 1, 0.6, 0.6});
    CHECK(resized_shape(form, {1, 1, 2, 4}) == std::vector<std::int64_t>{1, 1, 1, 2});
    const auto out = resized(form, {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
    CHECK(out[0] == Approx(2.6666665));
    CHECK(out[1] == Approx(4.3333331));
  }
}

TEST_CASE("resize: ONNX's nearest test cases", "[contracts][resize]") {
  SECTION("upsample 2×3, asymmetric, floor (Upsample's rule; resize_upsample_scales_nearest)") {
    ResizeForm form = form_of(ResizeMode::Nearest, CoordinateMode::Asymmetric, {1, 1, 2, 3});
    form.nearest = NearestRounding::Floor;
    CHECK(resized(form, {1, 1, 2, 2}, {1, 2, 3, 4}) ==
          std::vector<double>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
  }
  SECTION("downsample ×0.6, half_pixel, round_prefer_floor (resize_downsample_scales_nearest)") {
    // Row (0 + 0.5) / 0.6 − 0.5 = 0.33 → 0; columns 0.33 → 0 and 2.0 → 2.
    const ResizeForm form = form_of(ResizeMode::Nearest, CoordinateMode::HalfPixel, {1, 1, 0.6, 0.6});
    CHECK(resized(form, {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}) == std::vector<double>{1, 3});
  }
  SECTION("tf_half_pixel_for_nn (tf2onnx's nearest resize), floor: the coordinate (x + 0.5) / s, no − 0.5") {
    // 5 → 3 at scale 0.6: (0.5, 1.5, 2.5) / 0.6 = 0.83, 2.5, 4.17 → 0, 2, 4 (asymmetric gives 0, 1, 3;
    // half_pixel 0, 2, 3).
    ResizeForm form = form_of(ResizeMode::Nearest, CoordinateMode::TfHalfPixelForNn, {0.6});
    form.nearest = NearestRounding::Floor;
    CHECK(resized(form, {5}, {10, 11, 12, 13, 14}) == std::vector<double>{10, 12, 14});
  }
  SECTION("a tie at .5: round_prefer_floor takes the lower index, round_prefer_ceil the upper") {
    // 2 → 1 by sizes: scale 0.5, output 0 at (0 + 0.5) / 0.5 − 0.5 = 0.5.
    ResizeForm form;
    form.sizes = {1};
    CHECK(resized(form, {2}, {10, 20}) == std::vector<double>{10});
    form.nearest = NearestRounding::RoundPreferCeil;
    CHECK(resized(form, {2}, {10, 20}) == std::vector<double>{20});
  }
}

TEST_CASE("resize: the integer rule rounds once, with weights that sum to 2^10 per axis", "[contracts][resize]") {
  // [0, 300] to 4 with align_corners: coordinates 0, 1/3, 2/3, 1. Weights round(1024/3) = 341 (lower 683) and
  // round(2048/3) = 683 (lower 341): 341 · 300 / 1024 = 99.90 → 100, 683 · 300 / 1024 = 200.10 → 200.
  const ResizeForm form = form_of(ResizeMode::Linear, CoordinateMode::AlignCorners, {2});
  const ResizeTaps taps = resize_taps(form, {2});
  CHECK(taps.shift == 10);
  CHECK(resized_integers(taps, {0, 300}, 16) == std::vector<std::int64_t>{0, 100, 200, 300});
  // A constant stays constant at the saturation limit (the weights sum to exactly 2^20 on two axes).
  const ResizeTaps square = resize_taps(form_of(ResizeMode::Linear, CoordinateMode::HalfPixel, {1.7, 2.3}), {3, 3});
  CHECK(resized_integers(square, std::vector<std::int64_t>(9, 32767), 16) == std::vector<std::int64_t>(5 * 6, 32767));
}

TEST_CASE("resize: the shape rule names what does not fit", "[contracts][resize]") {
  ResizeForm form;
  CHECK(resize_violation(form, {1, 2}, "resize 'r'") == std::string("resize 'r': resize gives neither scales nor sizes"));
  form.scales = {1, 2, 3};
  CHECK(resize_violation(form, {1, 2}, "resize 'r'") == std::string("resize 'r': 3 scales for an input of rank 2"));
  form.scales = {1, 0.1};
  CHECK(resize_violation(form, {1, 2}, "resize 'r'") ==
        std::string("resize 'r': output extent 0 along axis 1 is not in [1, 16777216]"));
  form.scales = {1, -2};
  CHECK(resize_violation(form, {1, 2}, "resize 'r'") == std::string("resize 'r': resize scale -2 is not > 0"));
}
