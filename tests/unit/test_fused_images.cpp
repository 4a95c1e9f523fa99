// Fused groups in configuration images (format version 7, docs/config-image.md) and in the network manifest
// (docs/network-manifest.md): a member's record round-trips with every field; each field corrupted in the bytes
// (CRC recomputed) is refused with its message and the offset of docs/config-image.md's layout
// (tests/unit/image_bytes.hpp); a record whose role breaks a rule of fused groups is refused naming the rule; the
// images codegen makes of MobileNetV2's fused mapping on maeri-512 record what mapper::group_roles gives; the
// manifest's groups round-trip and disagree with an image's record by name.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <tuple>

#include "codegen/exact_traffic.hpp"
#include "codegen/functional_model.hpp"
#include "codegen/image_program.hpp"
#include "codegen/network_manifest.hpp"
#include "contracts/hardware.hpp"
#include "contracts/sdm_rules.hpp"
#include "contracts/spec_loader.hpp"
#include "importer/network_loader.hpp"
#include "mapper/model/fusion_model.hpp"
#include "mapper/search/network_fusion.hpp"
#include "flow/workload_mapping.hpp"
#include "flow/fused_images.hpp"
#include "util/input_error.hpp"
#include "image_bytes.hpp"
#include "mapper_fixtures.hpp"
#include "temp_file.hpp"

using namespace maeri;
using maeri::test::conv_layer;
using maeri::test::small_hardware;

namespace {

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
  if (!found) FAIL("no field " << field << " in the image");
  return found->offset;
}

// 32 MS with an SDM large enough for every block of these tests (the capacity rule is the mapping's, not the role's).
contracts::Hardware fused_hardware() {
  contracts::Hardware hardware = small_hardware(32, 4, 2);
  hardware.sdm_bytes = 64 * 1024;
  return hardware;
}

contracts::SdmLevel sdm_level(std::array<std::int64_t, 5> blocks, const char* order) {
  contracts::SdmLevel sdm;
  sdm.blocked = true;
  sdm.block = blocks;
  sdm.order = *contracts::parse_order(order);
  return sdm;
}

// The middle member of a group of three in 2 stripes: a 3x3 conv (K=4, C=3, X=Y=6, padding 1) on 32 MS whose SDM
// level holds all weights (B_K = K, B_C = C) and X' = 6 rows in 2 blocks of 3, the X loop outermost. Its input is
// the previous member's output, its output stays for the next member, its weights are pinned.
struct FusedExample {
  contracts::Layer layer = conv_layer(4, 3, 3, 3, 6, 6, 1, 1);
  contracts::Hardware hardware = fused_hardware();
  contracts::Mapping mapping;
  contracts::FusedMember member{"conv_a-conv_c", 1, 3, {true, true, 2, true}};
  codegen::ConfigImage image;
  std::vector<std::uint8_t> bytes;
  FusedExample() {
    layer.name = "conv_b";
    mapping.tile.size = {3, 3, 3, 1, 1, 1, 1};
    mapping.sdm = sdm_level({4, 3, 1, 3, 6}, "XKCNY");
    build();
  }
  void build() {
    image = codegen::build_image(codegen::plan_layer(layer, hardware, mapping), hardware, member);
    bytes = codegen::encode_image(image);
  }
};

// The error loading the manifest `text` gives once `from` is replaced by `to` (written to `path`), or "no error".
std::string manifest_error(std::string text, const std::string& from, const std::string& to,
                           const std::filesystem::path& path) {
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), to);
  std::ofstream(path) << text;
  try {
    codegen::load_manifest(path);
  } catch (const util::InputError& error) {
    return std::string(error.what());
  }
  return std::string("no error");
}

}  // namespace

