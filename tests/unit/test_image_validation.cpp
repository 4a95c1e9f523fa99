// Semantic validation of configuration images (codegen/image_validation.hpp, docs/config-image.md "Validation"):
// a valid image from the codegen API has single fields corrupted — in the encoded bytes with the CRC recomputed,
// or in the ConfigImage before encoding — and decoding must throw ImageError naming the field and its byte
// offset, the offset taken from the documented layout (tests/unit/image_bytes.hpp), not from the decoder. A
// mutation sweep then sets every byte and every field to edge values: decoding either throws ImageError or gives
// an image whose expansion and functional model do exactly the work the validator computed, within the limits.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <functional>
#include <optional>

#include "codegen/functional_model.hpp"
#include "codegen/image_program.hpp"
#include "codegen/image_validation.hpp"
#include "image_bytes.hpp"
#include "mapper_fixtures.hpp"
#include "util/utf8_text.hpp"

using namespace maeri;
using maeri::test::conv_layer;
using maeri::test::small_hardware;

namespace {

// The image of tests/unit/test_config_image.cpp: a 3x3 conv (K=5, C=3, X=Y=6, padding 1) on 32 MS with ragged
// R, C and K tiles, so eight configurations and a program with full and edge loops:
//   0 FOR r0 = 0 (1 iteration, step 2)   1 FOR s0 (1, step 3)   2 FOR c0 (1, step 2)   3 FOR k0 = 0 (2, step 2)
//   4 CONFIGURE 0   5 LOAD_WEIGHTS   6 STREAM   7 END_FOR   8 FOR k0 = 4 (1) …
struct Example {
  contracts::Layer layer = conv_layer(5, 3, 3, 3, 6, 6, 1, 1);
  contracts::Hardware hardware = small_hardware(32, 4, 2);
  contracts::Mapping tile;
  codegen::ConfigImage image;
  std::vector<std::uint8_t> bytes;
  Example() {
    tile.tile.size = {2, 3, 2, 2, 1, 1, 1};
    image = codegen::build_image(codegen::plan_layer(layer, hardware, tile), hardware);
    bytes = codegen::encode_image(image);
  }
};

// The ImageError message of decoding `bytes` ("no error" if it decodes; other exceptions propagate and fail).
std::string decode_error(const std::vector<std::uint8_t>& bytes) {
  try {
    codegen::decode_image(bytes, "x.mimg");
  } catch (const codegen::ImageError& error) {
    return error.what();
  }
  return "no error";
}

std::size_t offset_of(const std::vector<std::uint8_t>& bytes, const std::string& field) {
  const auto found = test::find_image_field(bytes, field);
  if (!found) FAIL("no field " << field << " in the example image");
  return found->offset;
}

struct FieldCorruption {
  const char* field;       // the field set to `value` (names of image_bytes.hpp)
  std::uint64_t value;
  const char* message;     // what the error says after "x.mimg: byte <offset>: "
  const char* reported_at; // the field whose offset the error names, when not `field`
};

// Expected messages are written from the rules of docs/config-image.md with the example's numbers: num_ms 32,
// dn_bw 4, rn_bw 2, data 16, acc 32; K=5 C=3 R=S=3 X=Y=6 stride 1 padding 1; tile (2,3,2,2,1,1,1); configuration
// 0 has shape (2,3,2,2,1,1,1) = 2 VNs of 12 with MN forwarding. Configuration bits (docs/config-bits.md): MS i at 2i,
// adder a at 64 + 6a, vn_count at 250 (6 bits), collector entry k at 256 + 6k; 448 bits = 7 words of 64.
const FieldCorruption kCorruptions[] = {
    {"hardware.num_ms", 48, "hardware.num_ms is 48, expected a power of two between 2 and 65536", nullptr},
    {"hardware.num_ms", 131072, "hardware.num_ms is 131072, expected a power of two between 2 and 65536", nullptr},
    {"hardware.num_ms", 1, "hardware.num_ms is 1, expected a power of two between 2 and 65536", nullptr},
    {"hardware.dn_bw", 0, "hardware.dn_bw is 0, expected a power of two between 1 and num_ms = 32", nullptr},
    {"hardware.dn_bw", 64, "hardware.dn_bw is 64, expected a power of two between 1 and num_ms = 32", nullptr},
    {"hardware.rn_bw", 3, "hardware.rn_bw is 3, expected a power of two between 1 and num_ms = 32", nullptr},
    {"hardware.config_bw", 8, "hardware.config_bw is 8, expected a power of two between 16 and 512", nullptr},
    {"hardware.config_bw", 48, "hardware.config_bw is 48, expected a power of two between 16 and 512", nullptr},
    {"hardware.config_bw", 1024, "hardware.config_bw is 1024, expected a power of two between 16 and 512", nullptr},
    {"hardware.data_width", 1, "hardware.data_width is 1, expected 2..32", nullptr},
    {"hardware.data_width", 33, "hardware.data_width is 33, expected 2..32", nullptr},
    {"hardware.acc_width", 8, "hardware.acc_width is 8, expected data_width (16)..64", nullptr},
    {"hardware.acc_width", 65, "hardware.acc_width is 65, expected data_width (16)..64", nullptr},
    {"hardware.name[0]", 0xff, "hardware.name is not valid UTF-8", "hardware.name.length"},
    {"layer.name[0]", 0xc0, "layer.name is not valid UTF-8", "layer.name.length"},  // 0xc0: always overlong
    {"layer.type", 3, "layer.type is 3, expected 0 (convolution), 1 (fully connected) or 2 (GEMM)", nullptr},
    {"layer.type", 1, "layer.R: a fully connected layer has R = 1, found 3", "layer.R"},
    {"layer.N", 0, "layer.N: expected an integer in [1, 4096], found 0", nullptr},
    {"layer.K", 0, "layer.K: expected an integer in [1, 16777216], found 0", nullptr},
    {"layer.stride_x", 0, "layer.stride_x: expected an integer in [1, 1024], found 0", nullptr},  // was SIGFPE in X' = (…)/stride
    {"layer.stride_y", 1025, "layer.stride_y: expected an integer in [1, 1024], found 1025", nullptr},
    {"layer.padding_x", 0xffffffff, "layer.padding_x: expected an integer in [0, 16777216], found 4294967295", nullptr},
    {"layer.dilation_y", 0, "layer.dilation_y: expected an integer in [1, 64], found 0", nullptr},
    {"layer.groups", 2, "layer.groups: expected a divisor of C = 3 and of K = 5, found 2", nullptr},
    {"layer.R", 9, "layer.R: expected (R-1)*dilation_x + 1 <= X + 2*padding_x = 8, found 9", nullptr},
    // 16777216·3·6·6 inputs: within every per-field range, beyond the tensor limit 2^27.
    {"layer.C", 1 << 24, "layer: the input tensor N·C·X·Y is 603979776, more than this build's limit of 134217728",
     "layer.N"},
    {"tile.T_K", 0, "tile: bound: T_K = 0 must be between 1 and K = 5 (layer 'test')", nullptr},
    {"tile.T_K", 6, "tile: bound: T_K = 6 must be between 1 and K = 5 (layer 'test')", nullptr},
    // 2·3·2·2·1·6·1 = 144 > 32 while T_X' = 6 alone fits: blamed on the tile as a whole (its first field).
    {"tile.T_X'", 6, "tile: Eq. 1: T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' = 144", "tile.T_R"},
    {"configuration[0].shape.t_K", 0, "configuration[0].shape.t_K is 0, expected 1..2 (tile T_K)", nullptr},
    {"configuration[0].shape.t_R", 3, "configuration[0].shape.t_R is 3, expected 1..2 (tile T_R)", nullptr},
    {"configuration[0].shape.T_N", 2, "configuration[0].shape.T_N is 2, expected the tile's T_N = 1", nullptr},
    {"configuration[0].shape.T_Y'", 0, "configuration[0].shape.T_Y' is 0, expected the tile's T_Y' = 1", nullptr},
    {"configuration[0].shape.t_K", 1,
     "configuration[0].vn_count is 2, but the shape has T_G·t_K·T_N·T_X'·T_Y' = 1 VNs", "configuration[0].vn_count"},
    {"configuration[0].forwarding", 0, "configuration[0].forwarding is 0, but MN forwarding is on for this phase",
     nullptr},
    {"configuration[0].forwarding", 2, "configuration[0].forwarding is 2, expected 0 or 1", nullptr},
    {"configuration[0].vn_count", 3, "configuration[0].vn_count is 3, but the shape has T_G·t_K·T_N·T_X'·T_Y' = 2 VNs",
     nullptr},
    {"configuration[0].mult_switch[0]", 3,
     "configuration[0].mult_switch[0].take_forward is set, but multiplier switch 0 has no left neighbour", nullptr},
    {"configuration[0].adder_switch[0]", 2,
     "configuration[0].adder_switch[0] uses a forwarding link (send), but adder 0 has no link partner", nullptr},
    {"configuration[0].vn_count", 33, "configuration[0].words: vn_count 33 exceeds num_ms 32",
     "configuration[0].mult_switch[0]"},
    {"configuration[0].collector[0]", 62,
     "configuration[0].words: collector entry 0 names slot 62, beyond the last slot 61",
     "configuration[0].mult_switch[0]"},
    {"program[0].operand[0]", 5, "program[0] (FOR).register is 5, expected 0..4 (r0, s0, c0, k0, g0)", nullptr},
    {"program[1].operand[0]", 0, "program[1] (FOR).register: r0 is already the register of an enclosing FOR",
     "program[1].operand[0]"},
    {"program[0].operand[2]", 0, "program[0] (FOR).count is 0, expected at least 1", nullptr},
    {"program[0].operand[3]", 0, "program[0] (FOR).step is 0, expected at least 1", nullptr},
    // 0 + (2^32 − 2)·2 — the loop that used to run for 2^32 iterations.
    {"program[0].operand[2]", 0xffffffff,
     "program[0] (FOR): r0 = 0 + (4294967295 − 1)·2 = 8589934588 reaches past the layer's R = 3",
     "program[0].operand[1]"},
    {"program[4].operand[0]", 99, "program[4] (CONFIGURE).configuration is 99, but the image holds 8 configurations",
     nullptr},
    {"program[7].opcode", 0, "program[7] (END): END must be the last instruction", nullptr},
    // Found by playing the program: k0 runs 0, 2, 4 and the slice at 4 holds t_K = 2 filters of K = 5.
    {"program[3].operand[2]", 3, "program instruction 5: the weight slice at 4 + 2 exceeds the layer's extent 5 (K)",
     "program[5].opcode"},
    {"program[5].opcode", 5, "program instruction 5: STREAM before LOAD_WEIGHTS", nullptr},
};

std::string expected_error(const std::vector<std::uint8_t>& bytes, const std::string& field, const std::string& text) {
  return fmt::format("x.mimg: byte {}: {}", offset_of(bytes, field), text);
}

// An image whose ConfigImage was edited before encoding: the encoder writes size and CRC.
std::string error_of_edited(const std::function<void(codegen::ConfigImage&)>& edit) {
  Example example;
  edit(example.image);
  return decode_error(codegen::encode_image(example.image));
}

// The image of a layer built from its phases only (no steps are planned, so huge layers cost nothing here).
std::vector<std::uint8_t> image_bytes_of(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                         const contracts::Mapping& tile) {
  return codegen::encode_image(
      codegen::build_image(codegen::plan_layer(layer, hardware, tile, codegen::PlanDetail::PhasesOnly), hardware));
}

}  // namespace

