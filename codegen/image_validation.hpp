// Semantic validation of decoded configuration images: every field in range for the image's own hardware header
// and the hard limits below, the control program well formed, and the total work it describes (instructions
// executed, weight phases, steps, tensor elements, MACs, fabric cycles, the memory expand_image allocates)
// bounded — all before anything is allocated for or simulated from the image. decode_image() runs it, so every
// loader (disasm, sim, verify, run, calibrate) sees only images that pass. The checks, the limits and why each
// has its value: docs/config-image.md, "Validation".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"
#include "codegen/fabric_config.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::codegen {

// ---- Hard limits of an image (the one home of each) ----

// Largest num_ms an image may name: the spec's limit (the dense layout's field widths grow with num_ms, so no
// configuration field limits it).
inline constexpr std::uint32_t kMaxImageMultiplierSwitches = std::uint32_t(contracts::kMaxMultiplierSwitches);

// codegen emits one configuration per phase shape, and each of R, S, C, K has at most two tile sizes (the full
// tile and the ragged edge): at most 2^4.
inline constexpr std::uint32_t kMaxImageConfigurations = 16;
// codegen emits at most 111 instructions (a FOR pair per tiled dimension and edge, 16 leaves of 3, the group FOR pair, END).
inline constexpr std::uint32_t kMaxImageInstructions = 1024;
// Instructions executed by playing the program once (the validator plays it to check every weight slice).
inline constexpr std::int64_t kMaxExecutedInstructions = std::int64_t{1} << 26;
// Elements of each tensor (input, zero-padded input, weights, output): what sim and the models hold in memory,
// 8 bytes each (1 GiB). The largest shipped layer, VGG16 fc6, has 102.8 M weights. (Far below the int64 limit
// every layer obeys, contracts::kMaxTensorElementsForInt64Bytes.)
inline constexpr std::int64_t kMaxInMemoryTensorElements = std::int64_t{1} << 27;
// Multiply-accumulates of the layer: the reference convolution's work, which checking a run costs. VGG16 conv1_2
// has 1.85 G. (Far below the int64 limit every layer obeys, contracts::kMaxMacsForInt64Counts.)
inline constexpr std::int64_t kMaxReferenceConvolutionMacs = std::int64_t{1} << 32;
// Bytes expand_image allocates for the weight phases and their steps.
inline constexpr std::int64_t kMaxExpandedProgramBytes = std::int64_t{1} << 30;
// Upper bound of the fabric cycles of one run with ideal memory (configuration writes, weight and step beats).
inline constexpr std::int64_t kMaxFabricCycles = std::int64_t{1} << 34;
// Largest image file (the layout's parts, config_image.hpp): the header, the two names at their u16 maximum, the
// layer, the tile, the phase order and SDM flag, an SDM level, a fused member's record with its group name at the
// u16 maximum, kMaxImageConfigurations configurations of
// kMaxImageMultiplierSwitches in words of the widest config bus (most padding) and kMaxImageInstructions
// instructions of the longest kind.
inline constexpr std::size_t kMaxImageBytes =
    kImageFixedHeaderBytes + kImageHardwareBytes + 2 * (kImageStringLengthBytes + kMaxImageStringBytes) +
    kImageLayerBytes + kImageTileBytes + kImagePhaseOrderBytes + kImageGroupsBytes + kImageSdmLevelBytes +
    kImageStringLengthBytes + kMaxImageStringBytes + kImageFusedMemberBytes + kImageCountBytes +
    kMaxImageConfigurations *
        (kImageConfigurationHeaderBytes + kImageGroupsBytes +
         std::size_t(contracts::configuration_words(kMaxImageMultiplierSwitches, contracts::kMaxConfigBusBits) *
                     (contracts::kMaxConfigBusBits / 8))) +
    kImageCountBytes + kMaxImageInstructions * (kImageOpcodeBytes + kMaxInstructionOperands * kImageOperandBytes);

// Where the decoder read each field (byte offsets in the file), so that errors name the field and its place.
struct ImageFieldOffsets {
  std::size_t num_ms = 0, dn_bw = 0, rn_bw = 0, data_width = 0, acc_width = 0, config_bw = 0, hardware_name = 0;
  std::size_t layer_name = 0, layer_type = 0;
  std::size_t layer_dims[contracts::kLayerShapeFields.size()] = {};  // in the order of contracts::kLayerShapeFields
  std::size_t tile[7] = {};        // T_R … T_Y'
  std::size_t phase_order = 0, sdm_flag = 0;  // versions 5 and 6
  std::size_t groups = 0;                     // T_G (version 6)
  std::size_t sdm = 0, sdm_order = 0;  // the SDM tile sizes and order (version 4, and 5 to 7 with the flag)
  // The fused member's record (version 7).
  std::size_t fused_group = 0, fused_position = 0, fused_members = 0, fused_stripes = 0, fused_flags = 0;
  std::size_t configuration_count = 0;
  struct Configuration {
    std::size_t shape = 0;       // t_R … T_Y' (and t_G in version 6) as u16, field i at shape + 2·i
    std::size_t forwarding = 0;
    std::size_t words = 0;       // configuration bit b in the byte at words + b / 8
  };
  std::vector<Configuration> configurations;
  std::size_t instruction_count = 0;
  std::vector<std::size_t> instructions;  // the opcode byte; operand i at + 1 + 4·i
};

// What playing an image's program costs; every count saturates at INT64_MAX rather than wrapping.
struct ImageWork {
  std::int64_t executed_instructions = 0;
  std::int64_t configure_executions = 0;
  std::int64_t weight_phases = 0;
  std::int64_t steps_per_stream = 0;  // ⌈N/T_N⌉·⌈X'/T_X'⌉·⌈Y'/T_Y'⌉ (every configuration has the tile's replicas)
  std::int64_t steps = 0;
  std::int64_t input_elements = 0, padded_input_elements = 0, weight_elements = 0, output_elements = 0;
  std::int64_t macs = 0;
  std::int64_t expanded_program_bytes = 0;
  std::int64_t fabric_cycles_bound = 0;
};

// Hardware header only: called by the decoder before it reads (and allocates) any configuration.
void validate_image_hardware(const ImageHardware& hardware, const ImageFieldOffsets& offsets,
                             const std::string& source);

// The whole image, in the order of docs/config-image.md; throws ImageError "<source>: byte <offset>: <field> …".
// Returns the work the image describes (all of it within the limits above).
ImageWork validate_image(const ConfigImage& image, const ImageFieldOffsets& offsets, const std::string& source);

// The work of a structurally valid image (program nesting and counts checked), computed without playing it.
ImageWork image_work(const ConfigImage& image);

// The first limit above that `work` exceeds (in the order of docs/config-image.md, "Validation"): the part of the
// image it is blamed on and the problem ("layer: the weight tensor K·(C/groups)·R·S is …, more than this build's
// limit of …"). The decoder and the writers (codegen/planned_image.hpp) refuse by the same test.
enum class WorkPart { Layer, Program };
struct WorkLimitBreach {
  WorkPart part = WorkPart::Layer;
  std::string problem;
};
std::optional<WorkLimitBreach> work_limit_breach(const ImageWork& work);

}  // namespace maeri::codegen
