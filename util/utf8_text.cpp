// Well-formed UTF-8 (see utf8_text.hpp).
#include "util/utf8_text.hpp"

namespace maeri::util {

std::size_t first_invalid_utf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t at = 0;
  while (at < text.size()) {
    const unsigned char lead = bytes[at];
    if (lead < 0x80) {
      at += 1;
      continue;
    }
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // below: overlong
      if (lead == 0xED) high = 0x9F;  // above: UTF-16 surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // below: overlong
      if (lead == 0xF4) high = 0x8F;  // above: past U+10FFFF
    } else {
      return at;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
    }
    if (at + length > text.size() || bytes[at + 1] < low || bytes[at + 1] > high) return at;
    for (std::size_t k = 2; k < length; ++k)
      if ((bytes[at + k] & 0xC0) != 0x80) return at;
    at += length;
  }
  return at;
}

}  // namespace maeri::util
