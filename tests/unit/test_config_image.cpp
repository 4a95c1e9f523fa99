// Configuration images: encode/decode, hex and program round trips on many random layers and mappings, the
// loop program reproducing the planned phases and steps (so the functional model runs from the image), and one
// test per kind of bad input (truncated, wrong magic, unsupported version, CRC mismatch, other hardware, …).
#include <catch2/catch.hpp>

#include <functional>
#include <random>

#include "codegen/functional_model.hpp"
#include "codegen/image_program.hpp"
#include "mapper_fixtures.hpp"

using namespace maeri;
using maeri::test::conv_layer;
using maeri::test::small_hardware;

namespace {

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const codegen::ImageError& error) {
    return error.what();
  }
  return "no error";
}

bool same_phases(const codegen::LayerProgram& a, const codegen::LayerProgram& b) {
  if (a.phases.size() != b.phases.size()) return false;
  for (size_t p = 0; p < a.phases.size(); ++p) {
    const auto &x = a.phases[p], &y = b.phases[p];
    if (x.configuration != y.configuration || x.r0 != y.r0 || x.s0 != y.s0 || x.c0 != y.c0 || x.k0 != y.k0 ||
        x.accumulate != y.accumulate || x.steps.size() != y.steps.size())
      return false;
    for (size_t s = 0; s < x.steps.size(); ++s)
      if (x.steps[s].n0 != y.steps[s].n0 || x.steps[s].x0 != y.steps[s].x0 || x.steps[s].y0 != y.steps[s].y0 ||
          x.steps[s].forward != y.steps[s].forward)
        return false;
  }
  return true;
}

// A 3x3 conv with ragged edges in R, C and K on 32 MS: eight phase shapes, so eight configurations.
struct Example {
  contracts::Layer layer = conv_layer(5, 3, 3, 3, 6, 6, 1, 1);
  contracts::Hardware hardware = small_hardware(32, 4, 2);
  contracts::Mapping tile;
  codegen::LayerProgram program;
  codegen::ConfigImage image;
  std::vector<std::uint8_t> bytes;
  Example() {
    tile.tile.size = {2, 3, 2, 2, 1, 1, 1};
    program = codegen::plan_layer(layer, hardware, tile);
    image = codegen::build_image(program, hardware);
    bytes = codegen::encode_image(image);
  }
};

}  // namespace

TEST_CASE("image: ragged R, C, K give one configuration per phase shape and a loop program", "[codegen][image]") {
  const Example example;
  // R = 3 by 2 -> 2 + 1; C = 3 by 2 -> 2 + 1; K = 5 by 2 -> 2 + 2 + 1: shapes (2|1) x (2|1) x (2|1) = 8.
  CHECK(example.image.configurations.size() == 8);
  // Phases: 2 (R) x 1 (S) x 2 (C) x 3 (K) = 12, each with X' x Y' = 36 steps.
  CHECK(example.program.phases.size() == 12);
  CHECK(example.program.phases.front().steps.size() == 36);
  // The program holds loops, not phases: far fewer instructions than 12 x 3.
  CHECK(example.image.program.size() < 12 * 3 * 3);
  const std::string text = codegen::disassemble(example.image);
  CHECK(text.find("FOR r0 = 0 .. 0 step 2") != std::string::npos);
  CHECK(text.find("FOR k0 = 4 .. 4 step 2") != std::string::npos);
  CHECK(text.find("STREAM") != std::string::npos);
}

TEST_CASE("image: encode/decode, readmemh and program expansion round-trip on 150 random mappings",
          "[codegen][image]") {
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 150; ++trial) {
    const int num_ms = 8 << (rng() % 4);
    const contracts::Hardware hardware = small_hardware(num_ms, std::min(num_ms, 1 << (rng() % 4)), 2);
    const int r = 1 + int(rng() % 3), s = 1 + int(rng() % 3);
    const contracts::Layer layer = conv_layer(1 + int(rng() % 6), 1 + int(rng() % 6), r, s, r + int(rng() % 5),
                                           s + int(rng() % 5), 1 + int(rng() % 2), int(rng() % 2), 1 + int(rng() % 2));
    contracts::Mapping tile;
    const auto extents = contracts::layer_extents(layer);
    do {
      for (int d = 0; d < contracts::kNumTileDims; ++d) tile[d] = 1 + std::int64_t(rng() % uint64_t(extents[size_t(d)]));
    } while (contracts::mapping_violation(layer, hardware, tile));
    if (trial % 3 == 0) tile.phase_order = contracts::PhaseOrder::FiltersOuter;  // a version 5 image
    INFO("trial " << trial << " tile " << contracts::to_string(tile));
    const codegen::LayerProgram planned = codegen::plan_layer(layer, hardware, tile);
    const codegen::ConfigImage image = codegen::build_image(planned, hardware);
    const std::vector<std::uint8_t> bytes = codegen::encode_image(image);
    REQUIRE(codegen::decode_image(bytes, "image") == image);
    REQUIRE(codegen::from_readmemh(codegen::to_readmemh(bytes), "image.hex") == bytes);
    const codegen::LayerProgram expanded = codegen::expand_image(image, "image");
    REQUIRE(same_phases(planned, expanded));
    if (trial % 10 == 0) {  // the functional model runs from the decoded image's words and program
      const codegen::LayerTensors tensors = codegen::random_tensors(layer, hardware.data_width, rng());
      const auto decoded = codegen::expand_image(codegen::decode_image(bytes, "image"), "image");
      CHECK(codegen::execute_layer(decoded, hardware, tensors).output ==
            codegen::reference_convolution(layer, tensors, hardware.acc_width));
    }
  }
}

