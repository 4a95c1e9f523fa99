// Field offsets of a .mimg from docs/config-image.md's table, and resealing (see image_bytes.hpp).
#include "image_bytes.hpp"

#include <algorithm>
#include <stdexcept>

#include "codegen/config_image.hpp"

namespace maeri::test {

std::uint64_t get_le(const std::vector<std::uint8_t>& bytes, std::size_t offset, int width) {
  if (offset + std::size_t(width) > bytes.size()) throw std::out_of_range("get_le past the end of the image");
  std::uint64_t value = 0;
  for (int i = 0; i < width; ++i) value |= std::uint64_t(bytes[offset + std::size_t(i)]) << (8 * i);
  return value;
}

void put_le(std::vector<std::uint8_t>& bytes, std::size_t offset, int width, std::uint64_t value) {
  if (offset + std::size_t(width) > bytes.size()) throw std::out_of_range("put_le past the end of the image");
  for (int i = 0; i < width; ++i) bytes[offset + std::size_t(i)] = std::uint8_t(value >> (8 * i));
}

std::uint64_t get_field(const std::vector<std::uint8_t>& bytes, const ImageField& field) {
  if (field.bits == 0) return get_le(bytes, field.offset, field.width);
  std::uint64_t value = 0;
  for (int b = 0; b < std::min(field.bits, 64); ++b) {
    const std::size_t bit = std::size_t(field.bit + b);
    value |= std::uint64_t((bytes.at(field.offset + bit / 8) >> (bit % 8)) & 1) << b;
  }
  return value;
}

void put_field(std::vector<std::uint8_t>& bytes, const ImageField& field, std::uint64_t value) {
  if (field.bits == 0) return put_le(bytes, field.offset, field.width, value);
  for (int b = 0; b < field.bits; ++b) {
    const std::size_t bit = std::size_t(field.bit + b);
    std::uint8_t& byte = bytes.at(field.offset + bit / 8);
    const bool on = b < 64 && ((value >> b) & 1);
    byte = std::uint8_t(on ? byte | (1u << (bit % 8)) : byte & ~(1u << (bit % 8)));
  }
}

std::uint64_t field_max(const ImageField& field) {
  const int bits = field.bits > 0 ? field.bits : 8 * field.width;
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

void reseal(std::vector<std::uint8_t>& bytes) {
  put_le(bytes, 16, 4, bytes.size());
  put_le(bytes, 12, 4, codegen::crc32_of(bytes.data() + 16, bytes.size() - 16));
}

std::vector<ImageField> image_fields(const std::vector<std::uint8_t>& bytes) {
  std::vector<ImageField> fields;
  std::size_t at = 20;  // after magic (8), version (2), reserved (2), CRC (4), size (4)
  const auto field = [&](const std::string& name, int width) {
    fields.push_back({name, at, width});
    at += std::size_t(width);
    return get_le(bytes, at - std::size_t(width), width);
  };
  const auto text = [&](const std::string& name) {
    const std::uint64_t length = field(name + ".length", 2);
    for (std::uint64_t i = 0; i < length; ++i) field(name + "[" + std::to_string(i) + "]", 1);
  };
  const std::uint64_t num_ms = field("hardware.num_ms", 4);
  field("hardware.dn_bw", 4);
  field("hardware.rn_bw", 4);
  field("hardware.data_width", 1);
  field("hardware.acc_width", 1);
  const std::uint64_t config_bw = field("hardware.config_bw", 2);
  text("hardware.name");
  text("layer.name");
  field("layer.type", 1);
  for (const contracts::LayerShapeField& shape_field : contracts::kLayerShapeFields)
    field(std::string("layer.") + shape_field.name, 4);
  for (const char* name : {"T_R", "T_S", "T_C", "T_K", "T_N", "T_X'", "T_Y'"}) field(std::string("tile.") + name, 4);
  const std::uint64_t version = get_le(bytes, 8, 2);
  bool has_sdm = version == 4;
  if (version >= 5) {  // the phase order and whether an SDM level follows
    field("phase_order", 1);
    has_sdm = field("sdm_flag", 1) == 1;
  }
  if (version >= 6) field("tile.T_G", 2);
  if (has_sdm) {
    for (const char* name : {"K", "C", "N", "X", "Y"}) field(std::string("sdm.") + name, 4);
    for (int i = 0; i < 5; ++i) field("sdm.order[" + std::to_string(i) + "]", 1);
  }
  if (version >= 7) {  // a fused group's member
    text("fused.group");
    field("fused.position", 2);
    field("fused.members", 2);
    field("fused.stripes", 4);
    field("fused.flags", 1);
  }
  const std::uint64_t configurations = field("configurations", 4);
  for (std::uint64_t c = 0; c < configurations; ++c) {
    const std::string prefix = "configuration[" + std::to_string(c) + "]";
    for (const char* name : {"t_R", "t_S", "t_C", "t_K", "T_N", "T_X'", "T_Y'"}) field(prefix + ".shape." + name, 2);
    if (version >= 6) field(prefix + ".shape.t_G", 2);
    field(prefix + ".forwarding", 1);
    const std::uint64_t words = field(prefix + ".word_count", 4);
    // The dense layout of docs/config-bits.md, LSB first: MS i at 2i, adder a at 2M + 6a, vn_count, entries.
    const auto bits_for = [](std::uint64_t values) {  // bits of a field holding 0 … values − 1
      int bits = 0;
      while ((std::uint64_t{1} << bits) < values) ++bits;
      return bits;
    };
    const int vn_count_bits = bits_for(num_ms + 1), slot_bits = bits_for(2 * (num_ms - 1));
    const std::size_t base = at;
    std::size_t bit = 0;
    const auto bit_field = [&](const std::string& name, int bits) {
      fields.push_back({name, base + bit / 8, int((bit % 8 + std::size_t(bits) + 7) / 8), int(bit % 8), bits});
      bit += std::size_t(bits);
    };
    for (std::uint64_t i = 0; i < num_ms; ++i) bit_field(prefix + ".mult_switch[" + std::to_string(i) + "]", 2);
    for (std::uint64_t a = 0; a + 1 < num_ms; ++a) bit_field(prefix + ".adder_switch[" + std::to_string(a) + "]", 6);
    bit_field(prefix + ".vn_count", vn_count_bits);
    for (std::uint64_t k = 0; k < num_ms; ++k) bit_field(prefix + ".collector[" + std::to_string(k) + "]", slot_bits);
    if (words != (bit + config_bw - 1) / config_bw) throw std::invalid_argument("image_fields: not a well-formed image");
    if (bit < words * config_bw) bit_field(prefix + ".padding", int(words * config_bw - bit));
    at = base + words * config_bw / 8;
  }
  const std::uint64_t instructions = field("program", 4);
  for (std::uint64_t i = 0; i < instructions; ++i) {
    const std::string prefix = "program[" + std::to_string(i) + "]";
    const std::uint64_t opcode = field(prefix + ".opcode", 1);
    const int operands = opcode == 1 ? 4 : opcode == 3 ? 1 : 0;  // FOR: 4, CONFIGURE: 1, others none
    for (int k = 0; k < operands; ++k) field(prefix + ".operand[" + std::to_string(k) + "]", 4);
  }
  if (at != bytes.size()) throw std::invalid_argument("image_fields: bytes after the program");
  return fields;
}

std::optional<ImageField> find_image_field(const std::vector<std::uint8_t>& bytes, const std::string& name) {
  for (const ImageField& field : image_fields(bytes))
    if (field.name == name) return field;
  return std::nullopt;
}

}  // namespace maeri::test
