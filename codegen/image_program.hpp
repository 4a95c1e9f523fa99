// Between a planned layer program and an image: build_image() encodes the planned phases as a loop program
// (one FOR per tiled dimension, split into its full tiles and its ragged edge tile), expand_image() interprets
// an image's program back into configurations, phases and steps — what the functional model and the
// co-simulation controller execute.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"
#include "codegen/layer_program.hpp"

namespace maeri::codegen {

// `fused`: the record of a fused group's member (format version 7); with stripes > 1 a grouped layer's g0 loop goes
// inside the stripe (xb) loop, so that each iteration of the stripe loop covers every group.
ConfigImage build_image(const LayerProgram& program, const contracts::Hardware& hardware,
                        const std::optional<contracts::FusedMember>& fused = std::nullopt);

// Throws ImageError naming `source` and the instruction when the program is malformed.
// keep_phase: store only the phases it accepts (e.g. one shard's, codegen/program_shards.hpp), so that a process
// holds the steps of its part of the layer only; PhasesOnly stores phases without their steps.
LayerProgram expand_image(const ConfigImage& image, const std::string& source,
                          PlanDetail detail = PlanDetail::Steps,
                          const std::function<bool(const WeightPhase&)>& keep_phase = nullptr);

// The interpreter behind expand_image, which stores nothing itself: calls `on_phase` at every LOAD_WEIGHTS with the
// phase (origin, configuration, fold flag; no steps) and `on_stream` at every STREAM (which streams the latest
// phase). Throws ImageError naming `source` and the instruction — with its byte offset in the file when
// `instruction_offsets` (one per instruction) is given — for END inside a FOR or no END, END_FOR without FOR, a
// FOR register other than r0, s0, c0, k0, g0 or a count of 0, CONFIGURE of a missing configuration, LOAD_WEIGHTS
// before any CONFIGURE or of a slice outside the layer, STREAM before LOAD_WEIGHTS. Its run time is the number
// of instructions it executes: image validation bounds that before playing an image (image_validation.hpp).
void play_program(const ConfigImage& image, const std::string& source,
                  const std::function<void(const WeightPhase&)>& on_phase, const std::function<void()>& on_stream,
                  const std::vector<std::size_t>* instruction_offsets = nullptr);

}  // namespace maeri::codegen
