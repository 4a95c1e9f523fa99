// Test fixture for editing encoded configuration images byte by byte: where each field of a .mimg lies, walked
// from the table in docs/config-image.md (independently of the decoder, so tests can check the offsets the
// decoder reports), and resealing an edited image (size field and CRC-32 recomputed with the codec's crc32_of,
// so that only the semantic checks can catch the edit). Used by tests/unit/test_image_validation.cpp and by
// tests/cli/patch_image.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace maeri::test {

struct ImageField {
  std::string name;  // as the validator names it, e.g. "layer.stride", "configuration[0].shape.t_K"
  std::size_t offset = 0;
  int width = 0;     // bytes, little-endian (a bit field: the bytes it touches)
  int bit = 0;       // a bit field (bits > 0): its first bit is bit `bit` of the byte at `offset`
  int bits = 0;
};

// Every fixed-width field of a well-formed image, in file order: hardware, the bytes of both names
// ("hardware.name[i]", "layer.name[i]"), layer, tile (with "tile.T_G" from version 6), the phase order and SDM flag
// (version 5 on), the SDM level, a fused member's "fused.group[i]", "fused.position", "fused.members",
// "fused.stripes", "fused.flags" (version 7), the two counts ("configurations", "program"), each
// configuration's shape, forwarding flag, word count and the bit fields of its dense configuration
// (docs/config-bits.md: "configuration[c].mult_switch[i]", ".adder_switch[a]", ".vn_count", ".collector[k]",
// ".padding" when the last word has any), each instruction's opcode and operands ("program[i].opcode",
// "program[i].operand[k]").
std::vector<ImageField> image_fields(const std::vector<std::uint8_t>& bytes);
std::optional<ImageField> find_image_field(const std::vector<std::uint8_t>& bytes, const std::string& name);

std::uint64_t get_le(const std::vector<std::uint8_t>& bytes, std::size_t offset, int width);
void put_le(std::vector<std::uint8_t>& bytes, std::size_t offset, int width, std::uint64_t value);
// A field's value (bytes or bits) and an edit of it; the bits of a field wider than 64 bits past bit 63 read 0.
std::uint64_t get_field(const std::vector<std::uint8_t>& bytes, const ImageField& field);
void put_field(std::vector<std::uint8_t>& bytes, const ImageField& field, std::uint64_t value);
// The largest value the field holds.
std::uint64_t field_max(const ImageField& field);

// Writes the size field (offset 16) and the CRC-32 (offset 12) of the edited bytes.
void reseal(std::vector<std::uint8_t>& bytes);

}  // namespace maeri::test