TEST_CASE("image validation: the example image is valid and its work is what the loop nest says",
          "[codegen][image][validation]") {
  const Example example;
  REQUIRE(decode_error(example.bytes) == "no error");
  const codegen::ImageWork work = codegen::image_work(codegen::decode_image(example.bytes, "x.mimg"));
  // Phases: R tiles 2 (2+1) x S 1 x C 2 (2+1) x K 3 (2+2+1) = 12; steps per phase N x X' x Y' = 1 x 6 x 6 = 36.
  CHECK(work.weight_phases == 12);
  CHECK(work.steps_per_stream == 36);
  CHECK(work.steps == 12 * 36);
  CHECK(work.input_elements == 3 * 6 * 6);
  CHECK(work.padded_input_elements == 3 * 8 * 8);
  CHECK(work.weight_elements == 5 * 3 * 3 * 3);
  CHECK(work.output_elements == 5 * 6 * 6);
  CHECK(work.macs == 5 * 6 * 6 * 3 * 3 * 3);
  CHECK(work.configure_executions == 12);
  // Every instruction once, except that each full-tile k0 loop (2 iterations) runs its body of CONFIGURE,
  // LOAD_WEIGHTS, STREAM, END_FOR once more; there is one such loop per (R tile, C tile) = 2 x 2 = 4 of them.
  CHECK(work.executed_instructions == std::int64_t(example.image.program.size()) + 4 * 4);
}

