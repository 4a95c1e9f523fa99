// ONNX model → Network (see onnx_import.hpp; the operator and attribute mapping is docs/workload-spec.md, "ONNX
// models"): the model read and checked, the user's input sizes written into it, its shape computations folded,
// and the graph read by GraphReader (onnx_graph_reader.hpp).
#include "importer/onnx_import.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <stdexcept>

#include "importer/onnx_folding.hpp"
#include "importer/onnx_input_values.hpp"
#include "importer/onnx_graph_checks.hpp"
#include "importer/onnx_graph_reader.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"
#include "util/memory_budget.hpp"

namespace maeri::importer {

void ModelInputShapes::add(const std::string& text) {
  const std::size_t equals = text.rfind('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    throw std::invalid_argument(fmt::format("'{}': expected NAME=d0,d1,… (the input's name and its sizes)", text));
  const std::string name = text.substr(0, equals);
  std::vector<std::int64_t> dims;
  std::size_t start = equals + 1;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || value < 1 || value > contracts::kMaxLayerDimension)
      throw std::invalid_argument(fmt::format("'{}': size '{}' is not an integer in [1, {}]", text, item,
                                              contracts::kMaxLayerDimension));
    dims.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!shapes.emplace(name, dims).second) throw std::invalid_argument(fmt::format("input '{}' is given twice", name));
}

void ModelInputShapes::add_value(const std::string& text) {
  const std::size_t equals = text.rfind('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    throw std::invalid_argument(fmt::format("'{}': expected NAME=V (the input's name and its value)", text));
  const std::string item = text.substr(equals + 1);
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(item, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != item.size() || !std::isfinite(value))
    throw std::invalid_argument(fmt::format("'{}': value '{}' is not a finite number", text, item));
  if (!values.emplace(text.substr(0, equals), value).second)
    throw std::invalid_argument(fmt::format("input '{}' is given a value twice", text.substr(0, equals)));
}

namespace {

// Each network input that a skipped node's output became says so (contracts::Tensor::cut), so that the imported
// YAML keeps it and a run names the node instead of asking for an input the model never had.
void mark_cut_inputs(OnnxImport& imported) {
  for (std::size_t t : imported.network.network_inputs()) {
    contracts::Tensor& tensor = imported.network.tensors[t];
    for (const SkippedNode& node : imported.skipped)
      if (std::count(node.outputs.begin(), node.outputs.end(), tensor.name))
        tensor.cut = "node " + node.name + " (" + node.op_type + "): " + node.reason;
  }
}

}  // namespace

OnnxImport import_onnx(const std::string& path, const ModelInputShapes& sizes) {
  const std::string bytes =
      util::read_input_file(path, {"an ONNX model", kMaxOnnxFileBytes, "kMaxOnnxFileBytes", true});
  // The parsed model holds about as much again as its bytes (initializers are copied out of the wire format).
  util::require_memory(2.0L * static_cast<long double>(bytes.size()), path, "model",
                       "the model's bytes and their parsed form");
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes) || !model.has_graph() || model.ir_version() <= 0 ||
      model.opset_import_size() == 0)
    throw util::InputError({path, 0, 0}, "model",
                           "not an ONNX model (expected a serialised onnx.ModelProto with an IR version, opset imports "
                           "and a graph)");
  std::int64_t opset = 1;
  for (const auto& import : model.opset_import())
    if (import.domain().empty() || import.domain() == "ai.onnx") opset = import.version();
  check_graph_before_inference(model.graph(), opset, path);
  apply_input_shapes(model, sizes, path);
  std::vector<std::string> notes = apply_input_values(model, sizes, path);
  fold_shape_computations(model, path, notes);
  check_graph_before_inference(model.graph(), opset, path);  // inlined branches were not checked yet
  OnnxImport imported = GraphReader(path, model).read();
  mark_cut_inputs(imported);
  imported.notes.insert(imported.notes.begin(), notes.begin(), notes.end());
  return imported;
}

}  // namespace maeri::importer