// Writers that match their reader (issue 43): a group name of 65,536 bytes used to wrap the u16 length and write an
// image that disasm refused ("fused.flags is 0x67"). Random names of every size up to past the limit, of random
// bytes or UTF-8, in all three of an image's names: each image encode_image writes decodes to the same image, and
// what it cannot write is refused at write time with the field named.
TEST_CASE("fused image: every image encode_image writes decodes — random names and sizes",
          "[codegen][image][fusion]") {
  std::mt19937 random(43);
  const auto random_name = [&](std::size_t size) {
    std::string name;
    const int kind = int(random() % 3);  // ASCII, UTF-8 (ü, two bytes; € three), or any bytes
    while (name.size() < size) {
      if (kind == 0) name += char('a' + random() % 26);
      else if (kind == 1) name += random() % 2 ? "\xc3\xbc" : "\xe2\x82\xac";
      else name += char(random() % 256);
    }
    return name.substr(0, size);
  };
  const std::size_t sizes[] = {0, 1, 2, 80, 255, 256, 65534, 65535, 65536, 65537, 70000, 131071};
  FusedExample example;
  int written = 0, refused = 0;
  for (int trial = 0; trial < 60; ++trial) {
    FusedExample variant = example;
    const std::size_t size = trial < 12 ? sizes[trial] : sizes[random() % 12] + random() % 3;
    const std::string name = random_name(size);
    const int field = trial % 3;
    if (field == 0) variant.image.fused->group = name;
    else if (field == 1) variant.image.layer.name = name;
    else variant.image.hardware.name = name;
    INFO("trial " << trial << ": field " << field << ", " << name.size() << " bytes");
    std::vector<std::uint8_t> bytes;
    try {
      bytes = codegen::encode_image(variant.image);
    } catch (const codegen::ImageError& error) {
      ++refused;
      CHECK_THAT(error.what(), Catch::StartsWith("cannot write the image: "));
      CHECK(std::string(error.what()).size() < 500);  // the name cut to 80 bytes, each escaped as at most 4
      continue;
    }
    ++written;
    CHECK(codegen::decode_image(bytes, "random.mimg") == variant.image);
  }
  CHECK(written > 10);
  CHECK(refused > 10);
  // The name at the limit is written; one byte more is refused, naming the field and the sizes.
  FusedExample at_limit = example;
  at_limit.image.fused->group = std::string(65535, 'g');
  CHECK(codegen::decode_image(codegen::encode_image(at_limit.image), "limit.mimg").fused->group.size() == 65535);
  at_limit.image.fused->group += 'g';
  CHECK_THROWS_WITH(codegen::encode_image(at_limit.image),
                    Catch::Contains("fused.group 'gggg") &&
                        Catch::Contains("… (65536 bytes)' is 65536 bytes; an image holds names of at most 65535 bytes"));
}

TEST_CASE("fused image: every field of a member's record round-trips in format version 7", "[codegen][image][fusion]") {
  const FusedExample example;
  CHECK(test::get_le(example.bytes, 8, 2) == 7);
  const codegen::ConfigImage decoded = codegen::decode_image(example.bytes, "f.mimg");
  CHECK(decoded == example.image);
  REQUIRE(decoded.fused);
  CHECK(decoded.fused->group == "conv_a-conv_c");
  CHECK(decoded.fused->position == 1);
  CHECK(decoded.fused->members == 3);
  CHECK(decoded.fused->role.input_in_sdm);
  CHECK(decoded.fused->role.output_in_sdm);
  CHECK(decoded.fused->role.stripes == 2);
  CHECK(decoded.fused->role.weights_pinned);
  // Version 7 holds everything version 6 holds: T_G and each shape's t_G, the phase order and the SDM level.
  CHECK(test::get_le(example.bytes, offset_of(example.bytes, "tile.T_G"), 2) == 1);
  CHECK(decoded.mapping == example.mapping);
  CHECK(codegen::from_readmemh(codegen::to_readmemh(example.bytes), "f.hex") == example.bytes);
  // Each flag alone, and every flag combination a valid member can have, round-trips too.
  for (int flags = 0; flags < 8; ++flags) {
    FusedExample variant;
    variant.member.role = {(flags & 1) != 0, (flags & 2) != 0, 2, (flags & 4) != 0};
    variant.build();
    CHECK(codegen::decode_image(variant.bytes, "f.mimg").fused == variant.member);
    CHECK(test::get_le(variant.bytes, offset_of(variant.bytes, "fused.flags"), 1) == std::uint64_t(flags));
  }
  {  // Bit 3: an output over the residual shortcut's rows (stripes 1, output kept in the SDM).
    FusedExample variant;
    variant.member.role = {true, true, 1, false};
    variant.member.role.output_over_shortcut = true;
    variant.build();
    CHECK(codegen::decode_image(variant.bytes, "f.mimg").fused == variant.member);
    CHECK(test::get_le(variant.bytes, offset_of(variant.bytes, "fused.flags"), 1) == std::uint64_t(1 | 2 | 8));
  }
  // The same mapping alone is the version 4 image of before, byte for byte the image without the record.
  const codegen::ConfigImage alone =
      codegen::build_image(codegen::plan_layer(example.layer, example.hardware, example.mapping), example.hardware);
  CHECK(codegen::image_format_version(alone) == 4);
  CHECK(alone.program == example.image.program);  // an ungrouped layer's program does not change
  // The functional model runs the decoded member image like the layer alone.
  const codegen::LayerTensors tensors = codegen::random_tensors(example.layer, 16, 7);
  CHECK(codegen::execute_layer(codegen::expand_image(decoded, "f.mimg"), example.hardware, tensors).output ==
        codegen::reference_convolution(example.layer, tensors, 32));
}

