// ConfigImage: everything the accelerator needs to run one layer under one mapping — the hardware it was built
// for, the layer and mapping, every fabric configuration (config-port words) and the control program that
// loops over weight phases and steps. Binary layout (`.mimg`), hex and JSON forms: docs/config-image.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/fabric_config.hpp"
#include "codegen/tile_placement.hpp"
#include "contracts/fused_role.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::codegen {

inline constexpr char kImageMagic[8] = {'M', 'A', 'E', 'R', 'I', 'I', 'M', 'G'};

// Byte sizes of the binary layout's parts (the table in docs/config-image.md), shared by the encoder, the decoder
// and the largest valid image (kMaxImageBytes, image_validation.hpp).
inline constexpr std::size_t kImageCrcOffset = 12;         // after the magic, the version and a reserved u16
inline constexpr std::size_t kImageSizeOffset = 16;        // the CRC covers the image from here to its end
inline constexpr std::size_t kImageFixedHeaderBytes = 20;  // magic, version, reserved, CRC, size
inline constexpr std::size_t kImageHardwareBytes = 3 * 4 + 2 * 1 + 2;  // u32 num_ms, dn_bw, rn_bw; u8 widths; u16 config_bw
inline constexpr std::size_t kImageStringLengthBytes = 2;  // a str is its u16 byte count, then the bytes
inline constexpr std::size_t kMaxImageStringBytes = 0xFFFF;
inline constexpr std::size_t kImageLayerBytes = 1 + contracts::kLayerShapeFields.size() * 4;  // u8 type, u32 dimensions
inline constexpr std::size_t kImageTileBytes = contracts::kNumTileDims * 4;
inline constexpr std::size_t kImagePhaseOrderBytes = 1 + 1;  // versions 5, 6: u8 phase order, u8 SDM level flag
inline constexpr std::size_t kImageGroupsBytes = 2;  // version 6: u16 T_G after the SDM level flag, and after each
                                                     // configuration's shape its t_G
inline constexpr std::size_t kImageSdmLevelBytes = contracts::kNumSdmDims * (4 + 1);  // u32 block sizes, u8 loop order
// Version 7, after the SDM level: the fused member's str group name, then u16 position, u16 members, u32 stripes
// and u8 role flags (kFusedFlag…).
inline constexpr std::size_t kImageFusedMemberBytes = 2 + 2 + 4 + 1;
inline constexpr std::size_t kImageCountBytes = 4;  // the u32 counts of configurations and of instructions
// Before each configuration's words: u16 phase shape sizes, u8 forwarding flag, u32 word count.
inline constexpr std::size_t kImageConfigurationHeaderBytes = contracts::kNumTileDims * 2 + 1 + 4;
inline constexpr std::size_t kImageOpcodeBytes = 1, kImageOperandBytes = 4;
inline constexpr int kMaxInstructionOperands = 4;
// 2: dense configuration words of config_bw bits; 3: per-axis stride and padding, dilation, groups, GEMM layers,
// the group register g0; 4: also the SDM level after the tile; 5: after the tile the phase order and whether an
// SDM level follows; 6: also T_G (groups side by side in one step) after the SDM level flag and t_G after each
// configuration's shape; 7: everything of 6 and, after the SDM level, the record of a fused group's member. The
// encoder writes the lowest version that holds the image: 3 for a single-level mapping in the default phase order,
// 4 with an SDM level, 5 in the filters-outer phase order, 6 with T_G > 1, 7 for a member of a fused group; the
// decoder reads all five.
inline constexpr std::uint16_t kImageFormatVersion = 7;
inline constexpr std::uint16_t kFusedImageFormatVersion = 7;
inline constexpr std::uint16_t kGroupsImageFormatVersion = 6;
inline constexpr std::uint16_t kPhaseOrderImageFormatVersion = 5;
inline constexpr std::uint16_t kSdmImageFormatVersion = 4;
inline constexpr std::uint16_t kSingleLevelImageFormatVersion = 3;

// The role flags byte of a fused member (version 7); every other bit is 0.
// kFusedFlagTokenStripes: the stripes cut N (tokens), the nb loop is the stripe loop (only with stripes > 1).
// kFusedFlagQueryRows: with token stripes, a matrix product's stripes cut its query rows (K per group): the kb loop
// is the stripe loop.
inline constexpr std::uint8_t kFusedFlagInputInSdm = 1, kFusedFlagOutputInSdm = 2, kFusedFlagWeightsPinned = 4,
                                kFusedFlagOutputOverShortcut = 8, kFusedFlagWeightsInSdm = 16, kFusedFlagTokenStripes = 32,
                                kFusedFlagQueryRows = 64;
inline constexpr std::uint8_t kFusedFlagsKnown = kFusedFlagInputInSdm | kFusedFlagOutputInSdm | kFusedFlagWeightsPinned |
                                                 kFusedFlagOutputOverShortcut | kFusedFlagWeightsInSdm |
                                                 kFusedFlagTokenStripes | kFusedFlagQueryRows;

// The fabric parameters an image depends on (the rest of the hardware spec does not change the bits).
struct ImageHardware {
  std::string name;
  std::uint32_t num_ms = 0, dn_bw = 0, rn_bw = 0;
  std::uint8_t data_width = 0, acc_width = 0;
  std::uint16_t config_bw = std::uint16_t(contracts::kDefaultConfigBusBits);
  bool operator==(const ImageHardware& other) const;
};
ImageHardware image_hardware_of(const contracts::Hardware& hardware);