TEST_CASE("image validation: each corrupted field is named with its byte offset (CRC recomputed)",
          "[codegen][image][validation]") {
  const Example example;
  // The program the table's rows refer to.
  REQUIRE(example.image.program[0].opcode == codegen::Opcode::For);
  REQUIRE(example.image.program[1].opcode == codegen::Opcode::For);
  REQUIRE(example.image.program[3].operand[2] == 2);
  REQUIRE(example.image.program[4].opcode == codegen::Opcode::Configure);
  REQUIRE(example.image.program[5].opcode == codegen::Opcode::LoadWeights);
  REQUIRE(example.image.program[7].opcode == codegen::Opcode::EndFor);
  for (const FieldCorruption& corruption : kCorruptions) {
    INFO(corruption.field << " = " << corruption.value);
    std::vector<std::uint8_t> bytes = example.bytes;
    const auto field = test::find_image_field(bytes, corruption.field);
    REQUIRE(field);
    test::put_field(bytes, *field, corruption.value);
    test::reseal(bytes);
    // The message starts with the offset, the field and the expectation; some go on to say why.
    CHECK_THAT(decode_error(bytes),
               Catch::Matchers::StartsWith(expected_error(
                   example.bytes, corruption.reported_at ? corruption.reported_at : corruption.field,
                   corruption.message)));
  }
  // The last instruction (END) turned into END_FOR.
  std::vector<std::uint8_t> bytes = example.bytes;
  const std::size_t last = example.image.program.size() - 1;
  const std::string last_opcode = fmt::format("program[{}].opcode", last);
  test::put_le(bytes, offset_of(bytes, last_opcode), 1, 2);
  test::reseal(bytes);
  CHECK(decode_error(bytes) ==
        expected_error(example.bytes, last_opcode,
                       fmt::format("program[{}] (END_FOR): END_FOR without an open FOR", last)));
}

