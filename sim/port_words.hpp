// Bit fields of the Verilated model's SystemC ports, read and written through sc_bv's own 32-bit words (bit j of
// a port is bit j % 32 of word j / 32). The fabric driver fills and reads its ports this way on every clock:
// sc_bv part-selects and temporaries allocate and go bit by bit, which cost more than the 64-MS model itself.
#pragma once

#include <systemc>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/integer_math.hpp"

namespace maeri::sim {

// The 32-bit words that hold `bits` bits of a port.
constexpr int port_words(std::int64_t bits) { return int(util::ceil_div(bits, 32)); }

// Bits [lsb, lsb + width) of `bits`, width <= 64.
inline std::uint64_t get_bits(const sc_dt::sc_bv_base& bits, int lsb, int width) {
  std::uint64_t value = 0;
  for (int taken = 0; taken < width;) {
    const int bit = lsb + taken, offset = bit % 32, count = std::min(32 - offset, width - taken);
    const std::uint64_t word = std::uint32_t(bits.get_word(bit / 32)) >> offset;
    value |= (word & ((std::uint64_t(1) << count) - 1)) << taken;
    taken += count;
  }
  return value;
}

inline bool any_bit_set(const sc_dt::sc_bv_base& bits) {
  for (int w = 0; w < port_words(bits.length()); ++w)
    if (bits.get_word(w) != 0) return true;
  return false;
}

// ORs the low `width` bits of `value` (width <= 64) into bits [lsb, lsb + width) of a word buffer.
inline void put_bits(std::vector<std::uint32_t>& words, std::size_t lsb, int width, std::uint64_t value) {
  for (int put = 0; put < width;) {
    const std::size_t bit = lsb + std::size_t(put);
    const int offset = int(bit % 32), count = std::min(32 - offset, width - put);
    words[bit / 32] |= std::uint32_t(((value >> put) & ((std::uint64_t(1) << count) - 1)) << offset);
    put += count;
  }
}

// Copies a word buffer (at least ceil(length / 32) words) into `bits`.
inline void load_words(sc_dt::sc_bv_base& bits, const std::vector<std::uint32_t>& words) {
  for (int w = 0; w < port_words(bits.length()); ++w) bits.set_word(w, words[std::size_t(w)]);
}

}  // namespace maeri::sim
