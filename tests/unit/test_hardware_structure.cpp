// Derived structure of the DN/RN trees, checked against counts worked by hand.
#include <catch2/catch.hpp>

#include "contracts/hardware.hpp"
#include "util/integer_math.hpp"

using namespace maeri::contracts;

TEST_CASE("derived structure of a 64-MS MAERI with dn_bw 16", "[hardware]") {
  Hardware hardware;
  hardware.num_ms = 64;
  hardware.dn_bw = 16;
  hardware.rn_bw = 16;
  const HardwareStructure structure = derive_structure(hardware);
  CHECK(structure.tree_levels == 6);   // 2^6 = 64 leaves
  CHECK(structure.dn_switches == 63);  // binary tree with 64 leaves
  CHECK(structure.rn_adders == 63);
  // Link into a switch at level l carries min(dn_bw, 64 >> l) elements/cycle.
  CHECK(structure.dn_link_width == std::vector<std::int64_t>{16, 16, 16, 8, 4, 2});
  // ART forwarding links between adders j, j+1 (j odd) of each level: levels with 4, 8, 16, 32 adders
  // give 1 + 3 + 7 + 15 = 26 links; the root and the 2-adder level have none.
  CHECK(structure.rn_forward_links == 26);
  CHECK(structure.ms_forward_links == 63);
}

TEST_CASE("power-of-two helpers", "[hardware]") {
  CHECK(maeri::util::is_power_of_two(1));
  CHECK(maeri::util::is_power_of_two(512));
  CHECK_FALSE(maeri::util::is_power_of_two(0));
  CHECK_FALSE(maeri::util::is_power_of_two(48));
  CHECK(maeri::util::ceil_log2(1) == 0);
  CHECK(maeri::util::ceil_log2(512) == 9);
}
