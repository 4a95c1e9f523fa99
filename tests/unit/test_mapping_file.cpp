// Mapping files: what is written reads back identically, and bad files are rejected with the field named.
#include <catch2/catch.hpp>

#include "contracts/mapping_file.hpp"
#include "mapper_fixtures.hpp"
#include "temp_file.hpp"

using namespace maeri::contracts;
using maeri::test::TempFile;

TEST_CASE("mapping file round trip", "[mapper][mapping-file]") {
  MappingFile mapping{"maeri-64", 64, 16, 16, "tiny", "runtime", {}, {}};
  Layer conv = maeri::test::conv_layer(8, 3, 3, 3, 10, 10, 2, 1);
  conv.name = "conv1";
  Mapping tile;
  tile.tile.size = {3, 3, 3, 2, 1, 1, 1};
  mapping.layers.push_back({conv, tile, 781, 789.75});
  Layer fc = maeri::test::fc_layer(10, 400);
  fc.name = "fc";
  Mapping fc_tile;
  fc_tile.tile.size = {1, 1, 16, 4, 1, 1, 1};
  mapping.layers.push_back({fc, fc_tile, 1147, 1477.5});

  TempFile file(emit_mapping_file(mapping));
  const MappingFile read = load_mapping_file(file.path());
  CHECK(read.hardware_name == "maeri-64");
  CHECK(read.num_ms == 64);
  CHECK(read.workload_name == "tiny");
  REQUIRE(read.layers.size() == 2);
  CHECK(read.layers[0].layer.name == "conv1");
  CHECK(read.layers[0].layer.stride_x == 2);
  CHECK(read.layers[0].layer.stride_y == 2);
  CHECK(read.layers[0].layer.padding_x == 1);
  CHECK(read.layers[0].layer.padding_y == 1);
  CHECK(read.layers[0].mapping == tile);
  CHECK(read.layers[0].predicted_energy_pj == 789.75);
  CHECK(read.layers[1].layer.type == LayerType::FullyConnected);
  CHECK(read.layers[1].mapping == fc_tile);
}

TEST_CASE("mapping file with a tile that breaks Eq. 1 is rejected", "[mapper][mapping-file]") {
  TempFile file(R"(kind: mapping
hardware: {name: hw, num_ms: 16, dn_bw: 4, rn_bw: 4}
workload: w
objective: runtime
layers:
  - name: c
    shape: {type: conv, N: 1, K: 4, C: 4, R: 3, S: 3, X: 6, Y: 6, stride: 1, padding: 0}
    tile: {T_R: 3, T_S: 3, T_C: 2, T_K: 1, T_N: 1, T_X: 1, T_Y: 1}
    predicted_cycles: 1
    predicted_energy_pj: 1
)");
  CHECK_THROWS_WITH(load_mapping_file(file.path()),
                    file.path() + ":8:11: field 'layers[0].tile': Eq. 1: T_R·T_S·T_C·T_K·T_N·T_X'·T_Y' = 18 "
                                  "(VN size 18 x 1 VNs) exceeds num_ms = 16");
}