TEST_CASE("fused image: JSON and the disassembler show the record and the stripe loop", "[codegen][image][fusion]") {
  const FusedExample example;
  const std::string json = codegen::to_json(example.image);
  CHECK_THAT(json, Catch::Contains("\"fused\": {\n    \"group\": \"conv_a-conv_c\",\n    \"position\": 1,\n    "
                                   "\"members\": 3,\n    \"stripes\": 2,\n    \"input_in_sdm\": true,\n    "
                                   "\"output_in_sdm\": true,\n    \"weights_pinned\": true,\n    "
                                   "\"output_over_shortcut\": false\n  }"));
  CHECK_THAT(json, Catch::Contains("\"stripe_loop\": true"));
  REQUIRE(codegen::stripe_loop(example.image) == std::size_t(0));  // FOR xb: the X loop is outermost
  const std::string text = codegen::disassemble(example.image);
  CHECK_THAT(text, Catch::Contains("   0  FOR xb = 0 .. 3 step 3   (2 iterations)   <- stripe loop: one stripe per "
                                   "iteration, then the controller yields the fabric to the next member\n"));
  CHECK(codegen::fused_member_text(example.member) ==
        "fused     member 2 of 3 of group 'conv_a-conv_c'\n"
        "          input  from the SDM (a tensor an earlier member of the group left there)\n"
        "          output kept in the SDM for the group's later members (not written to DRAM)\n"
        "          stripes 2: each iteration of the xb loop is one stripe, after which the controller yields the "
        "fabric to the next member\n"
        "          weights pinned in the SDM across the stripes (fetched from DRAM once)\n");
  const contracts::FusedMember first{"g", 0, 2, {false, false, 1, false}};
  CHECK(codegen::fused_member_text(first) ==
        "fused     member 1 of 2 of group 'g'\n"
        "          input  read from DRAM\n"
        "          output written to DRAM\n"
        "          stripes 1: the whole layer runs before the next member (shared tensors held whole)\n");
  CHECK_FALSE(codegen::stripe_loop(codegen::ConfigImage{}));
}

TEST_CASE("fused image: a grouped member in stripes runs its groups inside the stripe loop",
          "[codegen][image][fusion]") {
  // A depthwise 3x3 (8 groups) in 2 stripes: g0 goes inside xb, so one stripe covers every group.
  contracts::Layer layer = conv_layer(8, 8, 3, 3, 6, 6, 1, 1);
  layer.groups = 8;
  const contracts::Hardware hardware = fused_hardware();
  contracts::Mapping mapping;
  mapping.tile.size = {3, 3, 1, 1, 1, 1, 1};
  mapping.sdm = sdm_level({1, 1, 1, 3, 6}, "XKCNY");
  const contracts::FusedMember member{"g", 1, 2, {true, false, 2, false}};
  const codegen::LayerProgram planned = codegen::plan_layer(layer, hardware, mapping);
  const codegen::ConfigImage image = codegen::build_image(planned, hardware, member);
  const codegen::ConfigImage decoded = codegen::decode_image(codegen::encode_image(image), "dw.mimg");
  REQUIRE(decoded.program.size() > 2);
  CHECK(decoded.program[0].operand[0] == std::uint32_t(codegen::LoopRegister::XB));
  CHECK(decoded.program[1].operand[0] == std::uint32_t(codegen::LoopRegister::G0));
  CHECK(decoded.program[1].operand[2] == 8);
  // The same phases as the layer alone, in another order: the results are the same.
  const codegen::LayerProgram expanded = codegen::expand_image(decoded, "dw.mimg");
  const auto key = [](const codegen::WeightPhase& p) { return std::tie(p.group, p.block, p.r0, p.s0, p.c0, p.k0); };
  std::vector<std::tuple<int, std::array<int, 5>, int, int, int, int>> a, b;
  for (const auto& p : planned.phases) a.emplace_back(key(p));
  for (const auto& p : expanded.phases) b.emplace_back(key(p));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a == b);
  const codegen::LayerTensors tensors = codegen::random_tensors(layer, 16, 3);
  CHECK(codegen::execute_layer(expanded, hardware, tensors).output ==
        codegen::reference_convolution(layer, tensors, 32));
  // Built alone (g0 outermost) but recorded as a member in stripes: the stripe loop would not be one stripe.
  codegen::ConfigImage outer = codegen::build_image(planned, hardware);
  outer.fused = member;
  const std::vector<std::uint8_t> bytes = codegen::encode_image(outer);
  CHECK(decode_error(bytes) ==
        fmt::format("x.mimg: byte {}: program[0] (FOR): its g0 loop of 8 iterations encloses the stripe loop "
                    "program[1] (FOR) (a stripe is one iteration of the outermost loop that repeats)",
                    offset_of(bytes, "program[0].operand[2]")));
}

