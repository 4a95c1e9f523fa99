// Tile-space sizes: the counting algorithm against a brute-force enumeration written independently
// here (eight nested loops, T_G included, applying each rule literally), raw and under every subset of the pruning
// rules;
// rule-set parsing; unmappable only when Eq. 1 (or a chosen rule) empties the space.
#include <catch2/catch.hpp>

#include <set>

#include "mapper/mapspace/tile_space.hpp"
#include "mapper_fixtures.hpp"
#include "util/integer_math.hpp"

using namespace maeri::contracts;
using namespace maeri::mapper;
using maeri::test::conv_layer;
using maeri::test::fc_layer;
using maeri::test::small_hardware;

namespace {


// Subset `mask` of the rules: bit 0 edge-divisibility, 1 inference-batch, 2 reduced-convolution, 3 partial-sum-bound.
RuleSet rules_of(int mask) {
  RuleSet rules;
  for (int i = 0; i < kNumPruningRules; ++i)
    if (mask >> i & 1) rules = rules.with(kPruningRules[i]);
  return rules;
}

// T_C and T_K tile one group's C/groups channels and K/groups filters; T_G (groups side by side) divides groups.
std::uint64_t brute_force_count(const Layer& layer, std::int64_t num_ms, int mask) {
  const std::int64_t Xo = layer.output_x(), Yo = layer.output_y();
  const std::int64_t C = layer.C / layer.groups, K = layer.K / layer.groups;
  const bool fc = layer.type == LayerType::FullyConnected;
  std::uint64_t count = 0;
  for (std::int64_t g = 1; g <= layer.groups; ++g)
  for (std::int64_t r = 1; r <= layer.R; ++r)
  for (std::int64_t s = 1; s <= layer.S; ++s)
  for (std::int64_t c = 1; c <= C; ++c)
  for (std::int64_t k = 1; k <= K; ++k)
  for (std::int64_t n = 1; n <= layer.N; ++n)
  for (std::int64_t x = 1; x <= Xo; ++x)
  for (std::int64_t y = 1; y <= Yo; ++y) {
    if (layer.groups % g) continue;
    if (g * r * s * c * k * n * x * y > num_ms) continue;
    if ((mask & 1) && (layer.R % r || layer.S % s || C % c)) continue;
    if ((mask & 2) && n != 1) continue;
    if ((mask & 4) && fc && (r != 1 || s != 1 || x != 1 || y != 1)) continue;
    if ((mask & 8) && maeri::util::ceil_div(layer.R, r) * maeri::util::ceil_div(layer.S, s) * maeri::util::ceil_div(C, c) > num_ms) continue;
    ++count;
  }
  return count;
}

Layer grouped(Layer layer, std::int64_t groups) {
  layer.groups = groups;
  return layer;
}

}  // namespace

TEST_CASE("tile space sizes equal brute-force enumeration, raw and under every subset of rules", "[mapper][space]") {
  const std::vector<Layer> layers = {
      conv_layer(4, 6, 3, 3, 6, 6),                   // 3x3, non-power-of-two C
      conv_layer(5, 12, 2, 3, 7, 5, 2, 1, 2),         // stride 2, padding, batch 2
      conv_layer(3, 30, 1, 1, 4, 4),                  // 1x1 with C > num_ms/... for the partial-sum bound
      fc_layer(7, 40),
      grouped(conv_layer(12, 12, 3, 3, 5, 5), 12),    // depthwise: T_G in 1, 2, 3, 4, 6, 12
      grouped(conv_layer(8, 12, 2, 1, 4, 6, 1, 0, 2), 4),  // 4 groups of 3 channels and 2 filters, batch 2
  };
  for (const Layer& layer : layers) {
    for (const std::int64_t num_ms : {8, 16, 32}) {
      const Hardware hardware = small_hardware(num_ms, 4, 4);
      for (int mask = 0; mask < 1 << kNumPruningRules; ++mask) {
 INFO("layer K=" << layer.K << " C=" << layer.C << " groups=" << layer.groups << " num_ms=" << num_ms << " rules=" << rules_of(mask).names());
        CHECK(TileSpace(layer, hardware, rules_of(mask)).count() == brute_force_count(layer, num_ms, mask));
      }
    }
  }
}

TEST_CASE("enumeration visits exactly the counted tiles, each legal", "[mapper][space]") {
  for (const Layer& layer : {conv_layer(5, 12, 2, 3, 7, 5, 2, 1, 2), grouped(conv_layer(6, 6, 3, 3, 5, 5), 6)}) {
  const Hardware hardware = small_hardware(32, 4, 4);
  std::set<std::int64_t> groups_seen;
  for (int mask = 0; mask < 1 << kNumPruningRules; ++mask) {
    const TileSpace space(layer, hardware, rules_of(mask));
    std::uint64_t visited = 0;
    for (const auto& prefix : space.prefixes()) {
      space.enumerate_outputs(prefix, [&](const Mapping& tile) {
        ++visited;
        groups_seen.insert(tile.groups_per_step());
        CHECK_FALSE(mapping_violation(layer, hardware, tile).has_value());
        // The per-tile form of each chosen rule agrees with the narrowed enumeration.
        for (int i = 0; i < kNumPruningRules; ++i)
          if (mask >> i & 1) CHECK(satisfies(layer, hardware, tile, kPruningRules[i]));
      });
    }
    CHECK(visited == space.count());
  }
  // A depthwise layer of 6 groups on 32 MS: T_G takes every divisor of 6 that fits with a 1-switch VN.
  CHECK(groups_seen == (layer.groups == 1 ? std::set<std::int64_t>{1} : std::set<std::int64_t>{1, 2, 3, 6}));
  }
}

