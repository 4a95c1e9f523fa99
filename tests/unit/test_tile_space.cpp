// Tile-space sizes: the counting algorithm against a brute-force enumeration written independently
// here (seven nested loops applying each rule literally), raw and under every subset of the pruning rules;
// rule-set parsing; unmappable only when Eq. 1 (or a chosen rule) empties the space.
#include <catch2/catch.hpp>

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

std::uint64_t brute_force_count(const Layer& layer, std::int64_t num_ms, int mask) {
  const std::int64_t Xo = layer.output_x(), Yo = layer.output_y();
  const bool fc = layer.type == LayerType::FullyConnected;
  std::uint64_t count = 0;
  for (std::int64_t r = 1; r <= layer.R; ++r)
  for (std::int64_t s = 1; s <= layer.S; ++s)
  for (std::int64_t c = 1; c <= layer.C; ++c)
  for (std::int64_t k = 1; k <= layer.K; ++k)
  for (std::int64_t n = 1; n <= layer.N; ++n)
  for (std::int64_t x = 1; x <= Xo; ++x)
  for (std::int64_t y = 1; y <= Yo; ++y) {
    if (r * s * c * k * n * x * y > num_ms) continue;
    if ((mask & 1) && (layer.R % r || layer.S % s || layer.C % c)) continue;
    if ((mask & 2) && n != 1) continue;
    if ((mask & 4) && fc && (r != 1 || s != 1 || x != 1 || y != 1)) continue;
    if ((mask & 8) && maeri::util::ceil_div(layer.R, r) * maeri::util::ceil_div(layer.S, s) * maeri::util::ceil_div(layer.C, c) > num_ms) continue;
    ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("tile space sizes equal brute-force enumeration, raw and under every subset of rules", "[mapper][space]") {
  const std::vector<Layer> layers = {
      conv_layer(4, 6, 3, 3, 6, 6),                   // 3x3, non-power-of-two C
      conv_layer(5, 12, 2, 3, 7, 5, 2, 1, 2),         // stride 2, padding, batch 2
      conv_layer(3, 30, 1, 1, 4, 4),                  // 1x1 with C > num_ms/... for the partial-sum bound
      fc_layer(7, 40),
  };
  for (const Layer& layer : layers) {
    for (const std::int64_t num_ms : {8, 16, 32}) {
      const Hardware hardware = small_hardware(num_ms, 4, 4);
      for (int mask = 0; mask < 1 << kNumPruningRules; ++mask) {
        INFO("layer K=" << layer.K << " C=" << layer.C << " num_ms=" << num_ms << " rules=" << rules_of(mask).names());
        CHECK(TileSpace(layer, hardware, rules_of(mask)).count() == brute_force_count(layer, num_ms, mask));
      }
    }
  }
}

TEST_CASE("enumeration visits exactly the counted tiles, each legal", "[mapper][space]") {
  const Layer layer = conv_layer(5, 12, 2, 3, 7, 5, 2, 1, 2);
  const Hardware hardware = small_hardware(32, 4, 4);
  for (int mask = 0; mask < 1 << kNumPruningRules; ++mask) {
    const TileSpace space(layer, hardware, rules_of(mask));
    std::uint64_t visited = 0;
    for (const auto& prefix : space.prefixes()) {
      space.enumerate_outputs(prefix, [&](const Mapping& tile) {
        ++visited;
        CHECK_FALSE(mapping_violation(layer, hardware, tile).has_value());
        // The per-tile form of each chosen rule agrees with the narrowed enumeration.
        for (int i = 0; i < kNumPruningRules; ++i)
          if (mask >> i & 1) CHECK(satisfies(layer, hardware, tile, kPruningRules[i]));
      });
    }
    CHECK(visited == space.count());
  }
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
