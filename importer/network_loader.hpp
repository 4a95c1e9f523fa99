// The one home of "load a workload": a YAML workload spec, or an ONNX model (by its .onnx extension), for every
// command that takes --workload.
#pragma once

#include <string>

#include "contracts/layer.hpp"
#include "contracts/network.hpp"
#include "importer/onnx_import.hpp"

namespace maeri::importer {

bool is_onnx_path(const std::string& path);  // ends in ".onnx" (any case)

// An ONNX model is imported (import_onnx with `sizes`; a note on stderr says how many nodes were skipped);
// anything else is read as a YAML workload spec (contracts::load_workload), where `sizes` must be empty (an
// error otherwise: the sizes of a YAML workload are in the file). Errors are util::InputError.
contracts::Network load_network(const std::string& path, const ModelInputShapes& sizes = {});

}  // namespace maeri::importer
