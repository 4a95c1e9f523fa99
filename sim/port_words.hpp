// Bit fields of the Verilated model's ports, read and written as 32-bit words (bit j of a port is bit j % 32 of
// word j / 32). The model is Verilated as plain C++ (rtl/CMakeLists.txt): a port of up to 64 bits is an unsigned
// integer (CData … QData), a wider one a VlWide<N> of N 32-bit words. The fabric driver fills and reads its ports
// this way on every clock.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "util/integer_math.hpp"

namespace maeri::sim {

// The 32-bit words that hold `bits` bits of a port.
constexpr int port_words(std::int64_t bits) { return int(util::ceil_div(bits, 32)); }

// Word w of a port: an integer port's low or high half, or a VlWide's word (0 beyond the port).
template <class Port>
std::uint32_t port_word(const Port& port, int w) {
  if constexpr (std::is_integral_v<Port>) return w < 2 ? std::uint32_t(std::uint64_t(port) >> (32 * w)) : 0u;
  else return std::size_t(w) < sizeof(Port) / 4 ? std::uint32_t(port[std::size_t(w)]) : 0u;
}

// The 32-bit words a port's type holds.
template <class Port>
constexpr int port_type_words() {
  return int((sizeof(Port) + 3) / 4);
}

// Bits [lsb, lsb + width) of a port, width <= 64.
template <class Port>
std::uint64_t get_bits(const Port& port, int lsb, int width) {
  std::uint64_t value = 0;
  for (int taken = 0; taken < width;) {
    const int bit = lsb + taken, offset = bit % 32, count = std::min(32 - offset, width - taken);
    const std::uint64_t word = port_word(port, bit / 32) >> offset;
    value |= (word & ((std::uint64_t(1) << count) - 1)) << taken;
    taken += count;
  }
  return value;
}

template <class Port>
bool any_bit_set(const Port& port) {
  for (int w = 0; w < port_type_words<Port>(); ++w)
    if (port_word(port, w) != 0) return true;
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

// Sets bit `bit` of a port.
template <class Port>
void set_port_bit(Port& port, std::size_t bit) {
  if constexpr (std::is_integral_v<Port>) port = Port(std::uint64_t(port) | (std::uint64_t(1) << bit));
  else port[bit / 32] |= 1u << (bit % 32);
}

// Clears the words of a port that hold its bits [0, bits) (the whole word of the last one).
template <class Port>
void clear_low_words(Port& port, std::size_t bits) {
  if constexpr (std::is_integral_v<Port>) {
    if (bits > 0) port = 0;
  } else {
    const std::size_t words = std::min<std::size_t>(std::size_t(port_words(std::int64_t(bits))), sizeof(Port) / 4);
    for (std::size_t w = 0; w < words; ++w) port[w] = 0;
  }
}

// Copies a word buffer (the port's bits, nothing above them) into a port.
template <class Port>
void load_words(Port& port, const std::vector<std::uint32_t>& words) {
  const auto word = [&words](std::size_t w) { return w < words.size() ? words[w] : 0u; };
  if constexpr (std::is_integral_v<Port>) {
    port = Port(std::uint64_t(word(0)) | (std::uint64_t(word(1)) << 32));
  } else {
    for (std::size_t w = 0; w < sizeof(Port) / 4; ++w) port[w] = word(w);
  }
}

}  // namespace maeri::sim