TEST_CASE("fused image errors: each field of the record, corrupted with the CRC recomputed",
          "[codegen][image][fusion][errors]") {
  const FusedExample example;
  struct Case {
    const char* field;
    std::uint64_t value;
    const char* message;
    const char* reported_at;
  };
  const Case cases[] = {
      {"fused.members", 1, "fused.members is 1, expected at least 2 (a group of one layer is that layer alone)",
       nullptr},
      {"fused.members", 0, "fused.members is 0, expected at least 2 (a group of one layer is that layer alone)",
       nullptr},
      {"fused.position", 3, "fused.position is 3, expected 0..2 (fused.members − 1)", nullptr},
      {"fused.position", 0xffff, "fused.position is 65535, expected 0..2 (fused.members − 1)", nullptr},
      {"fused.stripes", 0, "fused.stripes is 0, expected at least 1", nullptr},
      {"fused.flags", 0x80,
       "fused.flags is 0x80, expected only the bits input_in_sdm (0x01), output_in_sdm (0x02), weights_pinned (0x04), "
       "output_over_shortcut (0x08), weights_in_sdm (0x10), token_stripes (0x20) and query_rows (0x40)",
       nullptr},
      {"fused.flags", 0xff,
       "fused.flags is 0xff, expected only the bits input_in_sdm (0x01), output_in_sdm (0x02), weights_pinned (0x04), "
       "output_over_shortcut (0x08), weights_in_sdm (0x10), token_stripes (0x20) and query_rows (0x40)",
       nullptr},
      // Query-row stripes are a matrix product's token stripes: the flag alone is refused.
      {"fused.flags", 0x40,
       "fused.flags: query_rows is set without token_stripes (query-row stripes are a matrix product's token stripes)",
       nullptr},
      // Token stripes on a member whose N (1) is not cut into the group's 2 stripes: blamed on the stripes.
      {"fused.flags", 0x20,
       "fused: member 2 of group 'conv_a-conv_c' breaks a rule of fused groups: stripes: layer 'conv_b' has sdm.N = "
       "1, 1 blocks of its 1 tokens (N), not the group's 2 stripes",
       "fused.stripes"},
      // A matrix product's operand A from the SDM needs the group in one stripe or query-row stripes (this member
      // runs in 2 row stripes).
      {"fused.flags", 0x10,
       "fused.flags: weights_in_sdm is set, but it needs an earlier member to leave the operand A in the SDM and "
       "stripes 1 (the operand is held whole) or query_rows (a stripe of its rows is held)",
       nullptr},
      {"fused.position", 0,
       "fused.flags: input_in_sdm is set, but the group's first member has no earlier member to leave its input in "
       "the SDM",
       "fused.flags"},
      {"fused.position", 2,
       "fused.flags: output_in_sdm is set, but the group's last member has no later member to read its output",
       "fused.flags"},
      {"fused.group[0]", 0xff, "fused.group is not valid UTF-8", "fused.group.length"},
      // The member rules of docs/mapping.md, blamed on the field the rule reads.
      {"fused.stripes", 3,
       "fused: member 2 of group 'conv_a-conv_c' breaks a rule of fused groups: stripes: layer 'conv_b' has sdm.X = "
       "3, 2 blocks of its 6 output rows, not the group's 3 stripes",
       nullptr},
      {"fused.stripes", 1,
       "fused: member 2 of group 'conv_a-conv_c' breaks a rule of fused groups: pinned weights: layer 'conv_b' can "
       "pin its weights only across several stripes with all of them in one SDM block",
       "fused.flags"},
  };
  for (const Case& c : cases) {
    INFO(c.field << " = " << c.value);
    std::vector<std::uint8_t> bytes = example.bytes;
    test::put_field(bytes, *test::find_image_field(bytes, c.field), c.value);
    test::reseal(bytes);
    const std::size_t at = offset_of(example.bytes, c.reported_at ? c.reported_at : c.field);
    CHECK(decode_error(bytes) == fmt::format("x.mimg: byte {}: {}", at, c.message));
  }
  // An empty group name: the encoder refuses to write it; an image edited to one is refused by the decoder.
  FusedExample unnamed;
  unnamed.member.group.clear();
  CHECK_THROWS_WITH(unnamed.build(), "cannot write the image: fused.group is empty, expected the group's name");
  unnamed.member.group = "g";
  unnamed.build();
  const std::size_t length_at = offset_of(unnamed.bytes, "fused.group.length");
  unnamed.bytes.erase(unnamed.bytes.begin() + long(length_at + 2));  // the name's one byte
  test::put_le(unnamed.bytes, length_at, 2, 0);
  test::reseal(unnamed.bytes);
  CHECK(decode_error(unnamed.bytes) ==
        fmt::format("x.mimg: byte {}: fused.group is empty, expected the group's name", length_at));
  // Truncated inside the record.
  std::vector<std::uint8_t> cut(example.bytes.begin(),
                                example.bytes.begin() + long(offset_of(example.bytes, "fused.stripes") + 2));
  test::reseal(cut);
  CHECK_THAT(decode_error(cut), Catch::Contains("truncated: fused.stripes needs bytes"));
}

