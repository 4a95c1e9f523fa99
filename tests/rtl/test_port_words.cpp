// Tests of sim/port_words.hpp, the word-level access the fabric driver uses for the Verilated model's ports. The
// expected bits come from sc_bv's own bit-by-bit access (operator[]), independent of the word arithmetic.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "sim/port_words.hpp"

using namespace maeri::sim;

TEST_CASE("port words: fields of every width at every offset read and write as sc_bv's bits", "[port_words]") {
  constexpr int kBits = 200;  // seven words, the last partly used
  std::mt19937_64 rng(7);
  for (int width : {1, 5, 16, 31, 32, 33, 48, 63, 64}) {
    for (int lsb = 0; lsb + width <= kBits; lsb += 7) {
      const std::uint64_t value = rng() & (width == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1);
      // Write into a buffer with neighbours set, load it into a port and compare bit by bit.
      std::vector<std::uint32_t> words((kBits + 31) / 32, 0);
      if (lsb > 0) put_bits(words, 0, 1, 1);
      if (lsb + width < kBits) put_bits(words, std::size_t(lsb + width), 1, 1);
      put_bits(words, std::size_t(lsb), width, value);
      sc_dt::sc_bv<kBits> port;
      load_words(port, words);
      for (int bit = 0; bit < kBits; ++bit) {
        bool expected = (lsb > 0 && bit == 0) || (lsb + width < kBits && bit == lsb + width);
        if (bit >= lsb && bit < lsb + width) expected = ((value >> (bit - lsb)) & 1) != 0;
        INFO("width " << width << ", lsb " << lsb << ", bit " << bit);
        REQUIRE(port[bit].to_bool() == expected);
      }
      // Read back from a port set bit by bit.
      sc_dt::sc_bv<kBits> bits;
      for (int bit = 0; bit < width; ++bit) bits[lsb + bit] = ((value >> bit) & 1) != 0;
      REQUIRE(get_bits(bits, lsb, width) == value);
      REQUIRE(any_bit_set(bits) == (value != 0));
    }
  }
  sc_dt::sc_bv<kBits> last;
  last[kBits - 1] = true;
  REQUIRE(any_bit_set(last));
  REQUIRE(!any_bit_set(sc_dt::sc_bv<kBits>()));
}
