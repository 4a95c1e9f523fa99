// Making a network plan (see network_plan.hpp).
#include "flow/network_plan.hpp"

#include <algorithm>
#include <optional>

#include "codegen/config_image.hpp"
#include "codegen/image_program.hpp"
#include "codegen/network_manifest.hpp"
#include "codegen/planned_image.hpp"
#include "contracts/mapping_file.hpp"
#include "flow/fused_groups.hpp"
#include "flow/layer_mappings.hpp"
#include "flow/map_decision.hpp"
#include "importer/layer_selection.hpp"
#include "importer/network_loader.hpp"
#include "util/input_error.hpp"
#include "util/sha256.hpp"

namespace maeri::flow {
namespace {

// The mappings of one layer, best first: the mapping file's (`source` names it), or the best `top` as `maeri map`
// finds them.
std::vector<contracts::Mapping> layer_mappings(const contracts::Layer& layer, const contracts::Hardware& hardware,
                                               const PlanOptions& options, const contracts::MappingFile* file,
                                               const std::string& source) {
  if (file) return {contracts::tile_for_layer(*file, source, layer, hardware)};
  if (const auto reason = mapper::unmappable_reason(layer, hardware))
    throw util::InputError({options.workload_path, 0, 0}, "layers." + layer.name, *reason);
  std::vector<contracts::Mapping> mappings;
  for (const contracts::CostReport& report : best_mappings(layer, hardware, options.objective, options.top).best)
    mappings.push_back(report.mapping);
  return mappings;
}

// The image of a run as a user ships it: a fused group's member carries its record (format version 7). Refused,
// naming `file`, when the image would break its reader's limits or the memory budget (codegen/planned_image.hpp).
std::vector<std::uint8_t> run_image(const contracts::PlannedRun& run, const contracts::Hardware& hardware,
                                    const contracts::NetworkPlan& plan, const std::string& file) {
  const contracts::PlannedGroup* group = plan.groups.empty() ? nullptr : plan.group_of(run.position);
  std::optional<contracts::FusedMember> record;
  if (group) {
    const std::size_t member = run.position - group->first;
    record = contracts::FusedMember{group->name, std::int64_t(member), std::int64_t(group->count),
                                    group->roles[member]};
  }
  return codegen::encode_image(codegen::plan_image(run.layer, hardware, run.mapping, record, file).image);
}

// Each layer's runs, with their images: one per mapping of the layer (the file's, or the searched best `top`).
void add_runs(contracts::NetworkPlan& plan, const std::vector<contracts::Layer>& layers, const PlanOptions& options,
              const contracts::MappingFile* file, const std::string& source) {
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const std::vector<contracts::Mapping> mappings = layer_mappings(layers[l], plan.hardware, options, file, source);
    for (std::size_t rank = 0; rank < mappings.size(); ++rank) {
      contracts::PlannedRun run{layers[l], mappings[rank], l, int(rank), {}, layers[l].name + ".mimg", {}};
      run.image = run_image(run, plan.hardware, plan, options.workload_path);
      plan.runs.push_back(std::move(run));
    }
  }
}

// A manifest's layer as a run: its image read, its checksum, hardware, layer name and fused record checked.
contracts::PlannedRun manifest_run(const codegen::NetworkManifest& manifest, const std::string& manifest_path,
                                   std::size_t position, const contracts::Hardware& hardware) {
  const codegen::ManifestLayer& entry = manifest.layers[position];
  contracts::PlannedRun run;
  run.layer.name = entry.name;
  run.position = position;
  run.source = codegen::manifest_image_path(manifest_path, entry);
  try {
    const std::string bytes = codegen::read_manifest_image(run.source);
    const std::string digest = util::sha256_hex(bytes);
    if (digest != entry.sha256) {
      run.error = "checksum mismatch: " + run.source + " has SHA-256 " + digest + ", the manifest lists " +
                  entry.sha256;
      return run;
    }
    const codegen::ConfigImage image =
        codegen::decode_image(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), run.source);
    codegen::check_image_matches(image, hardware, run.source);
    if (image.layer.name != entry.name)
      throw util::InputError({run.source, 0, 0}, "layer", "the image is of layer '" + image.layer.name +
                                                              "', the manifest lists '" + entry.name + "'");
    codegen::check_fused_record(manifest, image, run.source);
    run.layer = image.layer;
    run.mapping = image.mapping;
    run.image = codegen::encode_image(image);
  } catch (const std::exception& error) {  // util::InputError, ImageError: this layer's input is bad
    run.error = error.what();
  }
  return run;
}

}  // namespace

