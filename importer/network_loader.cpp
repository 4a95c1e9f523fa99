// Loading a workload from YAML or ONNX (see network_loader.hpp).
#include "importer/network_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "importer/onnx_import.hpp"
#include "contracts/spec_loader.hpp"
#include "util/input_error.hpp"

namespace maeri::importer {

bool is_onnx_path(const std::string& path) {
  const std::string suffix = ".onnx";
  if (path.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), path.rbegin(),
                    [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

contracts::Network load_network(const std::string& path, const ModelInputShapes& sizes) {
  if (!is_onnx_path(path)) {
    if (!sizes.empty())
      throw util::InputError({path, 0, 0},
                             !sizes.shapes.empty() ? "--input-shape" : sizes.batch ? "--batch" : "--input-value",
                             "input sizes and values apply to ONNX models only (a workload file states its layers' "
                             "sizes)");
    return contracts::load_workload(path);
  }
  OnnxImport imported = import_onnx(path, sizes);
  if (!imported.skipped.empty())
    fmt::print(stderr, "note: {}: {} layers imported, {} node{} skipped (`maeri import {}` lists them)\n", path,
               imported.network.layers.size(), imported.skipped.size(), imported.skipped.size() == 1 ? "" : "s", path);
  return std::move(imported.network);
}

}  // namespace maeri::importer
