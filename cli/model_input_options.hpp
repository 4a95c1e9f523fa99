// --input-shape NAME=d0,d1,… (repeatable) and --batch N: the sizes of an ONNX model's dynamic inputs, for every
// command that reads a model (docs/cli.md, "Input sizes of ONNX models").
#pragma once

#include <CLI/CLI.hpp>

#include "importer/onnx_import.hpp"

namespace maeri::cli {

// Adds both options to `command`; `sizes` must outlive the parse (it lives in the command's options).
void add_model_input_options(CLI::App* command, importer::ModelInputShapes& sizes);

}  // namespace maeri::cli