namespace {

std::map<std::string, std::string> cut_inputs_of(const contracts::Network& network) {
  std::map<std::string, std::string> cut;
  for (std::size_t t : network.network_inputs())
    if (!network.tensors[t].cut.empty()) cut[network.tensors[t].name] = network.tensors[t].cut;
  return cut;
}

}  // namespace

LoadedWorkload load_workload(const std::string& path, const importer::ModelInputShapes& model_inputs) {
  if (!importer::is_onnx_path(path)) {
    contracts::Network network = importer::load_network(path, model_inputs);
    std::map<std::string, std::string> cut = cut_inputs_of(network);
    return {std::move(network), {}, std::move(cut), {}, {}};
  }
  importer::OnnxImport imported = importer::import_onnx(path, model_inputs);
  LoadedWorkload loaded{std::move(imported.network), std::move(imported.weights), {}, {}, {}};
  loaded.cut_inputs = cut_inputs_of(loaded.network);
  loaded.skipped = std::move(imported.skipped);
  loaded.skipped.insert(loaded.skipped.end(), imported.recurrent.begin(), imported.recurrent.end());
  loaded.skipped_graph = std::move(imported.skipped_graph);
  return loaded;
}

contracts::NetworkPlan plan_workload(const std::string& path, const importer::ModelInputShapes& model_inputs,
                                     const contracts::Hardware& hardware, const PlanOptions& options) {
  return plan_network(importer::load_network(path, model_inputs), hardware, options);
}

contracts::NetworkPlan plan_network(const contracts::Network& network, const contracts::Hardware& hardware,
                                    const PlanOptions& options) {
  contracts::NetworkPlan plan;
  plan.network = network;
  plan.hardware = hardware;
  const std::vector<contracts::Layer> layers = importer::select_layers(network, options.workload_path, options.layer);
  for (const contracts::Layer& layer : layers)  // before any tile is searched
    codegen::require_layer_within_limits(layer, options.workload_path);
  std::optional<contracts::MappingFile> file;
  std::string source = kMapDecisionSource;
  if (!options.mapping_path.empty()) {
    file = contracts::load_mapping_file(options.mapping_path);
    contracts::check_mapping_hardware(*file, options.mapping_path, hardware);
    plan.source = contracts::PlanSource::MappingFile;
    plan.origin = source = options.mapping_path;
    if (options.fused_groups) plan.groups = planned_groups(network, hardware, *file, options.mapping_path);
  } else if (options.fused_groups && options.layer.empty() && options.top == 1) {
    // The whole network searched: map's decision, fused groups included, runs as map reports it.
    file = map_decision(network, hardware, options.objective, true, options.workload_path);
    plan.groups = planned_groups(network, hardware, *file, kMapDecisionSource);
  }
  add_runs(plan, layers, options, file ? &*file : nullptr, source);
  return plan;
}

contracts::NetworkPlan plan_decision(const contracts::Network& network, const contracts::Hardware& hardware,
                                     const contracts::MappingFile& decision, const std::string& workload_path) {
  contracts::NetworkPlan plan;
  plan.network = network;
  plan.hardware = hardware;
  for (const contracts::Layer& layer : network.layers) codegen::require_layer_within_limits(layer, workload_path);
  contracts::check_mapping_hardware(decision, kMapDecisionSource, hardware);
  plan.groups = planned_groups(network, hardware, decision, kMapDecisionSource);
  PlanOptions options;
  options.workload_path = workload_path;
  add_runs(plan, network.layers, options, &decision, kMapDecisionSource);
  return plan;
}

contracts::NetworkPlan plan_manifest(const std::string& manifest_path, const contracts::Hardware& hardware,
                                     const std::string& layer) {
  const codegen::NetworkManifest manifest = codegen::load_manifest(manifest_path);
  contracts::NetworkPlan plan;
  plan.network.name = manifest.network;
  plan.hardware = hardware;
  plan.source = contracts::PlanSource::Manifest;
  plan.origin = manifest_path;
  const std::string differences =
      codegen::hardware_differences(manifest.hardware, codegen::image_hardware_of(hardware), "images");
  if (!differences.empty())
    throw util::InputError({manifest_path, 0, 0}, "hardware",
                           "the images were built for " + manifest.hardware.name + ", not for " + hardware.name + ": " +
                               differences);
  for (std::size_t l = 0; l < manifest.layers.size(); ++l)
    if (layer.empty() || manifest.layers[l].name == layer) plan.runs.push_back(manifest_run(manifest, manifest_path, l, hardware));
  if (plan.runs.empty())
    throw util::InputError({manifest_path, 0, 0}, "layers", "the manifest has no layer named '" + layer + "'");
  return plan;
}

}  // namespace maeri::flow
