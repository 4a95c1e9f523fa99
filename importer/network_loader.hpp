// The one home of "load a workload": a YAML workload spec, or an ONNX model (by its .onnx extension), for every
// command that takes --workload.
#pragma once

#include <string>

#include "contracts/layer.hpp"
#include "contracts/network.hpp"
#include "contracts/network.hpp"

namespace maeri::importer {

bool is_onnx_path(const std::string& path);  // ends in ".onnx" (any case)

// An ONNX model is imported (import_onnx; a note on stderr says how many nodes were skipped); anything else is
// read as a YAML workload spec (contracts::load_workload). Errors are util::InputError.
contracts::Network load_network(const std::string& path);

}  // namespace maeri::importer