TEST_CASE("mapping file: T_G round-trips, reads as 1 when absent, and a bad T_G names the field", "[mapper][mapping-file][groups]") {
  const auto file_with = [](const std::string& tile) {
    return std::string(R"(kind: mapping
hardware: {name: hw, num_ms: 64, dn_bw: 4, rn_bw: 4}
workload: w
objective: runtime
layers:
  - name: dw
    shape: {type: conv, N: 1, K: 12, C: 12, R: 3, S: 3, X: 6, Y: 6, stride: 1, padding: 0, groups: 12}
    tile: )") + tile + R"(
    predicted_cycles: 1
    predicted_energy_pj: 1
)";
  };
  {
    TempFile file(file_with("{T_R: 3, T_S: 3, T_C: 1, T_K: 1, T_N: 1, T_X: 1, T_Y: 1, T_G: 6}"));
    const MappingFile mapping = load_mapping_file(file.path());
    CHECK(mapping.layers.at(0).mapping.groups_per_step() == 6);
    TempFile again(emit_mapping_file(mapping));
    CHECK(load_mapping_file(again.path()).layers.at(0).mapping == mapping.layers.at(0).mapping);
  }
  {
    // Written before T_G existed: the layer runs group by group, and the file is written back without T_G.
    TempFile file(file_with("{T_R: 3, T_S: 3, T_C: 1, T_K: 1, T_N: 1, T_X: 1, T_Y: 1}"));
    const MappingFile mapping = load_mapping_file(file.path());
    CHECK(mapping.layers.at(0).mapping.groups_per_step() == 1);
    CHECK(emit_mapping_file(mapping).find("T_G") == std::string::npos);
  }
  TempFile not_dividing(file_with("{T_R: 3, T_S: 3, T_C: 1, T_K: 1, T_N: 1, T_X: 1, T_Y: 1, T_G: 5}"));
  CHECK_THROWS_WITH(load_mapping_file(not_dividing.path()),
                    Catch::Contains("field 'layers[0].tile.T_G': group edge: T_G = 5 must divide groups = 12"));
  TempFile too_many(file_with("{T_R: 3, T_S: 3, T_C: 1, T_K: 1, T_N: 1, T_X: 1, T_Y: 1, T_G: 24}"));
  CHECK_THROWS_WITH(load_mapping_file(too_many.path()),
                    Catch::Contains("field 'layers[0].tile.T_G': bound: T_G = 24 must be between 1 and groups = 12"));
  TempFile too_wide(file_with("{T_R: 3, T_S: 3, T_C: 1, T_K: 1, T_N: 1, T_X: 1, T_Y: 1, T_G: 12}"));  // 108 > 64 MS
  CHECK_THROWS_WITH(load_mapping_file(too_wide.path()), Catch::Contains("field 'layers[0].tile': Eq. 1: T_G·T_R"));
}

TEST_CASE("mapping file with a layer too large for int64 sizes is rejected", "[mapper][mapping-file]") {
  TempFile file(R"(kind: mapping
hardware: {name: hw, num_ms: 16, dn_bw: 4, rn_bw: 4}
workload: w
objective: runtime
layers:
  - name: c
    shape: {type: conv, N: 4096, K: 16777216, C: 16777216, R: 1, S: 1, X: 16777216, Y: 16777216, stride: 1, padding: 0}
    tile: {T_R: 1, T_S: 1, T_C: 1, T_K: 1, T_N: 1, T_X: 1, T_Y: 1}
    predicted_cycles: 1
    predicted_energy_pj: 1
)");
  CHECK_THROWS_WITH(load_mapping_file(file.path()),
                    file.path() + ":7:12: field 'layers[0].shape': layer too large: more than 4e18 multiply-accumulates");
}

namespace {

// A one-layer mapping file for conv K=8 C=4 3x3 on 8x8 (X' = Y' = 6) with fabric tile (3,3,2,2,1,1,1) and the
// given `sdm:` line (empty: none).
std::string sdm_mapping_file(const std::string& sdm_line) {
  return R"(kind: mapping
hardware: {name: hw, num_ms: 64, dn_bw: 16, rn_bw: 16}
workload: w
objective: runtime
layers:
  - name: c
    shape: {type: conv, N: 1, K: 8, C: 4, R: 3, S: 3, X: 8, Y: 8, stride: 1, padding: 0}
    tile: {T_R: 3, T_S: 3, T_C: 2, T_K: 2, T_N: 1, T_X: 1, T_Y: 1}
)" + sdm_line + R"(    predicted_cycles: 1
    predicted_energy_pj: 1
)";
}

}  // namespace

TEST_CASE("mapping file: the SDM level round-trips; without one a layer maps as one block", "[mapper][mapping-file]") {
  MappingFile mapping{"maeri-64", 64, 16, 16, "w", "runtime", {}, {}};
  Layer conv = maeri::test::conv_layer(8, 4, 3, 3, 8, 8);
  conv.name = "c";
  Mapping tile;
  tile.tile.size = {3, 3, 2, 2, 1, 1, 1};
  tile.sdm.blocked = true;
  tile.sdm.block = {4, 2, 1, 3, 6};
  tile.sdm.order = *parse_order("CXKNY");
  mapping.layers.push_back({conv, tile, 1, 1});
  TempFile file(emit_mapping_file(mapping));
  const MappingFile read = load_mapping_file(file.path());
  REQUIRE(read.layers.size() == 1);
  CHECK(read.layers[0].mapping == tile);

  TempFile old(sdm_mapping_file(""));
  CHECK_FALSE(load_mapping_file(old.path()).layers[0].mapping.sdm.blocked);
  // The order is optional: KCNXY (docs/mapping.md).
  TempFile no_order(sdm_mapping_file("    sdm: {K: 4, C: 4, N: 1, X: 6, Y: 6}\n"));
  const Mapping read_tile = load_mapping_file(no_order.path()).layers[0].mapping;
  CHECK(read_tile.sdm.blocked);
  CHECK(order_text(read_tile.sdm.order) == "KCNXY");
}

