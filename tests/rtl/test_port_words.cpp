// Tests of sim/port_words.hpp, the word-level access the fabric driver uses for the Verilated model's ports (an
// integer up to 64 bits, a VlWide of 32-bit words beyond). The expected bits are tested one by one with shifts on
// each word, independently of the field arithmetic.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "sim/port_words.hpp"
#include "verilated.h"

using namespace maeri::sim;

namespace {

template <class Port>
bool bit_of(const Port& port, int bit) {
  if constexpr (std::is_integral_v<Port>) return ((std::uint64_t(port) >> bit) & 1) != 0;
  else return ((port[std::size_t(bit / 32)] >> (bit % 32)) & 1) != 0;
}
template <class Port>
void set_bit(Port& port, int bit) {
  if constexpr (std::is_integral_v<Port>) port = Port(std::uint64_t(port) | (std::uint64_t(1) << bit));
  else port[std::size_t(bit / 32)] |= 1u << (bit % 32);
}

// Fields of every width at every offset of a port of `bits` bits held in a Port.
template <class Port>
void check_fields(int bits) {
  std::mt19937_64 rng(7);
  for (int width : {1, 5, 16, 31, 32, 33, 48, 63, 64}) {
    for (int lsb = 0; lsb + width <= bits; lsb += 7) {
      const std::uint64_t value = rng() & (width == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1);
      // Write into a buffer with neighbours set, load it into a port and compare bit by bit.
      std::vector<std::uint32_t> words(std::size_t(port_words(bits)), 0);
      if (lsb > 0) put_bits(words, 0, 1, 1);
      if (lsb + width < bits) put_bits(words, std::size_t(lsb + width), 1, 1);
      put_bits(words, std::size_t(lsb), width, value);
      Port port{};
      load_words(port, words);
      for (int bit = 0; bit < bits; ++bit) {
        bool expected = (lsb > 0 && bit == 0) || (lsb + width < bits && bit == lsb + width);
        if (bit >= lsb && bit < lsb + width) expected = ((value >> (bit - lsb)) & 1) != 0;
        INFO("width " << width << ", lsb " << lsb << ", bit " << bit);
        REQUIRE(bit_of(port, bit) == expected);
      }
      // Read back from a port set bit by bit.
      Port set{};
      for (int bit = 0; bit < width; ++bit)
        if ((value >> bit) & 1) set_bit(set, lsb + bit);
      REQUIRE(get_bits(set, lsb, width) == value);
      REQUIRE(any_bit_set(set) == (value != 0));
    }
  }
  Port last{};
  set_bit(last, bits - 1);
  REQUIRE(any_bit_set(last));
  REQUIRE(!any_bit_set(Port{}));
}

}  // namespace

TEST_CASE("port words: fields of every width at every offset read and write as the port's bits", "[port_words]") {
  check_fields<VlWide<7>>(200);  // seven words, the last partly used
  check_fields<QData>(64);
  check_fields<IData>(32);
}