TEST_CASE("fused image errors: a role the member's mapping cannot play is refused naming the rule",
          "[codegen][image][fusion][errors]") {
  const auto error_for = [](const contracts::Layer& layer, const contracts::Mapping& mapping,
                            const contracts::FusedMember& member) {
    const contracts::Hardware hardware = fused_hardware();
    const std::vector<std::uint8_t> bytes = codegen::encode_image(
        codegen::build_image(codegen::plan_layer(layer, hardware, mapping), hardware, member));
    return std::make_pair(decode_error(bytes), bytes);
  };
  contracts::Layer layer = conv_layer(4, 6, 3, 3, 6, 6, 1, 1);
  layer.name = "conv_b";
  contracts::Mapping mapping;
  mapping.tile.size = {3, 3, 3, 1, 1, 1, 1};
  const std::string rule_prefix = "fused: member 2 of group 'g' breaks a rule of fused groups: ";
  {  // SDM level: every member runs in SDM blocks
    const auto [error, bytes] = error_for(layer, mapping, {"g", 1, 2, {true, false, 1, false}});
    CHECK(error == fmt::format("x.mimg: byte {}: {}SDM level: layer 'conv_b' has no SDM level (a fused layer runs "
                               "in SDM blocks)",
                               offset_of(bytes, "sdm_flag"), rule_prefix));
  }
  {  // exchange order: the C loop (2 blocks) outside the X loop of the stripes
    mapping.sdm = sdm_level({4, 3, 1, 3, 6}, "CXKNY");
    const auto [error, bytes] = error_for(layer, mapping, {"g", 1, 2, {true, false, 2, false}});
    CHECK(error == fmt::format("x.mimg: byte {}: {}exchange order: layer 'conv_b' has its C loop (2 blocks) outside "
                               "the X loop of the stripes (order CXKNY): tiles would not be exchanged stripe by stripe",
                               offset_of(bytes, "sdm.order[0]"), rule_prefix));
  }
  {  // backing level: C outside the output loops sends partial sums through DRAM, so the output cannot stay
    mapping.sdm = sdm_level({2, 3, 1, 6, 6}, "CKNXY");
    const auto [error, bytes] = error_for(layer, mapping, {"g", 0, 2, {false, true, 1, false}});
    CHECK(error == fmt::format("x.mimg: byte {}: fused: member 1 of group 'g' breaks a rule of fused groups: backing "
                               "level: layer 'conv_b' sends partial sums to DRAM and back (C outside an output loop, "
                               "order CKNXY), so its output cannot stay in the SDM",
                               offset_of(bytes, "sdm.order[0]")));
  }
  {  // pinned weights: the weights are in 2 C blocks
    mapping.sdm = sdm_level({4, 3, 1, 3, 6}, "XCKNY");
    const auto [error, bytes] = error_for(layer, mapping, {"g", 1, 2, {true, false, 2, true}});
    CHECK(error == fmt::format("x.mimg: byte {}: {}pinned weights: layer 'conv_b' can pin its weights only across "
                               "several stripes with all of them in one SDM block",
                               offset_of(bytes, "fused.flags"), rule_prefix));
    // Without the pin the same member is valid.
    CHECK(error_for(layer, mapping, {"g", 1, 2, {true, false, 2, false}}).first == "no error");
  }
  {  // an output over the shortcut's rows needs the output in the SDM and one stripe (the shortcut held whole)
    contracts::FusedMember member{"g", 0, 2, {false, true, 2, false}};
    member.role.output_over_shortcut = true;
    const auto [error, bytes] = error_for(layer, mapping, member);
    CHECK(error == fmt::format("x.mimg: byte {}: fused.flags: output_over_shortcut is set, but it needs output_in_sdm "
                               "and stripes 1 (the output takes the rows of a shortcut held whole in the SDM)",
                               offset_of(bytes, "fused.flags")));
    member.role.stripes = 1;
    CHECK(error_for(layer, mapping, member).first == "no error");
  }
}