TEST_CASE("mapping file: a bad SDM level names its field", "[mapper][mapping-file]") {
  TempFile small(sdm_mapping_file("    sdm: {K: 1, C: 4, N: 1, X: 6, Y: 6, order: KCNXY}\n"));
  CHECK_THROWS_WITH(load_mapping_file(small.path()),
                    small.path() + ":9:14: field 'layers[0].sdm.K': SDM bound: sdm.K = 1 is smaller than the fabric "
                                   "tile T_K = 2");
  TempFile order(sdm_mapping_file("    sdm: {K: 4, C: 4, N: 1, X: 6, Y: 6, order: KCNXX}\n"));
  CHECK_THROWS_WITH(load_mapping_file(order.path()),
                    order.path() + ":9:48: field 'layers[0].sdm.order': 'KCNXX' is not a permutation of K, C, N, X, "
                                   "Y: X appears twice");
  // Capacity needs the hardware's SDM size: checked where the mapping meets a hardware spec.
  TempFile big(sdm_mapping_file("    sdm: {K: 8, C: 4, N: 1, X: 6, Y: 6}\n"));
  const MappingFile mapping = load_mapping_file(big.path());
  Hardware hardware = maeri::test::small_hardware(64, 16, 16);
  hardware.sdm_bytes = 1024;
  Layer conv = maeri::test::conv_layer(8, 4, 3, 3, 8, 8);
  conv.name = "c";
  // One block: inputs 4·8·8·2 = 512, weights 8·4·9·2 = 576, outputs 8·6·6·4 = 1152, staging (15·16 + 2·2)·4 = 976.
  CHECK_THROWS_WITH(tile_for_layer(mapping, big.path(), conv, hardware),
                    big.path() + ": field 'layers[0].sdm': the tile does not fit layer 'c' on test: SDM capacity: one "
                                 "SDM block needs 2·(512 input + 576 weight bytes) + max(1152 output, 976 staging "
                                 "bytes) = 3328 bytes, the SDM holds 1024");
}

TEST_CASE("mapping file: the phase order round-trips, is optional and must be one of the two",
          "[mapper][mapping-file][phase-order]") {
  MappingFile mapping{"maeri-64", 64, 16, 16, "w", "runtime", {}, {}};
  Layer conv = maeri::test::conv_layer(8, 4, 3, 3, 8, 8);
  conv.name = "c";
  Mapping tile;
  tile.tile.size = {3, 3, 2, 2, 1, 1, 1};
  tile.phase_order = PhaseOrder::FiltersOuter;
  mapping.layers.push_back({conv, tile, 1, 1});
  const std::string text = emit_mapping_file(mapping);
  CHECK(text.find("phase_order: filters-outer") != std::string::npos);
  TempFile file(text);
  CHECK(load_mapping_file(file.path()).layers[0].mapping == tile);
  // The default is not written, and a file without the key (any file written before it existed) reads as it.
  mapping.layers[0].mapping.phase_order = PhaseOrder::FoldsOuter;
  CHECK(emit_mapping_file(mapping).find("phase_order") == std::string::npos);
  TempFile old(sdm_mapping_file(""));
  CHECK(load_mapping_file(old.path()).layers[0].mapping.phase_order == PhaseOrder::FoldsOuter);
  TempFile explicit_default(sdm_mapping_file("    phase_order: folds-outer\n"));
  CHECK(load_mapping_file(explicit_default.path()).layers[0].mapping.phase_order == PhaseOrder::FoldsOuter);
  TempFile bad(sdm_mapping_file("    phase_order: k-outer\n"));
  CHECK_THROWS_WITH(load_mapping_file(bad.path()),
                    Catch::Matchers::Contains("field 'layers[0].phase_order'") &&
                        Catch::Matchers::Contains("folds-outer") && Catch::Matchers::Contains("filters-outer"));
}

