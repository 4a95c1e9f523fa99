// Between a planned layer program and an image: build_image() encodes the planned phases as a loop program
// (one FOR per tiled dimension, split into its full tiles and its ragged edge tile), expand_image() interprets
// an image's program back into configurations, phases and steps — what the functional model and the
// co-simulation controller execute.
#pragma once

#include "codegen/config_image.hpp"
#include "codegen/layer_program.hpp"

namespace maeri::codegen {

ConfigImage build_image(const LayerProgram& program, const spec::Hardware& hardware);

// Throws ImageError naming `source` and the instruction when the program is malformed.
LayerProgram expand_image(const ConfigImage& image, const std::string& source);

}  // namespace maeri::codegen