TEST_CASE("image errors: truncated file", "[codegen][image][errors]") {
  Example example;
  example.bytes.resize(example.bytes.size() - 3);
  CHECK(error_of([&] { codegen::decode_image(example.bytes, "t.mimg"); }) ==
        "t.mimg: truncated or padded: the header says " + std::to_string(example.bytes.size() + 3) +
            " bytes, the file has " + std::to_string(example.bytes.size()));
  const std::vector<std::uint8_t> first_ten_bytes(example.bytes.begin(), example.bytes.begin() + 10);
  CHECK(error_of([&] { codegen::decode_image(first_ten_bytes, "t.mimg"); }) ==
        "t.mimg: truncated: the reserved header field needs bytes 10..11 but the image ends at byte 10");
}

TEST_CASE("image errors: wrong magic", "[codegen][image][errors]") {
  Example example;
  example.bytes[0] = 'X';
  CHECK(error_of([&] { codegen::decode_image(example.bytes, "m.mimg"); }) ==
        "m.mimg: not a MAERI configuration image (the file does not start with 'MAERIIMG')");
}

TEST_CASE("image errors: unsupported format version", "[codegen][image][errors]") {
  Example example;
  example.bytes[8] = 8;
  CHECK(error_of([&] { codegen::decode_image(example.bytes, "v.mimg"); }) ==
        "v.mimg: unsupported image format version 8 (this build reads versions 3 to 7)");
}

TEST_CASE("image errors: CRC mismatch", "[codegen][image][errors]") {
  Example example;
  example.bytes[example.bytes.size() / 2] ^= 0x10;
  CHECK(error_of([&] { codegen::decode_image(example.bytes, "c.mimg"); }).rfind("c.mimg: CRC mismatch: ", 0) == 0);
}

TEST_CASE("image errors: built for other hardware", "[codegen][image][errors]") {
  const Example example;
  contracts::Hardware other = small_hardware(16, 4, 4);
  other.name = "smaller";
  CHECK(error_of([&] { codegen::check_image_matches(example.image, other, "h.mimg"); }) ==
        "h.mimg: built for hardware 'test', not for 'smaller': num_ms 32 (image) vs 16 (hardware), "
        "rn_bw 2 (image) vs 4 (hardware)");
  CHECK(error_of([&] { codegen::check_image_matches(example.image, example.hardware, "h.mimg"); }) == "no error");
}

TEST_CASE("image errors: malformed programs and hex files", "[codegen][image][errors]") {
  Example example;
  codegen::ConfigImage image = example.image;
  image.program.insert(image.program.begin(), {codegen::Opcode::Configure, {99, 0, 0, 0}});
  CHECK(error_of([&] { codegen::expand_image(image, "p.mimg"); }) ==
        "p.mimg: program instruction 0: CONFIGURE 99 but the image holds 8 configurations");
  image = example.image;
  image.program.pop_back();  // no END
  CHECK(error_of([&] { codegen::expand_image(image, "p.mimg"); }) == "p.mimg: the program has no END");
  image = example.image;
  image.program.insert(image.program.begin(), {codegen::Opcode::Stream, {}});
  CHECK(error_of([&] { codegen::expand_image(image, "p.mimg"); }) ==
        "p.mimg: program instruction 0: STREAM before LOAD_WEIGHTS");
  CHECK(error_of([&] { codegen::from_readmemh("0000zz00\n", "x.hex"); }) ==
        "x.hex:1: expected 8 hex digits, found '0000zz00'");
}

TEST_CASE("image errors: a phase shape that breaks Eq. 1 (found by fuzzing)", "[codegen][image][errors]") {
  Example example;
  codegen::ConfigImage image = example.image;
  image.configurations[0].shape.t_k = 40000;  // 2x3x2 x 40000 VNs on 32 MS; the disassembler's int products overflowed
  // Rejected by the semantic validation (docs/config-image.md "Validation", check 4) before anything multiplies
  // the sizes; byte 123 is configuration[0].shape.t_K in this example's layout (tests/unit/image_bytes.cpp).
  CHECK(error_of([&] { codegen::decode_image(codegen::encode_image(image), "s.mimg"); }) ==
        "s.mimg: byte 143: configuration[0].shape.t_K is 40000, expected 1..2 (tile T_K)");
  image.configurations[0].shape.t_k = 0;
  CHECK(error_of([&] { codegen::decode_image(codegen::encode_image(image), "s.mimg"); }) ==
        "s.mimg: byte 143: configuration[0].shape.t_K is 0, expected 1..2 (tile T_K)");
}

TEST_CASE("image JSON: names that are not UTF-8 are replaced, not fatal (found by fuzzing)", "[codegen][image]") {
  Example example;
  example.image.layer.name = "conv\xff";
  CHECK_THAT(codegen::to_json(example.image), Catch::Contains("\"name\": \"conv\xef\xbf\xbd\""));
}
