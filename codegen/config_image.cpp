// Implements codegen/config_image.hpp: binary, hex and JSON forms of a ConfigImage, the disassembler and the hardware check
// (layout in docs/config-image.md). Integers are little-endian.
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "codegen/config_image.hpp"

#include "contracts/sdm_rules.hpp"
#include "codegen/image_validation.hpp"
#include "util/input_file.hpp"
#include "util/utf8_text.hpp"

namespace maeri::codegen {
namespace {

class ByteWriter {
 public:
  void u8(std::uint32_t v) { bytes.push_back(std::uint8_t(v)); }
  void u16(std::uint32_t v) { for (int i = 0; i < 2; ++i) bytes.push_back(std::uint8_t(v >> (8 * i))); }
  void u32(std::uint32_t v) { for (int i = 0; i < 4; ++i) bytes.push_back(std::uint8_t(v >> (8 * i))); }
  // A name as a str. What the decoder would refuse of a name is refused here, before anything is written: a length
  // past the u16 count (it would wrap and shift every later field), bytes that are not UTF-8, an empty group name.
  void text(const std::string& s, const char* field) {
    if (s.size() > kMaxImageStringBytes)
      throw ImageError(fmt::format("cannot write the image: {} '{}' is {} bytes; an image holds names of at most {} "
                                   "bytes (a u16 length, docs/config-image.md)",
                                   field, util::shown_value(s), s.size(), kMaxImageStringBytes));
    if (!util::is_valid_utf8(s))
      throw ImageError(fmt::format("cannot write the image: {} '{}' is not valid UTF-8 (byte {})", field,
                                   util::shown_value(s), util::first_invalid_utf8(s)));
    u16(std::uint32_t(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void put_u32_at(size_t offset, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[offset + size_t(i)] = std::uint8_t(v >> (8 * i));
  }
  std::vector<std::uint8_t> bytes;
};

class ByteReader {
 public:
  ByteReader(const std::vector<std::uint8_t>& bytes, const std::string& source) : bytes_(bytes), source_(source) {}
  std::uint32_t u8(const char* what) { return take(1, what); }
  std::uint32_t u16(const char* what) { return take(2, what); }
  std::uint32_t u32(const char* what) { return take(4, what); }
  std::string text(const char* what) {
    const size_t size = take(2, what);
    need(size, what);
    std::string s(bytes_.begin() + long(offset_), bytes_.begin() + long(offset_ + size));
    offset_ += size;
    return s;
  }
  size_t offset() const { return offset_; }
  [[noreturn]] void fail(const std::string& problem) const {
    throw ImageError(fmt::format("{}: byte {}: {}", source_, offset_, problem));
  }

 private:
  void need(size_t size, const char* what) const {
    if (offset_ + size > bytes_.size())
      throw ImageError(fmt::format("{}: truncated: {} needs bytes {}..{} but the image ends at byte {}", source_, what,
                                   offset_, offset_ + size - 1, bytes_.size()));
  }
  std::uint32_t take(size_t size, const char* what) {
    need(size, what);
    std::uint32_t v = 0;
    for (size_t i = 0; i < size; ++i) v |= std::uint32_t(bytes_[offset_ + i]) << (8 * i);
    offset_ += size;
    return v;
  }
  const std::vector<std::uint8_t>& bytes_;
  std::string source_;
  size_t offset_ = 0;
};

int operand_count(Opcode opcode) {
  switch (opcode) {
    case Opcode::For: return 4;
    case Opcode::Configure: return 1;
    default: return 0;
  }
}

const char* opcode_name(Opcode opcode) {
  switch (opcode) {
    case Opcode::End: return "END";
    case Opcode::For: return "FOR";
    case Opcode::EndFor: return "END_FOR";
    case Opcode::Configure: return "CONFIGURE";
    case Opcode::LoadWeights: return "LOAD_WEIGHTS";
    case Opcode::Stream: return "STREAM";
  }
  return "?";
}

}  // namespace

const char* register_name(std::uint32_t reg) {
  return reg < std::uint32_t(kLoopRegisters) ? kLoopRegisterNames[reg] : "?";
}

namespace {

// The image's layer.type byte.
std::uint32_t layer_type_code(contracts::LayerType type) {
  switch (type) {
    case contracts::LayerType::Convolution: return 0;
    case contracts::LayerType::FullyConnected: return 1;
    case contracts::LayerType::Gemm: return 2;
  }
  return 0;
}

}  // namespace

std::uint16_t image_format_version(const ConfigImage& image) {
  if (image.fused) return kFusedImageFormatVersion;
  if (image.mapping.groups_per_step() != 1) return kGroupsImageFormatVersion;
  if (image.mapping.phase_order != contracts::kDefaultPhaseOrder) return kPhaseOrderImageFormatVersion;
  return image.mapping.sdm.blocked ? kSdmImageFormatVersion : kSingleLevelImageFormatVersion;
}

std::array<std::int64_t, kLoopRegisters> loop_register_extents(const contracts::Layer& layer) {
  return {layer.R,       layer.S,         layer.group_channels(), layer.group_filters(), layer.groups,
          layer.group_filters(), layer.group_channels(), layer.N, layer.output_x(), layer.output_y()};
}

std::uint32_t crc32_of(const std::uint8_t* data, size_t size) {
  return std::uint32_t(crc32(crc32(0L, Z_NULL, 0), data, uInt(size)));
}

bool ImageHardware::operator==(const ImageHardware& o) const {
  return std::tie(name, num_ms, dn_bw, rn_bw, data_width, acc_width, config_bw) ==
         std::tie(o.name, o.num_ms, o.dn_bw, o.rn_bw, o.data_width, o.acc_width, o.config_bw);
}
bool ImageConfiguration::operator==(const ImageConfiguration& o) const {
  return !(shape < o.shape) && !(o.shape < shape) && forwarding == o.forwarding && fabric == o.fabric;
}
bool Instruction::operator==(const Instruction& o) const {
  return opcode == o.opcode && std::equal(operand, operand + kMaxInstructionOperands, o.operand);
}
bool ConfigImage::operator==(const ConfigImage& o) const {
  const auto layer_tuple = [](const contracts::Layer& l) {
    return std::tie(l.name, l.type);
  };
  return hardware == o.hardware && layer_tuple(layer) == layer_tuple(o.layer) && contracts::same_shape(layer, o.layer) &&
         mapping == o.mapping &&
         configurations == o.configurations && program == o.program && fused == o.fused;
}

ImageHardware image_hardware_of(const contracts::Hardware& hardware) {
  return {hardware.name,
          std::uint32_t(hardware.num_ms),
          std::uint32_t(hardware.dn_bw),
          std::uint32_t(hardware.rn_bw),
          std::uint8_t(hardware.data_width),
          std::uint8_t(hardware.acc_width),
          std::uint16_t(hardware.config_bw)};
}

std::vector<std::uint8_t> encode_image(const ConfigImage& image) {
  ByteWriter out;
  for (char c : kImageMagic) out.u8(std::uint8_t(c));
  out.u16(image_format_version(image));
  out.u16(0);  // reserved
  out.u32(0);  // CRC, filled in below
  out.u32(0);  // total size, filled in below
  const ImageHardware& hw = image.hardware;
  out.u32(hw.num_ms);
  out.u32(hw.dn_bw);
  out.u32(hw.rn_bw);
  out.u8(hw.data_width);
  out.u8(hw.acc_width);
  out.u16(hw.config_bw);
  out.text(hw.name, "hardware.name");
  const contracts::Layer& layer = image.layer;
  out.text(layer.name, "layer.name");
  out.u8(layer_type_code(layer.type));
  for (const contracts::LayerShapeField& field : contracts::kLayerShapeFields) out.u32(std::uint32_t(layer.*field.member));
  for (int d = 0; d < contracts::kNumTileDims; ++d) out.u32(std::uint32_t(image.mapping[d]));
  const std::uint16_t version = image_format_version(image);
  if (version >= kPhaseOrderImageFormatVersion) {  // versions 5 to 7: the phase order, the SDM level's flag
    out.u8(std::uint8_t(image.mapping.phase_order));
    out.u8(image.mapping.sdm.blocked ? 1 : 0);
  }
  if (version >= kGroupsImageFormatVersion) out.u16(std::uint32_t(image.mapping.groups_per_step()));
  if (image.mapping.sdm.blocked) {  // version 4, and 5 to 7 with the flag: the SDM level
    for (std::int64_t block : image.mapping.sdm.block) out.u32(std::uint32_t(block));
    for (std::uint8_t dim : image.mapping.sdm.order) out.u8(dim);
  }
  if (image.fused) {  // version 7: the fused member
    const contracts::FusedMember& member = *image.fused;
    if (member.group.empty())
      throw ImageError("cannot write the image: fused.group is empty, expected the group's name");
    out.text(member.group, "fused.group");
    out.u16(std::uint32_t(member.position));
    out.u16(std::uint32_t(member.members));
    out.u32(std::uint32_t(member.role.stripes));
    out.u8((member.role.input_in_sdm ? kFusedFlagInputInSdm : 0) | (member.role.output_in_sdm ? kFusedFlagOutputInSdm : 0) |
           (member.role.weights_pinned ? kFusedFlagWeightsPinned : 0) |
           (member.role.output_over_shortcut ? kFusedFlagOutputOverShortcut : 0) |
           (member.role.weights_in_sdm ? kFusedFlagWeightsInSdm : 0) |
           (member.role.token_stripes ? kFusedFlagTokenStripes : 0) |
           (member.role.query_rows ? kFusedFlagQueryRows : 0));
  }
  out.u32(std::uint32_t(image.configurations.size()));
  for (const ImageConfiguration& configuration : image.configurations) {
    const PhaseShape& s = configuration.shape;
    for (int v : {s.t_r, s.t_s, s.t_c, s.t_k, s.t_n, s.t_x, s.t_y}) out.u16(std::uint32_t(v));
    if (version >= kGroupsImageFormatVersion) out.u16(std::uint32_t(s.t_g));
    out.u8(configuration.forwarding);
    const std::vector<std::uint8_t> words = config_bytes(configuration.fabric, hw.config_bw);
    out.u32(std::uint32_t(contracts::configuration_words(hw.num_ms, hw.config_bw)));
    for (std::uint8_t byte : words) out.u8(byte);  // word 0, 1, 2, … in order, each little-endian
  }
  out.u32(std::uint32_t(image.program.size()));
  for (const Instruction& instruction : image.program) {
    out.u8(std::uint8_t(instruction.opcode));
    for (int i = 0; i < operand_count(instruction.opcode); ++i) out.u32(instruction.operand[i]);
  }
  out.put_u32_at(kImageSizeOffset, std::uint32_t(out.bytes.size()));
  out.put_u32_at(kImageCrcOffset, crc32_of(out.bytes.data() + kImageSizeOffset, out.bytes.size() - kImageSizeOffset));
  return out.bytes;
}

namespace {

// The fixed header: magic, format version, size and CRC, all checked before any field is read. Returns the version.
std::uint32_t read_fixed_header(ByteReader& in, const std::vector<std::uint8_t>& bytes, const std::string& source) {
  char magic[8];
  for (char& c : magic) c = char(in.u8("the magic number"));
  if (std::memcmp(magic, kImageMagic, 8) != 0)
    throw ImageError(fmt::format("{}: not a MAERI configuration image (the file does not start with 'MAERIIMG')",
                                 source));
  const std::uint32_t version = in.u16("the format version");
  if (version < kSingleLevelImageFormatVersion || version > kImageFormatVersion)
    throw ImageError(fmt::format("{}: unsupported image format version {} (this build reads versions {} to {})",
                                 source, version, kSingleLevelImageFormatVersion, kImageFormatVersion));
  if (bytes.size() > kMaxImageBytes)
    throw ImageError(fmt::format("{}: the image has {} bytes, more than the largest valid image ({} bytes)", source,
                                 bytes.size(), kMaxImageBytes));
  in.u16("the reserved header field");
  const std::uint32_t crc = in.u32("the CRC-32");
  const std::uint32_t size = in.u32("the image size");
  if (size != bytes.size())
    throw ImageError(fmt::format("{}: truncated or padded: the header says {} bytes, the file has {}", source, size,
                                 bytes.size()));
  const std::uint32_t actual = crc32_of(bytes.data() + kImageSizeOffset, bytes.size() - kImageSizeOffset);
  if (crc != actual)
    throw ImageError(fmt::format("{}: CRC mismatch: the header says {:08x}, the contents give {:08x} (the image is "
                                 "corrupt)", source, crc, actual));
  static_assert(kImageFixedHeaderBytes == kImageSizeOffset + 4, "the size field ends the fixed header");
  return version;
}

void read_hardware(ByteReader& in, ImageHardware& hw, ImageFieldOffsets& at) {
  at.num_ms = in.offset();
  hw.num_ms = in.u32("hardware.num_ms");
  at.dn_bw = in.offset();
  hw.dn_bw = in.u32("hardware.dn_bw");
  at.rn_bw = in.offset();
  hw.rn_bw = in.u32("hardware.rn_bw");
  at.data_width = in.offset();
  hw.data_width = std::uint8_t(in.u8("hardware.data_width"));
  at.acc_width = in.offset();
  hw.acc_width = std::uint8_t(in.u8("hardware.acc_width"));
  at.config_bw = in.offset();
  hw.config_bw = std::uint16_t(in.u16("hardware.config_bw"));
  at.hardware_name = in.offset();
  hw.name = in.text("hardware.name");
}

void read_layer(ByteReader& in, contracts::Layer& layer, ImageFieldOffsets& at, const std::string& source) {
  at.layer_name = in.offset();
  layer.name = in.text("layer.name");
  at.layer_type = in.offset();
  const std::uint32_t type = in.u8("layer.type");
  if (type > 2)
    throw ImageError(fmt::format("{}: byte {}: layer.type is {}, expected 0 (convolution), 1 (fully connected) or 2 "
                                 "(GEMM)",
                                 source, at.layer_type, type));
  for (const contracts::LayerType candidate :
       {contracts::LayerType::Convolution, contracts::LayerType::FullyConnected, contracts::LayerType::Gemm})
    if (layer_type_code(candidate) == type) layer.type = candidate;
  std::size_t dim = 0;
  for (const contracts::LayerShapeField& field : contracts::kLayerShapeFields) {
    at.layer_dims[dim++] = in.offset();
    layer.*field.member = in.u32("the layer dimensions");
  }
}

// The tile sizes and, by format version, the phase order and the SDM level.
void read_mapping(ByteReader& in, std::uint32_t version, contracts::Mapping& tile, ImageFieldOffsets& at,
                  const std::string& source) {
  for (int d = 0; d < contracts::kNumTileDims; ++d) {
    at.tile[d] = in.offset();
    tile[d] = in.u32("the tile sizes");
  }
  bool has_sdm = version == kSdmImageFormatVersion;
  if (version >= kPhaseOrderImageFormatVersion) {
    at.phase_order = in.offset();
    const std::uint32_t order = in.u8("the phase order");
    if (order > 1)
      throw ImageError(fmt::format("{}: byte {}: phase_order is {}, expected 0 (folds-outer) or 1 (filters-outer)",
                                   source, at.phase_order, order));
    tile.phase_order = contracts::PhaseOrder(order);
    at.sdm_flag = in.offset();
    const std::uint32_t flag = in.u8("the SDM level flag");
    if (flag > 1)
      throw ImageError(fmt::format("{}: byte {}: sdm flag is {}, expected 0 (no SDM level) or 1", source, at.sdm_flag,
                                   flag));
    has_sdm = flag == 1;
  }
  if (version >= kGroupsImageFormatVersion) {
    at.groups = in.offset();
    tile.tile.groups = in.u16("T_G");
  }
  if (!has_sdm) return;
  contracts::SdmLevel& sdm = tile.sdm;
  sdm.blocked = true;
  at.sdm = in.offset();
  for (std::int64_t& block : sdm.block) block = in.u32("the SDM tile sizes");
  at.sdm_order = in.offset();
  std::string order;
  for (std::uint8_t& loop : sdm.order) {
    loop = std::uint8_t(in.u8("the SDM loop order"));
    order += loop < contracts::kNumSdmDims ? contracts::sdm_dim_key(loop) : "?";
  }
  const std::string problem = contracts::order_problem(order);
  if (!problem.empty())
    throw ImageError(fmt::format("{}: byte {}: sdm.order '{}' is not a permutation of K, C, N, X, Y: {}", source,
                                 at.sdm_order, order, problem));
}

// Version 7: the fused member's record (its values are checked by validate_image, with the mapping they constrain).
void read_fused_member(ByteReader& in, std::uint32_t version, ConfigImage& image, ImageFieldOffsets& at,
                       const std::string& source) {
  if (version < kFusedImageFormatVersion) return;
  contracts::FusedMember& member = image.fused.emplace();
  at.fused_group = in.offset();
  member.group = in.text("fused.group");
  at.fused_position = in.offset();
  member.position = in.u16("fused.position");
  at.fused_members = in.offset();
  member.members = in.u16("fused.members");
  at.fused_stripes = in.offset();
  member.role.stripes = in.u32("fused.stripes");
  at.fused_flags = in.offset();
  const std::uint32_t flags = in.u8("fused.flags");
  if ((flags & ~std::uint32_t(kFusedFlagsKnown)) != 0)
    throw ImageError(fmt::format("{}: byte {}: fused.flags is 0x{:02x}, expected only the bits input_in_sdm (0x01), "
                                 "output_in_sdm (0x02), weights_pinned (0x04), output_over_shortcut (0x08), "
                                 "weights_in_sdm (0x10), token_stripes (0x20) and query_rows (0x40)",
                                 source, at.fused_flags, flags));
  member.role.input_in_sdm = (flags & kFusedFlagInputInSdm) != 0;
  member.role.output_in_sdm = (flags & kFusedFlagOutputInSdm) != 0;
  member.role.weights_pinned = (flags & kFusedFlagWeightsPinned) != 0;
  member.role.output_over_shortcut = (flags & kFusedFlagOutputOverShortcut) != 0;
  member.role.weights_in_sdm = (flags & kFusedFlagWeightsInSdm) != 0;
  member.role.token_stripes = (flags & kFusedFlagTokenStripes) != 0;
  member.role.query_rows = (flags & kFusedFlagQueryRows) != 0;
}

void read_configurations(ByteReader& in, std::uint32_t version, ConfigImage& image, ImageFieldOffsets& at,
                         const std::string& source) {
  const ImageHardware& hw = image.hardware;
  at.configuration_count = in.offset();
  const std::uint32_t configurations = in.u32("the configuration count");
  for (std::uint32_t c = 0; c < configurations; ++c) {
    ImageConfiguration configuration;
    ImageFieldOffsets::Configuration& where = at.configurations.emplace_back();
    where.shape = in.offset();
    PhaseShape& s = configuration.shape;
    for (int* field : {&s.t_r, &s.t_s, &s.t_c, &s.t_k, &s.t_n, &s.t_x, &s.t_y}) *field = int(in.u16("a phase shape"));
    if (version >= kGroupsImageFormatVersion) s.t_g = int(in.u16("a phase shape"));
    where.forwarding = in.offset();
    const std::uint32_t forwarding = in.u8("a forwarding flag");
    if (forwarding > 1)
      throw ImageError(fmt::format("{}: byte {}: configuration[{}].forwarding is {}, expected 0 or 1", source,
                                   where.forwarding, c, forwarding));
    configuration.forwarding = forwarding == 1;
    const std::uint32_t words = in.u32("a configuration word count");
    const std::int64_t expected_words = contracts::configuration_words(hw.num_ms, hw.config_bw);
    if (words != expected_words)
      in.fail(fmt::format("configuration {} has {} words, expected {} ({} configuration bits of {} MS in words of "
                          "config_bw = {} bits)",
                          c, words, expected_words, contracts::configuration_bits(hw.num_ms), hw.num_ms, hw.config_bw));
    where.words = in.offset();
    std::vector<std::uint8_t> word_bytes;
    for (std::uint32_t b = 0; b < words * std::uint32_t(hw.config_bw / 8); ++b)
      word_bytes.push_back(std::uint8_t(in.u8("configuration words")));
    try {
      configuration.fabric = config_from_bytes(hw.num_ms, hw.config_bw, word_bytes.data(), word_bytes.size());
    } catch (const std::invalid_argument& error) {
      throw ImageError(fmt::format("{}: byte {}: configuration[{}].words: {}", source, where.words, c, error.what()));
    }
    image.configurations.push_back(configuration);
  }
}

void read_program(ByteReader& in, std::vector<Instruction>& program, ImageFieldOffsets& at) {
  at.instruction_count = in.offset();
  const std::uint32_t instructions = in.u32("the instruction count");
  for (std::uint32_t i = 0; i < instructions; ++i) {
    Instruction instruction;
    at.instructions.push_back(in.offset());
    const std::uint32_t opcode = in.u8("an opcode");
    if (opcode > std::uint32_t(Opcode::Stream)) in.fail(fmt::format("instruction {} has unknown opcode {}", i, opcode));
    instruction.opcode = Opcode(opcode);
    for (int k = 0; k < operand_count(instruction.opcode); ++k) instruction.operand[k] = in.u32("an operand");
    program.push_back(instruction);
  }
}

}  // namespace

ConfigImage decode_image(const std::vector<std::uint8_t>& bytes, const std::string& source) {
  ByteReader in(bytes, source);
  const std::uint32_t version = read_fixed_header(in, bytes, source);
  // Fields are read as they come; where each was read is kept for validate_image's messages.
  ImageFieldOffsets at;
  ConfigImage image;
  read_hardware(in, image.hardware, at);
  validate_image_hardware(image.hardware, at, source);  // before any configuration of num_ms words is read
  read_layer(in, image.layer, at, source);
  read_mapping(in, version, image.mapping, at, source);
  read_fused_member(in, version, image, at, source);
  read_configurations(in, version, image, at, source);
  read_program(in, image.program, at);
  if (in.offset() != bytes.size()) in.fail("unexpected bytes after the program");
  validate_image(image, at, source);
  return image;
}

std::string to_readmemh(const std::vector<std::uint8_t>& bytes) {
  std::string text = fmt::format("// MAERI configuration image, {} bytes, 32-bit little-endian words\n", bytes.size());
  for (size_t i = 0; i < bytes.size(); i += 4) {
    std::uint32_t word = 0;
    for (size_t b = 0; b < 4 && i + b < bytes.size(); ++b) word |= std::uint32_t(bytes[i + b]) << (8 * b);
    text += fmt::format("{:08x}\n", word);
  }
  return text;
}

std::vector<std::uint8_t> from_readmemh(const std::string& text, const std::string& source) {
  std::vector<std::uint8_t> bytes;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  size_t declared = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.rfind("//", 0) == 0) {
      size_t size = 0;  // the writer's comment gives the exact byte count (the last word may be padded)
      if (std::sscanf(line.c_str(), "// MAERI configuration image, %zu bytes", &size) == 1) declared = size;
      continue;
    }
    if (line.empty()) continue;
    if (line.size() != 8 || line.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      throw ImageError(fmt::format("{}:{}: expected 8 hex digits, found '{}'", source, number,
                                   util::shown_value(line)));
    const std::uint32_t word = std::uint32_t(std::stoul(line, nullptr, 16));
    for (int b = 0; b < 4; ++b) bytes.push_back(std::uint8_t(word >> (8 * b)));
  }
  if (declared > bytes.size())
    throw ImageError(fmt::format("{}: truncated: the header comment says {} bytes, the words hold {}", source,
                                 declared, bytes.size()));
  if (declared > 0) bytes.resize(declared);
  return bytes;
}

namespace {

// The FOR instructions of a fused member's stripe register (the stripe loop and, with a ragged last query-row block,
// its second loop), or none when the image has no stripes or its program does not have that shape.
std::vector<std::size_t> stripe_loops(const ConfigImage& image) {
  if (!image.fused || image.fused->role.stripes <= 1) return {};
  const std::uint32_t stripe_register = std::uint32_t(kFirstBlockRegister + contracts::stripe_dim(image.fused->role));
  std::vector<std::size_t> loops;
  for (std::size_t pc = 0; pc < image.program.size(); ++pc) {
    const Instruction& instruction = image.program[pc];
    if (instruction.opcode == Opcode::For && instruction.operand[0] == stripe_register) loops.push_back(pc);
  }
  if (loops.size() == 1) return loops;
  if (loops.size() != 2 || !image.fused->role.query_rows) return {};
  // The ragged loop: one iteration right after the stripe loop's END_FOR, starting where the stripe loop ends.
  std::size_t end = loops[0] + 1;
  for (int depth = 0; end < image.program.size(); ++end) {
    const Opcode opcode = image.program[end].opcode;
    if (opcode == Opcode::EndFor && depth-- == 0) break;
    if (opcode == Opcode::For) ++depth;
  }
  const Instruction &full = image.program[loops[0]], &ragged = image.program[loops[1]];
  const bool follows = loops[1] == end + 1 && ragged.operand[2] == 1 && ragged.operand[3] == full.operand[3] &&
                       ragged.operand[1] == full.operand[1] + full.operand[2] * full.operand[3];
  return follows ? loops : std::vector<std::size_t>{};
}

}  // namespace

std::optional<std::size_t> stripe_loop(const ConfigImage& image) {
  const std::vector<std::size_t> loops = stripe_loops(image);
  if (loops.empty()) return std::nullopt;
  return loops.front();
}

std::optional<std::size_t> ragged_stripe_loop(const ConfigImage& image) {
  const std::vector<std::size_t> loops = stripe_loops(image);
  if (loops.size() < 2) return std::nullopt;
  return loops.back();
}

std::string fused_member_text(const contracts::FusedMember& member) {
  const contracts::FusedRole& role = member.role;
  std::string text = fmt::format("fused     member {} of {} of group '{}'\n", member.position + 1, member.members,
                                 member.group);
  text += role.input_in_sdm ? "          input  from the SDM (a tensor an earlier member of the group left there)\n"
                            : role.query_rows && role.stripes > 1
                                ? "          input  read from DRAM, whole in every stripe (the keys or values of every query row)\n"
                                : "          input  read from DRAM\n";
  text += role.output_in_sdm ? "          output kept in the SDM for the group's later members (not written to DRAM)\n"
                             : "          output written to DRAM\n";
  text += role.stripes > 1
              ? fmt::format("          {}stripes {}: each iteration of the {} loop is one stripe, after which the "
                            "controller yields the fabric to the next member\n",
                            role.query_rows ? "query-row " : role.token_stripes ? "token " : "", role.stripes,
                            register_name(std::uint32_t(kFirstBlockRegister + contracts::stripe_dim(role))))
              : "          stripes 1: the whole layer runs before the next member (shared tensors held whole)\n";
  if (role.weights_pinned) text += "          weights pinned in the SDM across the stripes (fetched from DRAM once)\n";
  else if (role.stripes > 1 && !role.weights_in_sdm) text += "          weights fetched from DRAM again for every stripe\n";
  if (role.output_over_shortcut)
    text += "          output written over the residual shortcut's SDM rows (the add reads each shortcut element first)\n";
  if (role.weights_in_sdm)
    text += "          weights (operand A) from the SDM (a tensor an earlier member of the group left there)\n";
  return text;
}

std::string disassemble(const ConfigImage& image) {
  std::string text;
  const std::optional<std::size_t> stripes_at = stripe_loop(image), ragged_at = ragged_stripe_loop(image);
  if (image.mapping.phase_order != contracts::kDefaultPhaseOrder)
    text += fmt::format("      phase order {}: the k0 loop runs outside r0, s0, c0\n",
                        contracts::phase_order_text(image.mapping.phase_order));
  if (image.mapping.sdm.blocked)
    text += fmt::format("      SDM tile (B_K,B_C,B_N,B_X',B_Y') = ({}), order {} (outer to inner): SDM loops over "
                        "kb, cb, nb, xb, yb; c0, k0 count from cb, kb\n",
                        contracts::blocks_text(image.mapping.sdm), contracts::order_text(image.mapping.sdm.order));
  int depth = 0;
  for (size_t pc = 0; pc < image.program.size(); ++pc) {
    const Instruction& in = image.program[pc];
    if (in.opcode == Opcode::EndFor) --depth;
    std::string line = fmt::format("{:4}  {}{}", pc, std::string(size_t(2 * std::max(depth, 0)), ' '),
                                   opcode_name(in.opcode));
    if (in.opcode == Opcode::For) {
      const std::uint32_t last = in.operand[1] + (in.operand[2] - 1) * in.operand[3];
      line += fmt::format(" {} = {} .. {} step {}   ({} iteration{})", register_name(in.operand[0]), in.operand[1], last,
                          in.operand[3], in.operand[2], in.operand[2] == 1 ? "" : "s");
      if (stripes_at == pc)
        line += "   <- stripe loop: one stripe per iteration, then the controller yields the fabric to the next member";
      if (ragged_at == pc) line += "   <- the last stripe: the ragged block of query rows";
    } else if (in.opcode == Opcode::Configure && in.operand[0] < image.configurations.size()) {
      const PhaseShape& s = image.configurations[in.operand[0]].shape;
      line += fmt::format(" {}   (VN size {} = {}x{}x{}, {} VNs{})", in.operand[0], s.vn_size(), s.t_r, s.t_s, s.t_c,
                          s.vn_count(), image.configurations[in.operand[0]].forwarding ? ", MN forwarding" : "");
    } else if (in.opcode == Opcode::Configure) {
      line += fmt::format(" {}", in.operand[0]);
    } else if (in.opcode == Opcode::LoadWeights) {
      line += image.mapping.sdm.blocked ? "   (weights at r0, s0, cb + c0, kb + k0 of group g0)"
                                     : "   (weights at r0, s0, c0, k0 of group g0)";
    } else if (in.opcode == Opcode::Stream) {
      line += image.mapping.sdm.blocked
                  ? "   (the N, X', Y' steps of the SDM block at nb, xb, yb; write on the first fold, accumulate after)"
                  : "   (all N, X', Y' steps; write on the first fold, accumulate after)";
    }
    text += line + "\n";
    if (in.opcode == Opcode::For) ++depth;
  }
  return text;
}

std::string to_json(const ConfigImage& image) {
  using nlohmann::ordered_json;
  ordered_json root;
  root["format_version"] = image_format_version(image);
  const ImageHardware& hw = image.hardware;
  root["hardware"] = {{"name", hw.name},           {"num_ms", hw.num_ms},         {"dn_bw", hw.dn_bw},
                      {"rn_bw", hw.rn_bw},         {"data_width", hw.data_width}, {"acc_width", hw.acc_width},
                      {"config_bw", hw.config_bw}};
  const contracts::Layer& l = image.layer;
  root["layer"] = {{"name", l.name}, {"type", contracts::to_string(l.type)}};
  for (const contracts::LayerShapeField& field : contracts::kLayerShapeFields) root["layer"][field.name] = l.*field.member;
  root["tile"] = contracts::to_compact_string(image.mapping.tile);
  if (image.mapping.sdm.blocked)
    root["sdm"] = {{"tile", contracts::blocks_text(image.mapping.sdm)}, {"order", contracts::order_text(image.mapping.sdm.order)}};
  if (image.mapping.phase_order != contracts::kDefaultPhaseOrder) root["phase_order"] = contracts::phase_order_text(image.mapping.phase_order);
  if (image.fused) {
    const contracts::FusedMember& member = *image.fused;
    root["fused"] = {{"group", member.group},
                     {"position", member.position},
                     {"members", member.members},
                     {"stripes", member.role.stripes},
                     {"input_in_sdm", member.role.input_in_sdm},
                     {"output_in_sdm", member.role.output_in_sdm},
                     {"weights_pinned", member.role.weights_pinned},
                     {"output_over_shortcut", member.role.output_over_shortcut}};
    if (member.role.weights_in_sdm) root["fused"]["weights_in_sdm"] = true;  // a matrix product's operand A
    if (member.role.token_stripes) root["fused"]["token_stripes"] = true;    // stripes along N
    if (member.role.query_rows) root["fused"]["query_rows"] = true;  // a product's stripes: its query rows (K)
  }
  ordered_json configurations = ordered_json::array();
  for (const ImageConfiguration& configuration : image.configurations) {
    const PhaseShape& s = configuration.shape;
    ordered_json entry;
    entry["shape"] = {s.t_r, s.t_s, s.t_c, s.t_k, s.t_n, s.t_x, s.t_y};
    entry["forwarding"] = configuration.forwarding;
    ordered_json adders = ordered_json::array();
    for (const AdderSwitchConfig& adder : configuration.fabric.adder_switches) adders.push_back(describe(adder));
    entry["adder_switches"] = adders;
    entry["collector_slots"] = configuration.fabric.collector_slots;
    ordered_json words = ordered_json::array();
    for (const ConfigWord& word : config_words(configuration.fabric, image.hardware.config_bw)) {
      std::string hex;  // most significant limb first, as the word's bits read
      for (auto limb = word.limbs.rbegin(); limb != word.limbs.rend(); ++limb)
        hex += fmt::format("{:0{}x}", *limb, std::min(16, image.hardware.config_bw / 4));
      words.push_back(hex);
    }
    entry["config_words"] = words;
    configurations.push_back(entry);
  }
  root["configurations"] = configurations;
  ordered_json program = ordered_json::array();
  const std::optional<std::size_t> stripes_at = stripe_loop(image);
  for (std::size_t pc = 0; pc < image.program.size(); ++pc) {
    const Instruction& in = image.program[pc];
    ordered_json entry;
    entry["op"] = opcode_name(in.opcode);
    if (operand_count(in.opcode) > 0)
      entry["operands"] = std::vector<std::uint32_t>(in.operand, in.operand + operand_count(in.opcode));
    if (stripes_at == pc || ragged_stripe_loop(image) == pc) entry["stripe_loop"] = true;
    program.push_back(entry);
  }
  root["program"] = program;
  // Never throws on a name that is not UTF-8 (an in-memory image; a decoded one has been validated): such bytes
  // become U+FFFD.
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void check_image_matches(const ConfigImage& image, const contracts::Hardware& hardware, const std::string& source) {
  const std::string differences = hardware_differences(image.hardware, image_hardware_of(hardware), "image");
  if (!differences.empty())
    throw ImageError(fmt::format("{}: built for hardware '{}', not for '{}': {}", source,
                                 util::shown_value(image.hardware.name), util::shown_value(hardware.name),
                                 differences));
}

std::string hardware_differences(const ImageHardware& built_for, const ImageHardware& hardware, const char* built_label) {
  std::string differences;
  const auto compare = [&](const char* field, std::uint32_t built_value, std::uint32_t hardware_value) {
    if (built_value != hardware_value)
      differences += fmt::format("{}{} {} ({}) vs {} (hardware)", differences.empty() ? "" : ", ", field, built_value,
                                 built_label, hardware_value);
  };
  compare("num_ms", built_for.num_ms, hardware.num_ms);
  compare("dn_bw", built_for.dn_bw, hardware.dn_bw);
  compare("rn_bw", built_for.rn_bw, hardware.rn_bw);
  compare("data_width", built_for.data_width, hardware.data_width);
  compare("acc_width", built_for.acc_width, hardware.acc_width);
  compare("config_bw", built_for.config_bw, hardware.config_bw);
  return differences;
}

}  // namespace maeri::codegen