TEST_CASE("image validation: counts and order, edited before encoding", "[codegen][image][validation]") {
  const Example example;
  const std::vector<std::uint8_t>& bytes = example.bytes;
  CHECK(error_of_edited([](codegen::ConfigImage& image) {
          while (image.configurations.size() < 17) image.configurations.push_back(image.configurations[0]);
        }) == expected_error(bytes, "configurations", "configurations: 17, expected 1..16"));
  CHECK(error_of_edited([](codegen::ConfigImage& image) { image.configurations.clear(); }) ==
        expected_error(bytes, "configurations", "configurations: 0, expected 1..16"));
  CHECK(error_of_edited([](codegen::ConfigImage& image) {
          image.program.insert(image.program.begin(), 1025 - image.program.size(), {codegen::Opcode::LoadWeights, {}});
        }) == expected_error(bytes, "program", "program: 1025 instructions, expected 1..1024"));
  CHECK(error_of_edited([](codegen::ConfigImage& image) {
          image.program.insert(image.program.begin(), {codegen::Opcode::LoadWeights, {}});
        }) == expected_error(bytes, "program[0].opcode", "program instruction 0: LOAD_WEIGHTS before any CONFIGURE"));
  const std::size_t last = example.image.program.size() - 1;
  CHECK(error_of_edited([](codegen::ConfigImage& image) { image.program.pop_back(); }) ==
        expected_error(bytes, fmt::format("program[{}].opcode", last - 1),
                       fmt::format("program: the last instruction is program[{}] (END_FOR), expected END", last - 1)));
  // A name that is not UTF-8 (a truncated 3-byte form): the encoder refuses to write it, and the decoder refuses it
  // in an image edited afterwards.
  Example named;
  named.image.hardware.name = "fabric\xe2\x82";
  CHECK_THROWS_WITH(codegen::encode_image(named.image),
                    Catch::StartsWith("cannot write the image: hardware.name 'fabric") &&
                        Catch::EndsWith("' is not valid UTF-8 (byte 6)"));
  named.image.hardware.name = "fabricXX";
  std::vector<std::uint8_t> edited = codegen::encode_image(named.image);
  const std::size_t name_at = offset_of(edited, "hardware.name.length") + 2;
  edited[name_at + 6] = 0xe2;
  edited[name_at + 7] = 0x82;
  test::reseal(edited);
  CHECK(decode_error(edited) == expected_error(bytes, "hardware.name.length", "hardware.name is not valid UTF-8"));
}

