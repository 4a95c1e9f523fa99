// Before the importer reads an ONNX graph: the input sizes the user gives (--input-shape, --batch) written into the
// graph's inputs, then the shape computations exporters emit (Shape → Gather → Concat → Reshape, Constant nodes,
// integer arithmetic on constants, If nodes on a constant condition, Loop nodes of a static trip count around fabric
// work) evaluated and replaced by initializers, with
// ONNX shape inference between the passes, until nothing more folds. What folds is docs/workload-spec.md, "ONNX
// models"; a node that cannot be folded stays in the graph (the importer names it when a layer needs its result).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "importer/onnx_import.hpp"

namespace maeri::importer {

// Writes the given sizes into the graph's inputs. Throws util::InputError for `path`, field "--input-shape NAME" or
// "--batch", when NAME is no input of the graph, the rank differs, or a size contradicts a fixed dimension.
void apply_input_shapes(onnx::ModelProto& model, const ModelInputShapes& sizes, const std::string& path);

// Folds shape computations and runs shape inference (the model is left inferred). Throws util::InputError naming
// the node when a folded computation is inconsistent (an index out of range, a reshape of the wrong size, …), a Loop
// around fabric work has a dynamic trip count (naming the input or body output that makes it so), or shape
// inference fails.
// Each If that folds adds a note to `notes`: the branch taken (imported, its nodes counted) and the one not taken.
void fold_shape_computations(onnx::ModelProto& model, const std::string& path, std::vector<std::string>& notes);

}  // namespace maeri::importer