TEST_CASE("mapping file: fused groups round-trip, files without them read none, bad groups name the field",
          "[mapper][mapping-file][fusion]") {
  MappingFile mapping{"maeri-64", 64, 16, 16, "w", "runtime", {}, {}};
  for (const char* name : {"a", "b", "c"}) {
    Layer conv = maeri::test::conv_layer(8, 8, 3, 3, 8, 8);
    conv.name = name;
    Mapping tile;
    tile.tile.size = {3, 3, 2, 2, 1, 1, 1};
    mapping.layers.push_back({conv, tile, 1, 1});
  }
  const std::string unfused = emit_mapping_file(mapping);
  CHECK(unfused.find("fused_groups") == std::string::npos);
  TempFile plain(unfused);
  CHECK(load_mapping_file(plain.path()).fused_groups.empty());

  mapping.fused_groups.push_back({"a-b", {"a", "b"}, 3, {"b"}});
  const std::string text = emit_mapping_file(mapping);
  CHECK(text.rfind(unfused.substr(0, unfused.size() - 1), 0) == 0);  // the groups only added after the layers
  TempFile file(text);
  const MappingFile read = load_mapping_file(file.path());
  REQUIRE(read.fused_groups.size() == 1);
  CHECK(read.fused_groups[0].name == "a-b");
  CHECK(read.fused_groups[0].layers == std::vector<std::string>{"a", "b"});
  CHECK(read.fused_groups[0].stripes == 3);
  CHECK(read.fused_groups[0].pinned_weights == std::vector<std::string>{"b"});

  const auto with_groups = [&](const std::string& groups) {
    return TempFile(unfused + "fused_groups:\n" + groups);
  };
  const TempFile unknown = with_groups("  - {name: g, layers: [a, z], stripes: 1}\n");
  CHECK_THROWS_WITH(load_mapping_file(unknown.path()),
                    Catch::Contains("field 'fused_groups[0].layers': fused group 'g': the file maps no layer 'z'"));
  const TempFile twice = with_groups("  - {name: g, layers: [a, b], stripes: 1}\n  - {name: h, layers: [b, c], stripes: 1}\n");
  CHECK_THROWS_WITH(load_mapping_file(twice.path()),
                    Catch::Contains("fused group 'h': layer 'b' is already in fused group 'g'"));
  const TempFile pinned = with_groups("  - {name: g, layers: [a, b], stripes: 2, pinned_weights: [c]}\n");
  CHECK_THROWS_WITH(load_mapping_file(pinned.path()),
                    Catch::Contains("field 'fused_groups[0].pinned_weights': fused group 'g': layer 'c' is not one"));
  // One layer shares nothing; the manifest reader refuses such a group too (kMinFusedGroupLayers), so codegen must
  // not write one (issue 43, item 3).
  const TempFile alone = with_groups("  - {name: g, layers: [c], stripes: 1}\n");
  CHECK_THROWS_WITH(load_mapping_file(alone.path()),
                    Catch::Contains("field 'fused_groups[0].layers': fused group 'g': expected at least 2 layers, found 1"));
  const TempFile stripes = with_groups("  - {name: g, layers: [a, b], stripes: 0}\n");
  CHECK_THROWS_WITH(load_mapping_file(stripes.path()), Catch::Contains("field 'fused_groups[0].stripes'"));
  // Token stripes: stripe_axis N round-trips; another axis, or N with one stripe, names the field.
  mapping.fused_groups[0].token_stripes = true;
  TempFile tokens(emit_mapping_file(mapping));
  CHECK(emit_mapping_file(mapping).find("stripe_axis: N") != std::string::npos);
  CHECK(load_mapping_file(tokens.path()).fused_groups[0].token_stripes);
  const TempFile axis = with_groups("  - {name: g, layers: [a, b], stripes: 2, stripe_axis: K}\n");
  CHECK_THROWS_WITH(load_mapping_file(axis.path()), Catch::Contains("field 'fused_groups[0].stripe_axis'"));
  const TempFile one = with_groups("  - {name: g, layers: [a, b], stripes: 1, stripe_axis: N}\n");
  CHECK_THROWS_WITH(load_mapping_file(one.path()),
                    Catch::Contains("field 'fused_groups[0].stripe_axis': fused group 'g': stripe_axis N needs stripes > 1"));
}
