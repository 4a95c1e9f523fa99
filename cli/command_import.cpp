// `maeri import MODEL.onnx -o WORKLOAD.yaml`: an ONNX model as a workload spec, with a report of every layer
// imported, the operators beside the fabric, what was folded or cut, and every node skipped and why
// (docs/workload-spec.md, "ONNX models").
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "importer/onnx_import.hpp"
#include "importer/workload_round_trip.hpp"
#include "importer/workload_yaml.hpp"
#include "util/atomic_file.hpp"

namespace maeri::cli {
namespace {

struct ImportOptions {
  std::string model;
  std::string output;
  importer::ModelInputShapes sizes;
};

int run_import(const ImportOptions& options) {
  const importer::OnnxImport imported = importer::import_onnx(options.model, options.sizes);
  const contracts::Network& network = imported.network;
  // Written before anything is printed as done: a bad batch layout fails here, leaving no file.
  std::vector<std::string> values;  // recorded in the workload: its graph holds the branch these values take
  for (const auto& [name, value] : options.sizes.values) values.push_back(fmt::format("{}={}", name, value));
  const std::string yaml = importer::workload_yaml(
      network, fmt::format("Imported by `maeri import` from {} ({} layers; {} node{} skipped, listed by the import "
                           "report).\n{}Schema: docs/workload-spec.md.",
                           std::filesystem::path(options.model).filename().string(), network.layers.size(),
                           imported.skipped.size(), imported.skipped.size() == 1 ? "" : "s",
                           values.empty() ? "" : fmt::format("Imported with the run-time input values (--input-value) "
                                                             "{}.\n", fmt::join(values, ", "))));
  importer::require_loadable_workload(yaml, options.model);
  fmt::print("{}: graph '{}': {} layers, {} MACs\n", options.model, network.name, network.layers.size(),
             network.total_macs());
  for (const contracts::Layer& layer : network.layers)
    fmt::print("  layer {:<28} {} X'={} Y'={} ({} MACs)\n", layer.name, contracts::shape_text(layer), layer.output_x(),
               layer.output_y(), layer.macs());
  std::size_t beside = 0;
  for (const contracts::Operator& op : network.operators) beside += op.kind != contracts::OperatorKind::FabricLayer;
  fmt::print("{} operators beside the fabric:", beside);
  for (const contracts::Operator& op : network.operators)
    if (op.kind != contracts::OperatorKind::FabricLayer) fmt::print(" {} ({})", op.name, contracts::operator_label(op));
  fmt::print("\n");
  for (const std::string& note : imported.notes) fmt::print("  note  {}\n", note);
  // Skipped nodes are not refused: the graph is cut at each (its consumers read a network input), so the layers
  // still map; a chained run reads those tensors as inputs.
  if (imported.skipped.empty())
    fmt::print("no node skipped: the graph is whole\n");
  else
    fmt::print("{} node{} skipped (the graph is cut there):\n", imported.skipped.size(),
               imported.skipped.size() == 1 ? "" : "s");
  for (const importer::SkippedNode& node : imported.skipped)
    fmt::print("  skip  {:<28} {:<20} {}\n", node.name, node.op_type, node.reason);
  util::write_file_atomically(options.output, yaml);
  fmt::print("wrote {}\n", options.output);
  return kExitOk;
}

}  // namespace

void add_import_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* command = app.add_subcommand(
      "import", "Import an ONNX model's Conv, Gemm and MatMul nodes as a workload spec (others are reported)");
  command->add_option("model", options->model, "ONNX model file (.onnx)")->required();
  command->add_option("-o,--output", options->output, "workload YAML to write")->required();
  add_model_input_options(command, options->sizes);
  command->footer("Example: maeri import model.onnx -o model.yaml   (map/codegen/verify also take --workload model.onnx)");
  command->callback([options, &action] { action = [options] { return run_import(*options); }; });
}

}  // namespace maeri::cli