TEST_CASE("fused image: the member rule has one home, shared with the model", "[codegen][fusion]") {
  contracts::Layer layer = conv_layer(4, 6, 3, 3, 6, 6, 1, 1);
  contracts::Mapping mapping;
  mapping.tile.size = {3, 3, 3, 1, 1, 1, 1};
  for (const char* order : {"XCKNY", "CXKNY", "CKNXY", "KCNXY"})
    for (const std::int64_t x_block : {2, 3, 6})
      for (const std::int64_t stripes : {1, 2, 3})
        for (const bool feeds : {false, true})
          for (const bool pinned : {false, true}) {
            mapping.sdm = sdm_level({4, 3, 1, x_block, 6}, order);
            contracts::FusedRole role;
            role.stripes = stripes;
            role.weights_pinned = pinned;
            CHECK(mapper::member_violation(layer, mapping, stripes, feeds, pinned) ==
                  contracts::fused_member_violation(layer, mapping, role, feeds));
          }
}

TEST_CASE("fused images of MobileNetV2 on maeri-512 record the roles the model costs",
          "[codegen][image][fusion][mobilenetv2]") {
  const std::string configs = std::string(MAERI_SOURCE_DIR) + "/configs/";
  const contracts::Hardware hardware = contracts::load_hardware(configs + "hardware/maeri-512.yaml");
  const contracts::Network network = importer::load_network(configs + "workloads/mobilenetv2.yaml");
  // What `maeri map` does by default: each layer's search, then fusion.
  flow::WorkloadMappingOptions options;
  options.exact_traffic_for = codegen::exact_traffic_for;
  options.fusion = true;
  flow::WorkloadMapping mapping(network, hardware, options);
  mapping.map(network.layers, [](const flow::MappedLayer&) {});
  const contracts::MappingFile& file = mapping.mapping_file();
  REQUIRE(file.fused_groups.size() >= 2);
  const flow::FusedImagePlan plan = flow::plan_fused_images(network, hardware, file, "mbv2.mapping.yaml");
  REQUIRE(plan.groups.size() == file.fused_groups.size());

  const mapper::FusionGraph graph = mapper::fusion_graph(network);
  std::set<std::string> members;
  bool some_stripes = false, some_pinned = false, some_input = false, some_output = false;
  for (std::size_t g = 0; g < file.fused_groups.size(); ++g) {
    const contracts::FusedGroupEntry& entry = file.fused_groups[g];
    const mapper::LoadedGroup loaded = mapper::loaded_group(network, hardware, file, entry);
    REQUIRE_FALSE(loaded.violation);
    const std::vector<contracts::FusedRole> roles = mapper::group_roles(graph, loaded.group);
    CHECK(plan.groups[g].name == entry.name);
    CHECK(plan.groups[g].members == entry.layers);
    CHECK(plan.groups[g].stripes == entry.stripes);
    for (std::size_t i = 0; i < loaded.group.count; ++i) {
      const contracts::Layer& layer = network.layers[loaded.group.first + i];
      members.insert(layer.name);
      INFO("group " << entry.name << " member " << layer.name);
      const contracts::Mapping member_mapping = contracts::tile_for_layer(file, "mbv2", layer, hardware);
      const codegen::ConfigImage image = codegen::build_image(
          codegen::plan_layer(layer, hardware, member_mapping, codegen::PlanDetail::PhasesOnly), hardware,
          plan.member(layer.name));
      const codegen::ConfigImage decoded = codegen::decode_image(codegen::encode_image(image), layer.name + ".mimg");
      REQUIRE(decoded.fused);
      CHECK(*decoded.fused ==
            contracts::FusedMember{entry.name, std::int64_t(i), std::int64_t(loaded.group.count), roles[i]});
      some_stripes = some_stripes || roles[i].stripes > 1;
      some_pinned = some_pinned || roles[i].weights_pinned;
      some_input = some_input || roles[i].input_in_sdm;
      some_output = some_output || roles[i].output_in_sdm;
      // The manifest's group gives the same record.
      codegen::NetworkManifest manifest;
      manifest.fused_groups = plan.groups;
      CHECK(codegen::manifest_member(manifest, layer.name) == decoded.fused);
    }
  }
  CHECK((some_stripes && some_pinned && some_input && some_output));
  for (const contracts::Layer& layer : network.layers)
    if (!members.count(layer.name)) CHECK_FALSE(plan.member(layer.name));
}