TEST_CASE("image validation: work limits are checked before anything is expanded", "[codegen][image][validation]") {
  contracts::Mapping ones;
  SECTION("expanded program memory: 8192 x 8192 outputs one step each") {
    // 2^26 steps of sizeof(StepOrigin) bytes plus one WeightPhase: over 2^30 bytes (if StepOrigin is 16 bytes).
    const contracts::Layer layer = conv_layer(1, 1, 1, 1, 8192, 8192);
    const auto bytes = image_bytes_of(layer, small_hardware(32, 4, 2), ones);
    const std::int64_t expanded =
        (std::int64_t{1} << 26) * std::int64_t(sizeof(codegen::StepOrigin)) + std::int64_t(sizeof(codegen::WeightPhase));
    REQUIRE(expanded > codegen::kMaxExpandedProgramBytes);
    CHECK(decode_error(bytes) ==
          expected_error(bytes, "program",
                         fmt::format("program: the memory for its 1 weight phases and 67108864 steps, in bytes, is "
                                     "{}, more than this build's limit of 1073741824 (docs/config-image.md, "
                                     "\"Validation\")",
                                     expanded)));
  }
  SECTION("fabric cycles: 2^25 steps of 512 beats each (dn_bw 1 on 512 MS)") {
    const contracts::Layer layer = conv_layer(1, 1, 1, 1, 8192, 4096);
    const auto bytes = image_bytes_of(layer, small_hardware(512, 1, 1), ones);
    // docs/config-image.md: drain = pipeline latency 2·log2 M + 3 (nominal, docs/model.md) + ⌈M/rn_bw⌉ = 533 once
    // and per CONFIGURE with its ⌈B(512) / 64⌉ = ⌈9220 / 64⌉ = 145 writes (docs/config-bits.md: 1024 + 3066 + 10 +
    // 512·10 bits); ⌈M/dn_bw⌉ = 512 per weight phase; max(⌈M/dn_bw⌉, ⌈M/rn_bw⌉, 1) = 512 per step.
    const std::int64_t cycles = 533 + (145 + 533) + 512 + (std::int64_t{1} << 25) * 512;
    CHECK(decode_error(bytes) ==
          expected_error(bytes, "program",
                         fmt::format("program: the bound on fabric cycles is {}, more than this build's limit of "
                                     "17179869184 (docs/config-image.md, \"Validation\")",
                                     cycles)));
  }
  SECTION("instructions executed: 2^24 filters one at a time") {
    // A one-filter layer's image with K and the k0 loop widened to 2^24 (planning 2^24 phases would cost 1 GB):
    // 4 FOR + 2^24 x (CONFIGURE, LOAD_WEIGHTS, STREAM, END_FOR) + 3 END_FOR + END.
    const contracts::Hardware hardware = small_hardware(32, 4, 2);
    codegen::ConfigImage image = codegen::build_image(codegen::plan_layer(conv_layer(1, 1, 1, 1, 1, 1), hardware, ones),
                                                      hardware);
    REQUIRE(image.program.size() == 12);
    REQUIRE(image.program[3].opcode == codegen::Opcode::For);
    REQUIRE(image.program[3].operand[0] == 3);  // k0
    image.layer.K = std::int64_t{1} << 24;
    image.program[3].operand[2] = std::uint32_t{1} << 24;
    const auto bytes = codegen::encode_image(image);
    CHECK(decode_error(bytes) ==
          expected_error(bytes, "program",
                         fmt::format("program: the instructions executed is {}, more than this build's limit of "
                                     "67108864 (docs/config-image.md, \"Validation\")",
                                     4 + 4 * (std::int64_t{1} << 24) + 4)));
  }
  SECTION("multiply-accumulates: K = C = 2048, 3x3, 32x32") {
    const contracts::Layer layer = conv_layer(2048, 2048, 3, 3, 32, 32, 1, 1);
    contracts::Mapping tile;
    tile.tile.size = {3, 3, 56, 1, 1, 1, 1};
    const auto bytes = image_bytes_of(layer, small_hardware(512, 4, 2), tile);
    CHECK(decode_error(bytes) ==
          expected_error(bytes, "layer.N",
                         fmt::format("layer: the multiply-accumulates N·K·(C/groups)·R·S·X'·Y' is {}, more than this "
                                     "build's limit of 4294967296 (docs/config-image.md, \"Validation\")",
                                     std::int64_t{2048} * 2048 * 9 * 32 * 32)));
  }
}