TEST_CASE("T_G: the group edge rule and Eq. 1 with T_G, named by the violation", "[mapper][space]") {
  const Layer layer = grouped(conv_layer(12, 12, 3, 3, 5, 5), 12);
  const Hardware hardware = small_hardware(64, 4, 4);
  Mapping tile;
  tile[kDimR] = tile[kDimS] = 3;
  tile.tile.groups = 4;  // 4 groups of one 9-switch VN: 36 MS
  CHECK_FALSE(mapping_violation(layer, hardware, tile).has_value());
  CHECK(tile.vn_count() == 4);
  tile.tile.groups = 5;  // does not divide 12
  CHECK_THAT(*mapping_violation(layer, hardware, tile), Catch::Contains("group edge: T_G = 5 must divide groups = 12"));
  tile.tile.groups = 24;
  CHECK_THAT(*mapping_violation(layer, hardware, tile), Catch::Contains("bound: T_G = 24"));
  tile.tile.groups = 12;  // 12·9 = 108 > 64
  CHECK_THAT(*mapping_violation(layer, hardware, tile), Catch::Contains("Eq. 1: T_G·T_R"));
  // An ungrouped layer has only T_G = 1.
  tile.tile.groups = 2;
  CHECK_THAT(*mapping_violation(conv_layer(12, 12, 3, 3, 5, 5), hardware, tile), Catch::Contains("bound: T_G = 2"));
  // Text forms: T_G appears only when it is not 1, and the eight-number form parses back.
  tile.tile.groups = 4;
  CHECK(to_compact_string(tile.tile) == "3,3,1,1,1,1,1,4");
  CHECK(to_string(tile) == "(T_R,T_S,T_C,T_K,T_N,T_X',T_Y') = (3,3,1,1,1,1,1) T_G = 4");
  CHECK(*parse_fabric_tile("3,3,1,1,1,1,1,4") == tile.tile);
  CHECK(parse_fabric_tile("3,3,1,1,1,1,1")->groups == 1);
  CHECK_FALSE(parse_fabric_tile("3,3,1,1,1,1,1,4,1").has_value());
}

TEST_CASE("partial-sum bound: 1x1 layer with 30 channels on 8 MS", "[mapper][space]") {
  // Divisors of C = 30 are 1,2,3,5,6,10,15,30; ceil(30/T_C) <= 8 needs T_C >= 4, and T_C <= 8 (Eq. 1),
  // leaving T_C in {5, 6}. With T_C = 5 the remaining budget floor(8/5) = 1 leaves one tile; with
  // T_C = 6 likewise one tile: 2 tiles in all.
  const Layer layer = conv_layer(3, 30, 1, 1, 4, 4);
  CHECK(TileSpace(layer, small_hardware(8, 4, 4), RuleSet::all()).count() == 2);
}

TEST_CASE("a layer is unmappable only when the chosen rules empty the space, and the error names the rule",
          "[mapper][space]") {
  // C = 1031 is prime: only T_C in {1, 1031}; T_C = 1031 breaks Eq. 1 and T_C = 1 leaves
  // 1031 partial sums per output, more than the 16 multiplier switches allow.
  const Layer layer = fc_layer(2, 1031);
  const Hardware hardware = small_hardware(16, 4, 4);
  CHECK_FALSE(unmappable_reason(layer, hardware).has_value());  // the raw Eq. 1 space always has (1,...,1)
  CHECK_FALSE(unmappable_reason(layer, hardware, RuleSet::only(PruningRule::EdgeDivisibility)).has_value());
  const auto reason = unmappable_reason(layer, hardware, RuleSet::all());
  REQUIRE(reason.has_value());
  CHECK_THAT(*reason, Catch::Contains("pruning rule 'partial-sum-bound'"));
  CHECK_THAT(*reason, Catch::Contains("drop it from --prune"));
  CHECK_FALSE(unmappable_reason(fc_layer(2, 32), hardware, RuleSet::all()).has_value());
  // Every tile space of every layer has a tile on any fabric: brute force agrees that (1,...,1) is counted.
  for (const std::int64_t num_ms : {1, 2, 8}) CHECK(TileSpace(layer, small_hardware(num_ms, 1, 1)).count() >= 1);
}

TEST_CASE("pruning rule lists (--prune) parse by rule name in any order; unknown names are named in the error", "[mapper][space]") {
  std::string error;
  const auto two = parse_rules("partial-sum-bound,edge-divisibility", error);
  REQUIRE(two.has_value());
  CHECK(two->has(PruningRule::EdgeDivisibility));
  CHECK(two->has(PruningRule::PartialSumBound));
  CHECK_FALSE(two->has(PruningRule::InferenceBatch));
  CHECK(two->names() == "edge-divisibility,partial-sum-bound");  // listed in kPruningRules order
  CHECK(parse_rules("all", error) == RuleSet::all());
  CHECK(parse_rules("none", error)->empty());
  CHECK(parse_rules("inference-batch,inference-batch", error) == RuleSet::only(PruningRule::InferenceBatch));
  CHECK_FALSE(parse_rules("edge-divisibility,fast", error).has_value());
  CHECK_THAT(error, Catch::Contains("unknown pruning rule 'fast'"));
  CHECK_THAT(error, Catch::Contains("reduced-convolution"));
  CHECK_FALSE(parse_rules("", error).has_value());
}
