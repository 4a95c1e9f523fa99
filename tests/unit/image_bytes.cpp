// Field offsets of a .mimg from docs/config-image.md's table, and resealing (see image_bytes.hpp).
#include "image_bytes.hpp"

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
  text("hardware.name");
  text("layer.name");
  field("layer.type", 1);
  for (const char* name : {"N", "K", "C", "R", "S", "X", "Y", "stride", "padding"}) field(std::string("layer.") + name, 4);
  for (const char* name : {"T_R", "T_S", "T_C", "T_K", "T_N", "T_X'", "T_Y'"}) field(std::string("tile.") + name, 4);
  const std::uint64_t configurations = field("configurations", 4);
  for (std::uint64_t c = 0; c < configurations; ++c) {
    const std::string prefix = "configuration[" + std::to_string(c) + "]";
    for (const char* name : {"t_R", "t_S", "t_C", "t_K", "T_N", "T_X'", "T_Y'"}) field(prefix + ".shape." + name, 2);
    field(prefix + ".forwarding", 1);
    const std::uint64_t words = field(prefix + ".word_count", 4);
    if (words != 3 * num_ms) throw std::invalid_argument("image_fields: not a well-formed image");
    for (std::uint64_t a = 0; a < words; ++a) field(prefix + ".word[" + std::to_string(a) + "]", 2);
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
