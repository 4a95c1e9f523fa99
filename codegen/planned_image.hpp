// A layer's program and image as a writer makes them (codegen, verify, run): refused up front — before one weight
// phase is planned — when the image would break a limit its reader enforces (codegen/image_validation.hpp), by the
// reader's own test on the work computed from the layer and its tile alone, and when what the run holds (the
// program and the layer's tensors) exceeds the command's memory budget. Without it a 1×1 conv of 2^24 → 2^24
// channels planned 2^42 weight phases until it was killed (issue 43), and a writer could write an image that
// disasm, sim and verify --manifest refuse.
#pragma once

#include <optional>
#include <string>

#include "codegen/config_image.hpp"
#include "codegen/image_validation.hpp"
#include "codegen/layer_program.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::codegen {

// Bytes a run holds per element of the layer's input, padded input, weight and output tensors (an int64 each).
inline constexpr long double kPlannedBytesPerTensorElement = 8;

// The work of any image of `layer`, whatever its tile: the elements of its input, padded input, weight and output
// tensors and its MACs (the other counts 0).
ImageWork layer_work(const contracts::Layer& layer);

// Throws util::InputError at `file`, field "layers.<layer name>", when layer_work breaks a reader's limit: no tile
// can give the layer a readable image, so a writer refuses it before searching its tiles.
void require_layer_within_limits(const contracts::Layer& layer, const std::string& file);

// The work of `layer`'s image under `tile`, from the two alone: tensor elements, MACs, weight phases (exactly as
// plan_layer makes them), steps and the expanded program's bytes (bounded as image_work bounds them: every STREAM
// covers a whole SDM block). Executed instructions and fabric cycles stay 0: they are known once the program is
// built. Counts saturate at INT64_MAX.
ImageWork planned_work(const contracts::Layer& layer, const contracts::Mapping& tile);

// Throws util::InputError at `file`, field "layers.<layer name>", when planned_work breaks a reader's limit or the
// memory budget: what plan_image checks before planning, for a writer that checks every layer before writing any.
void require_plannable(const contracts::Layer& layer, const contracts::Mapping& tile, const std::string& file);

struct PlannedImage {
  LayerProgram program;
  ConfigImage image;
};

// plan_layer and build_image with the checks above: planned_work against the reader's limits and the memory budget
// before planning, image_work of the built image against the limits after. A breach throws util::InputError at
// `file`, field "layers.<layer name>", naming the limit, the value and the tile.
PlannedImage plan_image(const contracts::Layer& layer, const contracts::Hardware& hardware,
                        const contracts::Mapping& tile, const std::optional<contracts::FusedMember>& fused,
                        const std::string& file);

}  // namespace maeri::codegen