TEST_CASE("image validation: UTF-8 rules (util/utf8_text)", "[codegen][image][validation]") {
  CHECK(util::is_valid_utf8("conv1_3x3 größe ✓ 🙂"));
  CHECK(util::is_valid_utf8(""));
  CHECK_FALSE(util::is_valid_utf8("\xff"));
  CHECK_FALSE(util::is_valid_utf8("\xc0\xaf"));          // overlong '/'
  CHECK_FALSE(util::is_valid_utf8("\xed\xa0\x80"));      // surrogate U+D800
  CHECK_FALSE(util::is_valid_utf8("\xf4\x90\x80\x80"));  // U+110000
  CHECK_FALSE(util::is_valid_utf8("ab\xe2\x82"));        // truncated
  CHECK_FALSE(util::is_valid_utf8("\x80"));              // lone continuation byte
}

TEST_CASE("image JSON: names that are not UTF-8 do not throw", "[codegen][image][validation]") {
  Example example;
  example.image.layer.name = "conv\xff";  // an in-memory image: a decoded one is rejected (test above)
  const std::string json = codegen::to_json(example.image);
  CHECK(json.find("\"name\": \"conv\xef\xbf\xbd\"") != std::string::npos);  // U+FFFD
}

namespace {

// Decodes a mutant; if it is valid, checks that expansion (and, when `execute`, the functional model) does
// exactly the work the validator computed, all of it within the limits. Returns whether it decoded.
bool check_mutant(const std::vector<std::uint8_t>& bytes, bool execute) {
  codegen::ConfigImage image;
  try {
    image = codegen::decode_image(bytes, "m.mimg");
  } catch (const codegen::ImageError&) {
    return false;
  }
  const codegen::ImageWork work = codegen::image_work(image);
  CHECK(work.executed_instructions <= codegen::kMaxExecutedInstructions);
  CHECK(work.input_elements <= codegen::kMaxInMemoryTensorElements);
  CHECK(work.padded_input_elements <= codegen::kMaxInMemoryTensorElements);
  CHECK(work.weight_elements <= codegen::kMaxInMemoryTensorElements);
  CHECK(work.output_elements <= codegen::kMaxInMemoryTensorElements);
  CHECK(work.macs <= codegen::kMaxReferenceConvolutionMacs);
  CHECK(work.expanded_program_bytes <= codegen::kMaxExpandedProgramBytes);
  CHECK(work.fabric_cycles_bound <= codegen::kMaxFabricCycles);
  // Expanding and executing a mutant is only affordable in a unit test when it stays small; the limits above
  // are what bounds the rest.
  if (work.expanded_program_bytes > (std::int64_t{1} << 24) || work.input_elements > (1 << 20) ||
      work.weight_elements > (1 << 20) || work.output_elements > (1 << 20))
    return true;
  const codegen::LayerProgram program = codegen::expand_image(image, "m.mimg");
  std::int64_t steps = 0;
  for (const codegen::WeightPhase& phase : program.phases) steps += std::int64_t(phase.steps.size());
  CHECK(std::int64_t(program.phases.size()) == work.weight_phases);
  CHECK(steps == work.steps);
  if (!execute || work.steps > 20000) return true;
  contracts::Hardware hardware = small_hardware(image.hardware.num_ms, image.hardware.dn_bw, image.hardware.rn_bw);
  hardware.data_width = image.hardware.data_width;
  hardware.acc_width = image.hardware.acc_width;
  const codegen::FunctionalResult result =
      codegen::execute_layer(program, hardware, codegen::random_tensors(image.layer, hardware.data_width, 3));
  CHECK(result.activity.fires == work.steps);
  CHECK(result.activity.weight_phases == work.weight_phases);
  CHECK(std::int64_t(result.output.size()) == work.output_elements);
  return true;
}

}  // namespace

