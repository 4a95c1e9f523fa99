// Run-time inputs whose value the user knows (`--input-value NAME=V`, importer::ModelInputShapes::values): before the
// importer folds the graph, each named graph input becomes an initializer holding V in every element (of the input's
// element type and shape), so that what depends on it folds — an If on a sample rate imports the branch taken, and
// the fold names the other (docs/workload-spec.md, "ONNX models").
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "importer/onnx_import.hpp"

namespace maeri::importer {

// Replaces every input named in sizes.values by a constant; returns one note per input ("input 'sr' given the value
// 16000: a constant of the model"). Throws util::InputError for `path`, field "--input-value NAME", when NAME is no
// input of the graph, its element type is not numeric, its shape is not fully known, or V does not fit the type.
std::vector<std::string> apply_input_values(onnx::ModelProto& model, const ModelInputShapes& sizes,
                                            const std::string& path);

}  // namespace maeri::importer