struct ImageConfiguration {
  PhaseShape shape;
  bool forwarding = false;
  FabricConfig fabric;
  bool operator==(const ImageConfiguration& other) const;
};

enum class Opcode : std::uint8_t {
  End = 0,          // end of program
  For = 1,          // FOR reg, start, count, step: run the body `count` times, reg = start, start+step, …
  EndFor = 2,       // end of the innermost FOR body
  Configure = 3,    // CONFIGURE c: make configuration c active (no config-port writes if it already is)
  LoadWeights = 4,  // LOAD_WEIGHTS: the weight slice at (r0, s0, cb + c0, kb + k0) of group g0, in the active shape
  Stream = 5,       // STREAM: every step of the phase (N, X', Y' tiles of the SDM block at nb, xb, yb, or of the
                    // layer; Y' innermost), results collected and written on the first reduction fold
                    // (r0 = s0 = c0 = 0), accumulated otherwise
};

// Loop registers: the origin of the weight phase inside its group (r0, s0, c0, k0), the group (g0) and, with an
// SDM level, the origin of the SDM block (kb, cb, nb, xb, yb: kFirstBlockRegister + contracts::SdmDim). c0 and k0 count
// from cb and kb.
enum class LoopRegister : std::uint8_t {
  R0 = 0, S0 = 1, C0 = 2, K0 = 3, G0 = 4, KB = 5, CB = 6, NB = 7, XB = 8, YB = 9
};
inline constexpr int kFirstBlockRegister = 5;
inline constexpr int kLoopRegisters = 10;
inline constexpr const char* kLoopRegisterNames[kLoopRegisters] = {"r0", "s0", "c0", "k0", "g0",
                                                                   "kb", "cb", "nb", "xb", "yb"};
// What each register ranges over: R, S, C/groups, K/groups, groups, then K/groups, C/groups, N, X', Y'.
std::array<std::int64_t, kLoopRegisters> loop_register_extents(const contracts::Layer& layer);
const char* register_name(std::uint32_t reg);  // "r0" … "yb", "?" past the last
struct ConfigImage;
std::uint16_t image_format_version(const ConfigImage& image);  // 3, 4 with an SDM level, 5 filters-outer, 6, 7

struct Instruction {
  Opcode opcode = Opcode::End;
  std::uint32_t operand[kMaxInstructionOperands] = {0, 0, 0, 0};  // For: register, start, count, step; Configure: index
  bool operator==(const Instruction& other) const;
};

struct ConfigImage {
  ImageHardware hardware;
  contracts::Layer layer;
  contracts::Mapping mapping;
  std::vector<ImageConfiguration> configurations;
  std::vector<Instruction> program;
  // Set for a member of a fused group (docs/mapping.md, "Fused groups"): the group, the member's place in it and
  // the role it runs in. With stripes > 1 the program's xb loop (nb with token stripes) is the stripe loop
  // (stripe_loop).
  std::optional<contracts::FusedMember> fused;
  bool operator==(const ConfigImage& other) const;
};

// Bad image input: names the file, where in it, and what is wrong.
class ImageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<std::uint8_t> encode_image(const ConfigImage& image);
ConfigImage decode_image(const std::vector<std::uint8_t>& bytes, const std::string& source);

// $readmemh form: the encoded bytes as 32-bit little-endian words, eight hex digits per line.
std::string to_readmemh(const std::vector<std::uint8_t>& bytes);
std::vector<std::uint8_t> from_readmemh(const std::string& text, const std::string& source);

// Readable dump (header, configurations with decoded words, program).
std::string to_json(const ConfigImage& image);
// One line per instruction, indented by loop depth; a fused member's stripe loop is marked.
std::string disassemble(const ConfigImage& image);
// A fused member's record, readably: its group, "member i of n", where its input comes from and its output goes,
// its stripes and pinned weights (several lines, each ending in a newline).
std::string fused_member_text(const contracts::FusedMember& member);
// The instruction index of the stripe loop of a fused member with stripes > 1: the program's one FOR xb (FOR nb with
// token stripes, FOR kb with query-row stripes), which codegen makes the outermost loop of more than one iteration,
// so that each of its iterations is one stripe. nullopt for any other image, or when the program has no such loop or
// several (but for the ragged one below).
std::optional<std::size_t> stripe_loop(const ConfigImage& image);
// Query-row stripes whose last K block is ragged run it in a FOR kb of its own, one iteration starting where the
// stripe loop ends, right after the stripe loop's END_FOR: its instruction index, the last stripe. nullopt otherwise.
std::optional<std::size_t> ragged_stripe_loop(const ConfigImage& image);

// Throws ImageError when the image was built for different fabric parameters than `hardware`.
void check_image_matches(const ConfigImage& image, const contracts::Hardware& hardware, const std::string& source);
// The fabric parameters that differ, e.g. "dn_bw 16 (image) vs 8 (hardware)" with `built_label` "image"; "" when
// all agree (the names are not compared: a renamed spec of the same fabric runs the same images).
std::string hardware_differences(const ImageHardware& built_for, const ImageHardware& hardware, const char* built_label);

std::uint32_t crc32_of(const std::uint8_t* data, size_t size);

}  // namespace maeri::codegen