TEST_CASE("image validation: mutation sweep over every byte and every field, CRC recomputed",
          "[codegen][image][validation]") {
  const Example example;
  // Every mutant that decodes is expanded; every fourth is also executed by the functional model (most of them
  // differ from their neighbours in one switch's word, and execution is what makes the sweep take seconds).
  int decoded = 0, rejected = 0;
  // Every byte after the CRC and size fields (those are rewritten by reseal): 0, 0xff and two bit flips.
  for (std::size_t at = 20; at < example.bytes.size(); ++at) {
    const std::uint8_t original = example.bytes[at];
    for (const std::uint8_t value : {std::uint8_t(0), std::uint8_t(0xff), std::uint8_t(original ^ 0x01),
                                     std::uint8_t(original ^ 0x80)}) {
      if (value == original) continue;
      INFO("byte " << at << " = " << int(value));
      std::vector<std::uint8_t> bytes = example.bytes;
      bytes[at] = value;
      test::reseal(bytes);
      (check_mutant(bytes, decoded % 4 == 0) ? decoded : rejected) += 1;
    }
  }
  // Every field: 0, 1, its maximum, large and sign-bit values, and its neighbours.
  for (const test::ImageField& field : test::image_fields(example.bytes)) {
    const std::uint64_t original = test::get_field(example.bytes, field);
    const std::uint64_t max = test::field_max(field);
    for (const std::uint64_t value : {std::uint64_t{0}, std::uint64_t{1}, max, max / 2, max / 2 + 1, original + 1,
                                      original - 1, std::uint64_t{1} << 24, std::uint64_t{65536}}) {
      INFO(field.name << " = " << (value & max));
      std::vector<std::uint8_t> bytes = example.bytes;
      test::put_field(bytes, field, value & max);
      test::reseal(bytes);
      (check_mutant(bytes, decoded % 4 == 0) ? decoded : rejected) += 1;
    }
  }
  // Both outcomes occur (a sweep that rejects everything would test nothing of the accepted path).
  CHECK(decoded > 100);
  CHECK(rejected > 1000);
}

TEST_CASE("image validation: the limits' values", "[codegen][image][validation]") {
  // The dense layout's fields grow with M (docs/config-bits.md), so the spec's limit is the image's.
  STATIC_REQUIRE(codegen::kMaxImageMultiplierSwitches == 65536);
  // docs/config-image.md's table: 20 + 16 + 2·(2 + 65535) + 1 + 56 + 28 + 2 + 2 + 25 + (2 + 65535 + 9) + 4 +
  // 16·(14 + 2 + 1 + 4 + 3201·64) + 4 + 1024·17, where 2 + 2 = the phase order and SDM flag bytes and T_G of
  // version 6, 25 = 5·4 + 5 bytes of an SDM level, 2 + 65535 + 9 a fused member's record (version 7: its group name,
  // u16 position and members, u32 stripes, u8 flags), 14 + 2 a shape with its t_G and 3201 =
  // ⌈(2·65536 + 6·65535 + 17 + 17·65536) / 512⌉ words of the widest bus at 65536 MS.
  STATIC_REQUIRE(codegen::kMaxImageBytes == 3492346);
}

TEST_CASE("image validation: images of the largest shipped layers stay within the limits",
          "[codegen][image][validation]") {
  // The limits must admit real layers: the largest tensors, MACs and step counts of the shipped workloads
  // (VGG16 fc6: 102.8 M weights; conv1_2: 1.85 G MACs) with the mRNA baseline tile on the shipped 64-MS fabric,
  // the mapping with the most steps of the shipped examples.
  struct Case {
    contracts::Layer layer;
    contracts::Mapping tile;
  };
  contracts::Layer fc6 = test::fc_layer(4096, 25088), conv1_2 = conv_layer(64, 64, 3, 3, 224, 224, 1, 1);
  contracts::Mapping fc_tile, conv_tile;
  fc_tile.tile.size = {1, 1, 1, 64, 1, 1, 1};   // baseline (R, S, 1, min(K, 64 / (R·S)), 1, 1, 1)
  conv_tile.tile.size = {3, 3, 1, 7, 1, 1, 1};  // 64 / 9 = 7 filters
  for (const Case& c : {Case{fc6, fc_tile}, Case{conv1_2, conv_tile}}) {
    INFO(c.layer.K << "x" << c.layer.C << " tile " << contracts::to_string(c.tile));
    const auto bytes = image_bytes_of(c.layer, small_hardware(64, 16, 16), c.tile);
    REQUIRE(decode_error(bytes) == "no error");
  }
}