TEST_CASE("network manifest: fused groups round-trip and are checked against the images' records",
          "[codegen][manifest][fusion]") {
  codegen::NetworkManifest manifest;
  manifest.network = "net";
  manifest.hardware = {"maeri-64", 64, 16, 16, 16, 32};
  for (int l = 0; l < 3; ++l)
    manifest.layers.push_back({l + 1, fmt::format("conv{}", l + 1), fmt::format("net.conv{}.mimg", l + 1),
                               std::string(64, 'a'), 600, "3,3,3,2,1,1,1", 600});
  manifest.fused_groups.push_back({"conv1-conv3", {"conv1", "conv2", "conv3"}, 2, {"conv2"},
                                   {{"t1", "conv1", {{"conv2", true}, {"conv3", false}}, false},
                                    {"t2", "conv2", {{"conv3", true}}, true}}});
  test::TempDir dir;
  const std::string text = codegen::manifest_json(manifest);
  CHECK_THAT(text, Catch::Contains("\"version\": 2"));
  std::ofstream(dir / "m.json") << text;
  const codegen::NetworkManifest loaded = codegen::load_manifest(dir / "m.json");
  REQUIRE(loaded.fused_groups.size() == 1);
  const codegen::ManifestFusedGroup& group = loaded.fused_groups[0];
  CHECK(group.name == "conv1-conv3");
  CHECK(group.members == std::vector<std::string>{"conv1", "conv2", "conv3"});
  CHECK(group.stripes == 2);
  CHECK(group.pinned_weights == std::vector<std::string>{"conv2"});
  REQUIRE(group.shared_tensors.size() == 2);
  CHECK(group.shared_tensors[0].tensor == "t1");
  CHECK(group.shared_tensors[0].consumers.size() == 2);
  CHECK_FALSE(group.shared_tensors[0].consumers[1].as_input);
  CHECK(group.shared_tensors[1].also_to_dram);
  // Records: conv1 feeds the group only, conv2 reads t1 through its window and its t2 also leaves the group, conv3
  // reads t2 (and t1 as a side operand).
  CHECK(codegen::manifest_member(loaded, "conv1") == contracts::FusedMember{"conv1-conv3", 0, 3, {false, true, 2, false}});
  CHECK(codegen::manifest_member(loaded, "conv2") == contracts::FusedMember{"conv1-conv3", 1, 3, {true, false, 2, true}});
  CHECK(codegen::manifest_member(loaded, "conv3") == contracts::FusedMember{"conv1-conv3", 2, 3, {true, false, 2, false}});
  CHECK_FALSE(codegen::manifest_member(loaded, "fc"));

  // An image whose record disagrees: exit 2 (util::InputError) naming the image, the group and the field.
  const auto check_error = [&](const std::optional<contracts::FusedMember>& record, const std::string& layer) {
    codegen::ConfigImage image;
    image.layer.name = layer;
    image.fused = record;
    try {
      codegen::check_fused_record(loaded, image, "images/net." + layer + ".mimg");
    } catch (const util::InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK(check_error(codegen::manifest_member(loaded, "conv2"), "conv2") == "no error");
  CHECK(check_error(std::nullopt, "fc") == "no error");
  contracts::FusedMember wrong = *codegen::manifest_member(loaded, "conv2");
  wrong.role.stripes = 3;
  CHECK_THAT(check_error(wrong, "conv2"),
             Catch::Contains("images/net.conv2.mimg") && Catch::Contains("field 'fused.stripes'") &&
                 Catch::Contains("group 'conv1-conv3': the image records 3, the manifest's group gives 2"));
  wrong = *codegen::manifest_member(loaded, "conv2");
  wrong.role.output_in_sdm = true;
  CHECK_THAT(check_error(wrong, "conv2"), Catch::Contains("field 'fused.output_in_sdm'"));
  wrong.group = "other";
  CHECK_THAT(check_error(wrong, "conv2"), Catch::Contains("field 'fused.group'") &&
                                              Catch::Contains("the image records 'other', the manifest's group gives "
                                                              "'conv1-conv3'"));
  CHECK_THAT(check_error(std::nullopt, "conv3"),
             Catch::Contains("field 'fused'") && Catch::Contains("in group 'conv1-conv3', but the image has no fused "
                                                                 "record"));
  CHECK_THAT(check_error(contracts::FusedMember{"g", 0, 2, {}}, "fc"),
             Catch::Contains("field 'fused.group'") && Catch::Contains("member 1 of group 'g'"));

  // The reader's checks of a group, each naming its field.
  const auto error_of = [&](const std::string& from, const std::string& to) {
    return manifest_error(text, from, to, dir / "bad.json");
  };
  CHECK_THAT(error_of("\"version\": 2", "\"version\": 1"),
             Catch::Contains("field 'fused_groups': unknown field"));
  CHECK_THAT(error_of("\"version\": 2", "\"version\": 3"), Catch::Contains("expected 1 or 2"));
  CHECK_THAT(error_of("\"stripes\": 2", "\"stripes\": 0"), Catch::Contains("field 'fused_groups[0].stripes'"));
  CHECK_THAT(error_of("\"pinned_weights\": [\n        \"conv2\"", "\"pinned_weights\": [\n        \"conv9\""),
             Catch::Contains("field 'fused_groups[0].pinned_weights[0]': 'conv9' is not a member of the group"));
  CHECK_THAT(error_of("\"producer\": \"conv2\"", "\"producer\": \"conv3\""),
             Catch::Contains("field 'fused_groups[0].shared_tensors[1].consumers[0].layer'"));
  CHECK_THAT(error_of("\"reads\": \"operand\"", "\"reads\": \"both\""),
             Catch::Contains("field 'fused_groups[0].shared_tensors[0].consumers[1].reads': expected input, operand or weights"));
  CHECK_THAT(error_of("\"members\": [\n        \"conv1\",\n        \"conv2\",\n        \"conv3\"\n      ]",
                      "\"members\": [\"conv1\"]"),
             Catch::Contains("field 'fused_groups[0].members': expected at least 2 layers, found 1"));
  CHECK_THAT(error_of("\"also_to_dram\": false", "\"also_to_dram\": 0"),
             Catch::Contains("field 'fused_groups[0].shared_tensors[0].also_to_dram': expected true or false"));
  CHECK_THAT(error_of("\"stripes\": 2", "\"stripes\": 2, \"extra\": 1"),
             Catch::Contains("field 'fused_groups[0].extra': unknown field"));
  // A manifest without groups is version 1, as before them.
  manifest.fused_groups.clear();
  CHECK_THAT(codegen::manifest_json(manifest), Catch::Contains("\"version\": 1"));
}

TEST_CASE("network manifest: query-row stripes are recorded per member and checked against the images' flag",
          "[codegen][manifest][fusion]") {
  // An attention head in token stripes: the projection stripes its tokens, Q·Kᵀ its query rows (image flag 0x40).
  codegen::NetworkManifest manifest;
  manifest.network = "att";
  manifest.hardware = {"maeri-64", 64, 16, 16, 16, 32};
  for (const char* layer : {"q", "scores"})
    manifest.layers.push_back({int(manifest.layers.size()) + 1, layer, fmt::format("att.{}.mimg", layer),
                               std::string(64, 'a'), 600, "1,1,4,4,1,1,1", 600});
  codegen::ManifestFusedGroup group{"q-scores", {"q", "scores"}, 4, {}, {{"q_out", "q", {{"scores", false, true}}, false}}};
  group.token_stripes = true;
  group.query_rows = {"scores"};
  manifest.fused_groups.push_back(group);
  test::TempDir dir;
  const std::string text = codegen::manifest_json(manifest);
  CHECK_THAT(text, Catch::Contains("\"query_rows\": [\n        \"scores\"\n      ]"));
  std::ofstream(dir / "m.json") << text;
  const codegen::NetworkManifest loaded = codegen::load_manifest(dir / "m.json");
  REQUIRE(loaded.fused_groups.size() == 1);
  CHECK(loaded.fused_groups[0].query_rows == std::vector<std::string>{"scores"});
  const auto scores = codegen::manifest_member(loaded, "scores"), q = codegen::manifest_member(loaded, "q");
  REQUIRE((scores && q));
  CHECK((scores->role.token_stripes && scores->role.query_rows && scores->role.weights_in_sdm));
  CHECK((q->role.token_stripes && !q->role.query_rows));
  // An image of Q·Kᵀ striped along its tokens instead: exit 2 naming the field.
  codegen::ConfigImage image;
  image.layer.name = "scores";
  image.fused = scores;
  image.fused->role.query_rows = false;
  CHECK_THROWS_WITH(codegen::check_fused_record(loaded, image, "att.scores.mimg"),
                    Catch::Contains("field 'fused.query_rows'") &&
                        Catch::Contains("the image records false, the manifest's group gives true"));
  // Groups without query-row stripes write no field; the reader's checks name theirs.
  manifest.fused_groups[0].query_rows.clear();
  CHECK_THAT(codegen::manifest_json(manifest), !Catch::Contains("query_rows"));
  const auto error_of = [&](const std::string& from, const std::string& to) {
    return manifest_error(text, from, to, dir / "bad.json");
  };
  CHECK_THAT(error_of("\"query_rows\": [\n        \"scores\"", "\"query_rows\": [\n        \"k\""),
             Catch::Contains("field 'fused_groups[0].query_rows[0]': 'k' is not a member of the group"));
  CHECK_THAT(error_of("\"token_stripes\": true", "\"token_stripes\": false"),
             Catch::Contains("field 'fused_groups[0].query_rows': query-row stripes are a matrix product's token "
                             "stripes"));
}
