// `maeri codegen` (mapping or workload → configuration images) and `maeri disasm` (image → readable text).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/command_line_error.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/model_input_options.hpp"
#include "importer/network_loader.hpp"
#include "importer/layer_selection.hpp"
#include "codegen/image_file.hpp"
#include "codegen/image_program.hpp"
#include "codegen/network_manifest.hpp"
#include "codegen/planned_image.hpp"
#include "util/file_names.hpp"
#include "util/progress_bar.hpp"
#include "util/sha256.hpp"
#include "util/atomic_file.hpp"
#include "contracts/mapping_file.hpp"
#include "flow/fused_images.hpp"
#include "flow/layer_mappings.hpp"
#include "flow/map_decision.hpp"
#include "contracts/spec_loader.hpp"

namespace maeri::cli {
namespace {

struct CodegenOptions {
  std::string hardware;
  std::string mapping;
  std::string workload;
  importer::ModelInputShapes model_inputs;  // --input-shape, --batch
  std::string layer;
  std::string objective = "runtime";
  std::string output_dir = ".";
  bool hex = false;
  bool json = false;
};

struct DisasmOptions {
  std::string image;
  std::string hardware;
  bool json = false;
};

// What codegen builds: each layer's mapping, and the fused groups' records and manifest entries.
struct CodegenPlan {
  std::vector<contracts::LayerMapping> mappings;
  flow::FusedImagePlan fused;
};

// The images of a mapping file (read from `path`, or map's decision): each layer's tile checked against the hardware;
// with the workload's graph (`network`), each fused group is checked against the rules and its members' images record
// their roles.
CodegenPlan plan_of_file(const contracts::MappingFile& file, const std::string& path,
                         const contracts::Network* network, const CodegenOptions& options,
                         const contracts::Hardware& hardware) {
  CodegenPlan plan;
  if (!file.fused_groups.empty() && network)
    plan.fused = flow::plan_fused_images(*network, hardware, file, path);
  else if (!file.fused_groups.empty())
    fmt::print(stderr, "note: {} has {} fused group(s); without --workload (the graph that gives each member its "
                       "role) their members' images are built alone\n",
               path, file.fused_groups.size());
  for (const contracts::LayerMapping& entry : file.layers)
    if (options.layer.empty() || entry.layer.name == options.layer) {
      // The tile and SDM level must fit this hardware (the SDM capacity needs its SDM size): util::InputError naming
      // the layer's field otherwise.
      contracts::tile_for_layer(file, path, entry.layer, hardware);
      plan.mappings.push_back(entry);
    }
  if (plan.mappings.empty())
    throw util::InputError({path, 0, 0}, "layers", "the mapping file has no layer named '" + options.layer + "'");
  // A manifest of some layers lists the groups those layers belong to.
  std::vector<codegen::ManifestFusedGroup> listed;
  for (codegen::ManifestFusedGroup& group : plan.fused.groups)
    if (std::any_of(plan.mappings.begin(), plan.mappings.end(), [&](const contracts::LayerMapping& entry) {
          return std::count(group.members.begin(), group.members.end(), entry.layer.name) > 0;
        }))
      listed.push_back(std::move(group));
  plan.fused.groups = std::move(listed);
  return plan;
}

// A mapping file's images, or the workload's: the whole network as `maeri map` decides it (fused groups included),
// or with --layer that layer's own best mapping, alone.
CodegenPlan plan_codegen(const CodegenOptions& options, const contracts::Hardware& hardware, std::string& workload_name) {
  if (!options.mapping.empty()) {
    const contracts::MappingFile file = contracts::load_mapping_file(options.mapping);
    contracts::check_mapping_hardware(file, options.mapping, hardware);
    workload_name = file.workload_name;
    if (options.workload.empty()) return plan_of_file(file, options.mapping, nullptr, options, hardware);
    const contracts::Network network = importer::load_network(options.workload, options.model_inputs);
    return plan_of_file(file, options.mapping, &network, options, hardware);
  }
  const contracts::Network network = importer::load_network(options.workload, options.model_inputs);
  workload_name = network.name;
  const auto objective = mapper::parse_objective(options.objective);
  if (!objective)
    throw command_line_error("--objective",
                            "expected runtime, energy or edp, found '" + options.objective + "'");
  for (const contracts::Layer& layer : importer::select_layers(network, options.workload, options.layer))
    codegen::require_layer_within_limits(layer, options.workload);  // before any tile is searched
  if (options.layer.empty())
    return plan_of_file(flow::map_decision(network, hardware, *objective, true, options.workload),
                        flow::kMapDecisionSource, &network, options, hardware);
  CodegenPlan plan;
  for (const contracts::Layer& layer : importer::select_layers(network, options.workload, options.layer)) {
    const mapper::SearchResult found = flow::best_mappings(layer, hardware, *objective, 1);
    if (found.best.empty())
      throw util::InputError({options.workload, 0, 0}, "layers." + layer.name,
                              "no tile of this layer fits " + hardware.name);
    plan.mappings.push_back({layer, found.best.front().mapping, found.best.front().cycles.total,
                             found.best.front().energy_pj.total});
  }
  return plan;
}

int run_codegen(const CodegenOptions& options) {
  const contracts::Hardware hardware = contracts::load_hardware(options.hardware);
  std::string workload_name;
  const CodegenPlan plan = plan_codegen(options, hardware, workload_name);
  const std::vector<contracts::LayerMapping>& mappings = plan.mappings;
  util::create_output_directory(options.output_dir);
  // Names are free text in the YAML: files are named after safe, unique stems, inside the output folder.
  std::vector<std::string> layer_names;
  for (const contracts::LayerMapping& mapping : mappings) layer_names.push_back(mapping.layer.name);
  const std::vector<std::string> layer_stems = util::unique_file_stems(layer_names);
  const std::string network_stem = util::safe_file_stem(workload_name);
  const auto file_of = [&](std::size_t l, const char* extension) {
    return network_stem + "." + layer_stems[l] + extension;
  };
  const auto path_of = [&](const std::string& file) {
    return (std::filesystem::path(options.output_dir) / file).string();
  };
  const std::string manifest_path = path_of(network_stem + ".manifest.json");
  util::check_output_path(manifest_path);
  for (const contracts::LayerMapping& mapping : mappings)  // every image's size checked before the first is written
    codegen::require_plannable(mapping.layer, mapping.mapping, options.workload);
  for (std::size_t l = 0; l < mappings.size(); ++l) {  // every output checked before the first is written
    util::check_output_path(path_of(file_of(l, ".mimg")));
    if (options.hex) util::check_output_path(path_of(file_of(l, ".hex")));
    if (options.json) util::check_output_path(path_of(file_of(l, ".json")));
  }
  fmt::print("{:<16} {:<20} {:>7} {:>7} {:>7} {:>8} {:>9}  {}\n", "layer", "tile", "phases", "steps", "configs",
             "instrs", "bytes", "image");
  codegen::NetworkManifest manifest;
  manifest.network = workload_name;
  manifest.hardware = codegen::image_hardware_of(hardware);
  manifest.fused_groups = plan.fused.groups;
  {  // the bar's last line is finished before the summary
    util::ProgressBar progress("codegen " + workload_name, std::int64_t(mappings.size()));
    for (std::size_t l = 0; l < mappings.size(); ++l) {
      const contracts::LayerMapping& mapping = mappings[l];
      const codegen::PlannedImage planned = codegen::plan_image(
          mapping.layer, hardware, mapping.mapping, plan.fused.member(mapping.layer.name), options.workload);
      const codegen::LayerProgram& program = planned.program;
      const codegen::ConfigImage& image = planned.image;
      const std::vector<std::uint8_t> bytes = codegen::encode_image(image);
      const std::string image_bytes(bytes.begin(), bytes.end());
      const std::string image_path = path_of(file_of(l, ".mimg"));
      util::write_file_atomically(image_path, image_bytes);
      if (options.hex) util::write_file_atomically(path_of(file_of(l, ".hex")), codegen::to_readmemh(bytes));
      if (options.json) util::write_file_atomically(path_of(file_of(l, ".json")), codegen::to_json(image));
      manifest.layers.push_back({int(l) + 1, mapping.layer.name, file_of(l, ".mimg"), util::sha256_hex(image_bytes),
                                 std::int64_t(bytes.size()), contracts::to_compact_string(mapping.mapping.tile),
                                 mapping.predicted_cycles});
      std::size_t steps = 0;
      for (const auto& phase : program.phases) steps += phase.steps.size();
      progress.clear();
      fmt::print("{:<16} {:<20} {:>7} {:>7} {:>7} {:>8} {:>9}  {}\n", mapping.layer.name,
                 contracts::to_compact_string(mapping.mapping.tile), program.phases.size(), steps, image.configurations.size(),
                 image.program.size(), bytes.size(), image_path);
      std::fflush(stdout);
      progress.advance(mapping.layer.name);
    }
  }
  // Last, so that a manifest only ever lists images that were written completely.
  util::write_file_atomically(manifest_path, codegen::manifest_json(manifest));
  if (manifest.fused_groups.empty()) fmt::print("manifest {} ({} layers)\n", manifest_path, manifest.layers.size());
  else
    fmt::print("manifest {} ({} layers, {} fused groups)\n", manifest_path, manifest.layers.size(),
               manifest.fused_groups.size());
  return kExitOk;
}

int run_disasm(const DisasmOptions& options) {
  const codegen::ConfigImage image = codegen::load_image_file(options.image);
  if (!options.hardware.empty())
    codegen::check_image_matches(image, contracts::load_hardware(options.hardware), options.image);
  if (options.json) {
    std::cout << codegen::to_json(image);
    return kExitOk;
  }
  const auto& hw = image.hardware;
  const auto& l = image.layer;
  fmt::print("image     {} (format version {})\n", options.image, codegen::image_format_version(image));
  fmt::print("hardware  {}: {} MS, dn_bw {}, rn_bw {}, data {} bits, accumulators {} bits\n", hw.name, hw.num_ms,
             hw.dn_bw, hw.rn_bw, hw.data_width, hw.acc_width);
  fmt::print("layer     {}: {}\n", l.name, contracts::shape_text(l));
  fmt::print("tile      {}\n", contracts::to_string(image.mapping));
  if (image.fused) fmt::print("{}", codegen::fused_member_text(*image.fused));
  fmt::print("\nconfigurations\n");
  for (std::size_t c = 0; c < image.configurations.size(); ++c) {
    const auto& configuration = image.configurations[c];
    int active = 0, adders = 0, links = 0;
    for (const auto& ms : configuration.fabric.mult_switches) active += ms.active;
    for (const auto& adder : configuration.fabric.adder_switches) {
      adders += codegen::encode(adder) != 0;
      links += adder.link_send;
    }
    fmt::print("  {:>3}: VN size {} x {} VNs, {} active MS, {} adders used, {} forwarding links{}\n", c,
               configuration.shape.vn_size(), configuration.shape.vn_count(), active, adders, links,
               configuration.forwarding ? ", MN forwarding" : "");
  }
  fmt::print("\nprogram\n{}", codegen::disassemble(image));
  return kExitOk;
}

}  // namespace

void add_codegen_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<CodegenOptions>();
  CLI::App* command = app.add_subcommand(
      "codegen", "Build configuration images (.mimg) from a mapping file, or from the best mapping of each layer");
  // Input files are checked by their loaders (exit 2 with the OS's reason), not by CLI11 (exit 1).
  command->add_option("--hardware", options->hardware, "hardware spec (YAML)")->required();
  auto* mapping = command->add_option("--mapping", options->mapping, "mapping file written by `maeri map`");
  auto* workload = command->add_option("--workload", options->workload,
                                       "workload spec: map each layer first; with --mapping, the graph its fused "
                                       "groups are checked against (docs/mapping.md, \"Fused groups\")");
  add_model_input_options(command, options->model_inputs);
  command->add_option("--layer", options->layer, "only this layer");
  command->add_option("--objective", options->objective, "with --workload: runtime, energy or edp")
      ->capture_default_str();
  command->add_option("--output-dir,-o", options->output_dir, "folder for <workload>.<layer>.mimg and <workload>.manifest.json")
      ->capture_default_str();
  command->add_flag("--hex", options->hex, "also write the $readmemh form (.hex)");
  command->add_flag("--json", options->json, "also write a readable JSON dump (.json)");
  command->footer("Example: maeri codegen --hardware configs/hardware/maeri-256.yaml --workload "
                  "configs/workloads/vgg16.yaml -o images   (images/vgg16.<layer>.mimg, images/vgg16.manifest.json)");
  command->callback([options, &action, mapping, workload] {
    if (mapping->count() == 0 && workload->count() == 0)
      throw CLI::RequiredError("one of --mapping or --workload");
    action = [options] { return run_codegen(*options); };
  });
}

void add_disasm_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<DisasmOptions>();
  CLI::App* command = app.add_subcommand("disasm", "Decode a configuration image and print it readably");
  command->add_option("image", options->image, "configuration image (.mimg)")->required()->check(CLI::ExistingFile);
  command->add_option("--hardware", options->hardware, "check the image was built for this hardware");
  command->add_flag("--json", options->json, "print the JSON dump instead");
  command->callback([options, &action] { action = [options] { return run_disasm(*options); }; });
}

}  // namespace maeri::cli
