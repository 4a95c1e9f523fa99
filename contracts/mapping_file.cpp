// Writer and strict reader of mapping files.
#include "contracts/mapping_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>

#include "util/atomic_file.hpp"
#include "util/input_file.hpp"
#include "contracts/sdm_rules.hpp"
#include "contracts/spec_loader.hpp"
#include "contracts/strict_yaml.hpp"

namespace maeri::contracts {
namespace {

const char* const kTileKeys[kNumTileDims] = {"T_R", "T_S", "T_C", "T_K", "T_N", "T_X", "T_Y"};
// Optional in the tile map: absent means 1, as in files written before the group dimension existed.
const char* const kGroupsKey = "T_G";

// The field a fabric tile's violation (mapping_violation) blames: T_G for its own rules, the tile otherwise.
bool blames_groups(const std::string& violation) { return violation.find("T_G = ") != std::string::npos; }

}  // namespace

void check_mapping_hardware(const MappingFile& mapping, const std::string& path, const Hardware& hardware) {
  if (mapping.num_ms == hardware.num_ms && mapping.dn_bw == hardware.dn_bw && mapping.rn_bw == hardware.rn_bw) return;
  throw util::InputError({path, 0, 0}, "hardware",
                  fmt::format("the mapping was made for {} ({} MS, dn_bw {}, rn_bw {}), not for {} ({} MS, dn_bw {}, "
                              "rn_bw {})",
                              mapping.hardware_name, mapping.num_ms, mapping.dn_bw, mapping.rn_bw, hardware.name,
                              hardware.num_ms, hardware.dn_bw, hardware.rn_bw));
}

Mapping tile_for_layer(const MappingFile& mapping, const std::string& path, const Layer& layer, const Hardware& hardware) {
  for (std::size_t index = 0; index < mapping.layers.size(); ++index) {
    const LayerMapping& entry = mapping.layers[index];
    if (entry.layer.name != layer.name) continue;
    const std::string field = fmt::format("layers[{}]", index);
    const Layer& recorded = entry.layer;
    if (!same_shape(recorded, layer))
      throw util::InputError({path, 0, 0}, field + ".shape",
                      fmt::format("the mapping is for layer '{}' of shape {}, but the workload's '{}' is {}",
                                  recorded.name, shape_text(recorded), layer.name, shape_text(layer)));
    if (const auto violation = mapping_violation(layer, hardware, entry.mapping))
      throw util::InputError({path, 0, 0},
                             field + (violation->rfind("SDM", 0) == 0 ? ".sdm"
                                      : blames_groups(*violation)     ? ".tile.T_G"
                                                                      : ".tile"),
                      fmt::format("the tile does not fit layer '{}' on {}: {}", layer.name, hardware.name, *violation));
    return entry.mapping;
  }
  throw util::InputError({path, 0, 0}, "layers", "the mapping file has no layer '" + layer.name + "'");
}

std::string emit_mapping_file(const MappingFile& mapping) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value << "mapping";
  out << YAML::Key << "hardware" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << mapping.hardware_name;
  out << YAML::Key << "num_ms" << YAML::Value << mapping.num_ms;
  out << YAML::Key << "dn_bw" << YAML::Value << mapping.dn_bw;
  out << YAML::Key << "rn_bw" << YAML::Value << mapping.rn_bw;
  out << YAML::EndMap;
  out << YAML::Key << "workload" << YAML::Value << mapping.workload_name;
  out << YAML::Key << "objective" << YAML::Value << mapping.objective;
  out << YAML::Key << "layers" << YAML::Value << YAML::BeginSeq;
  for (const LayerMapping& entry : mapping.layers) {
    const Layer& layer = entry.layer;
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << layer.name;
    out << YAML::Key << "shape" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "type" << YAML::Value << to_string(layer.type);
    for (const LayerShapeField& field : kLayerShapeFields)
      out << YAML::Key << field.name << YAML::Value << layer.*field.member;
    out << YAML::EndMap;
    out << YAML::Key << "tile" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (int dim = 0; dim < kNumTileDims; ++dim) out << YAML::Key << kTileKeys[dim] << YAML::Value << entry.mapping[dim];
    if (entry.mapping.tile.groups != 1) out << YAML::Key << kGroupsKey << YAML::Value << entry.mapping.tile.groups;
    out << YAML::EndMap;
    if (entry.mapping.sdm.blocked) {
      out << YAML::Key << "sdm" << YAML::Value << YAML::Flow << YAML::BeginMap;
      for (int dim = 0; dim < kNumSdmDims; ++dim)
        out << YAML::Key << sdm_dim_key(dim) << YAML::Value << entry.mapping.sdm.block[size_t(dim)];
      out << YAML::Key << "order" << YAML::Value << order_text(entry.mapping.sdm.order) << YAML::EndMap;
    }
    if (entry.mapping.phase_order != kDefaultPhaseOrder)  // absent: the default, as in files written before it existed
      out << YAML::Key << "phase_order" << YAML::Value << phase_order_text(entry.mapping.phase_order);
    out << YAML::Key << "predicted_cycles" << YAML::Value << entry.predicted_cycles;
    out << YAML::Key << "predicted_energy_pj" << YAML::Value << entry.predicted_energy_pj;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (!mapping.fused_groups.empty()) {  // absent without groups, so files of unfused mappings stay as they were
    out << YAML::Key << "fused_groups" << YAML::Value << YAML::BeginSeq;
    for (const FusedGroupEntry& group : mapping.fused_groups) {
      out << YAML::BeginMap;
      out << YAML::Key << "name" << YAML::Value << group.name;
      out << YAML::Key << "layers" << YAML::Value << YAML::Flow << group.layers;
      out << YAML::Key << "stripes" << YAML::Value << group.stripes;
      if (group.token_stripes) out << YAML::Key << "stripe_axis" << YAML::Value << "N";
      if (!group.pinned_weights.empty())
        out << YAML::Key << "pinned_weights" << YAML::Value << YAML::Flow << group.pinned_weights;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  return std::string("# MAERI mapping file (docs/mapping.md), written by `maeri map`\n") + out.c_str() + "\n";
}

void write_mapping_file(const std::string& path, const MappingFile& mapping) {
  util::write_file_atomically(path, emit_mapping_file(mapping));
}

namespace {

// The recorded layer shape ("shape:"). Ranges are shape_violation's (one home), checked on the whole shape. Files
// written before per-axis shapes have `stride` and `padding` for both axes and no dilation or groups.
Layer read_recorded_shape(StrictMap& entry) {
  Layer layer;
  layer.name = entry.text("name");
  StrictMap shape = entry.map("shape");
  layer.type = layer_type_of(shape.choice("type", {"conv", "fc", "gemm"}));
  const Layer defaults;
  const std::int64_t stride = shape.optional_integer("stride", 0, kMaxLayerDimension).value_or(1);
  const std::int64_t padding = shape.optional_integer("padding", 0, kMaxLayerDimension).value_or(0);
  for (const LayerShapeField& field : kLayerShapeFields) {
    const std::string name = field.name;
    std::int64_t fallback = defaults.*field.member;
    if (name == "stride_x" || name == "stride_y") fallback = stride;
    if (name == "padding_x" || name == "padding_y") fallback = padding;
    const bool optional = name.find('_') != std::string::npos || name == "groups";
    layer.*field.member = optional ? shape.optional_integer(name, 0, kMaxLayerDimension).value_or(fallback)
                                   : shape.integer(name, 0, kMaxLayerDimension);
  }
  check_layer_shape(shape, layer);
  shape.finish();
  return layer;
}

// The fabric tile ("tile:"), Eq. 1 and its rules checked against the recorded hardware's num_ms.
FabricTile read_fabric_tile(StrictMap& entry, const Layer& layer, const Hardware& bounds) {
  StrictMap tile = entry.map("tile");
  Mapping mapping;
  for (int dim = 0; dim < kNumTileDims; ++dim) mapping[dim] = tile.integer(kTileKeys[dim], 1, kMaxLayerDimension);
  mapping.tile.groups = tile.optional_integer(kGroupsKey, 1, kMaxLayerDimension).value_or(1);
  if (const auto violation = mapping_violation(layer, bounds, Mapping{mapping.tile, {}})) {
    if (blames_groups(*violation)) tile.fail(kGroupsKey, *violation);
    tile.fail_here(*violation);
  }
  tile.finish();
  return mapping.tile;
}

// The SDM level ("sdm:", optional: a file without it maps each layer as one block, docs/mapping.md): its blocks and
// loop order, into `mapping`, whose fabric tile is read.
void read_sdm_level(StrictMap& entry, const Layer& layer, const Hardware& bounds, Mapping& mapping) {
  StrictMap sdm = entry.map("sdm");
  SdmLevel& level = mapping.sdm;
  level.blocked = true;
  for (int dim = 0; dim < kNumSdmDims; ++dim)
    level.block[size_t(dim)] = sdm.integer(sdm_dim_key(dim), 1, kMaxLayerDimension);
  if (sdm.has("order")) {
    const std::string order = sdm.text("order");
    const std::string problem = order_problem(order);
    if (!problem.empty())
      sdm.fail("order", fmt::format("'{}' is not a permutation of K, C, N, X, Y: {}", order, problem));
    level.order = *parse_order(order);
  }
  if (const auto violation = sdm_violation(layer, bounds, mapping)) {
    // Blame the block the rule names ("sdm.K = …"), or the SDM level as a whole.
    for (int dim = 0; dim < kNumSdmDims; ++dim)
      if (violation->find(fmt::format("sdm.{} ", sdm_dim_key(dim))) != std::string::npos)
        sdm.fail(sdm_dim_key(dim), *violation);
    sdm.fail_here(*violation);
  }
  sdm.finish();
}

// One entry of "layers:": the layer, its tile, SDM level and phase order, and the predictions recorded with them.
LayerMapping read_layer_mapping(StrictMap entry, const Hardware& bounds) {
  LayerMapping layer_mapping;
  layer_mapping.layer = read_recorded_shape(entry);
  layer_mapping.mapping.tile = read_fabric_tile(entry, layer_mapping.layer, bounds);
  if (entry.has("sdm")) read_sdm_level(entry, layer_mapping.layer, bounds, layer_mapping.mapping);
  // The phase order is optional: without it the folds run outside the filter tiles (docs/mapping.md).
  if (entry.has("phase_order"))
    layer_mapping.mapping.phase_order = *parse_phase_order(
        entry.choice("phase_order", {phase_order_text(PhaseOrder::FoldsOuter), phase_order_text(PhaseOrder::FiltersOuter)}));
  layer_mapping.predicted_cycles = entry.number("predicted_cycles", 0, 1e30);
  layer_mapping.predicted_energy_pj = entry.number("predicted_energy_pj", 0, 1e30);
  entry.finish();
  return layer_mapping;
}

// "fused_groups:": each group's layers (mapped by the file, in one group at most), stripes (along X', or N with
// `stripe_axis: N`) and pinned weights.
std::vector<FusedGroupEntry> read_fused_groups(StrictMap& root, const std::vector<LayerMapping>& layers) {
  const YAML::Node groups = root.sequence("fused_groups");
  std::vector<FusedGroupEntry> read;
  std::map<std::string, std::string> group_of;  // layer → the group that has it
  std::set<std::string> names;
  for (std::size_t index = 0; index < groups.size(); ++index) {
    StrictMap entry = root.element_map("fused_groups", groups, index);
    FusedGroupEntry group;
    group.name = entry.text("name");
    if (!names.insert(group.name).second) entry.fail("name", "a second fused group named '" + group.name + "'");
    group.layers = entry.text_list("layers");
    if (group.layers.size() < kMinFusedGroupLayers)
      entry.fail("layers", fmt::format("fused group '{}': expected at least {} layers, found {}", group.name,
                                       kMinFusedGroupLayers, group.layers.size()));
    for (const std::string& layer : group.layers) {
      const bool known = std::any_of(layers.begin(), layers.end(),
                                     [&](const LayerMapping& mapped) { return mapped.layer.name == layer; });
      if (!known) entry.fail("layers", fmt::format("fused group '{}': the file maps no layer '{}'", group.name, layer));
      if (const auto [it, added] = group_of.emplace(layer, group.name); !added)
        entry.fail("layers", fmt::format("fused group '{}': layer '{}' is already in fused group '{}'", group.name,
                                         layer, it->second));
    }
    group.stripes = entry.integer("stripes", 1, kMaxLayerDimension);
    if (entry.has("stripe_axis")) group.token_stripes = entry.choice("stripe_axis", {"X", "N"}) == "N";
    if (group.token_stripes && group.stripes == 1)
      entry.fail("stripe_axis", fmt::format("fused group '{}': stripe_axis N needs stripes > 1", group.name));
    if (entry.has("pinned_weights")) group.pinned_weights = entry.text_list("pinned_weights");
    for (const std::string& layer : group.pinned_weights)
      if (std::find(group.layers.begin(), group.layers.end(), layer) == group.layers.end())
        entry.fail("pinned_weights",
                   fmt::format("fused group '{}': layer '{}' is not one of its layers", group.name, layer));
    entry.finish();
    read.push_back(group);
  }
  return read;
}

}  // namespace

MappingFile load_mapping_file(const std::string& path) {
  StrictMap root(load_yaml_file(path), path, "");
  if (root.choice("kind", {"mapping"}) != "mapping") root.fail("kind", "expected 'mapping'");
  MappingFile mapping;
  StrictMap hardware = root.map("hardware");
  mapping.hardware_name = hardware.text("name");
  mapping.num_ms = hardware.integer("num_ms", 2, kMaxMultiplierSwitches);
  mapping.dn_bw = hardware.integer("dn_bw", 1, mapping.num_ms);
  mapping.rn_bw = hardware.integer("rn_bw", 1, mapping.num_ms);
  hardware.finish();
  mapping.workload_name = root.text("workload");
  mapping.objective = root.choice("objective", kObjectiveNames);
  const YAML::Node layers = root.sequence("layers");
  Hardware bounds;  // the tiles' rules need only the recorded fabric's size
  bounds.num_ms = mapping.num_ms;
  for (std::size_t index = 0; index < layers.size(); ++index) {
    mapping.layers.push_back(read_layer_mapping(root.element_map("layers", layers, index), bounds));
    // One mapping per layer: codegen would write a manifest listing it twice, which `verify --manifest` refuses.
    for (std::size_t before = 0; before < index; ++before)
      if (mapping.layers[before].layer.name == mapping.layers[index].layer.name)
        root.element_map("layers", layers, index)
            .fail("name", fmt::format("a second mapping of layer '{}' (layers[{}] maps it already)",
                                      util::shown_value(mapping.layers[index].layer.name), before));
  }
  if (root.has("fused_groups")) mapping.fused_groups = read_fused_groups(root, mapping.layers);
  root.finish();
  return mapping;
}

MappingFile mapping_file_for(const Hardware& hardware, const std::string& workload, const std::string& objective) {
  return MappingFile{hardware.name, hardware.num_ms, hardware.dn_bw, hardware.rn_bw, workload, objective, {}, {}};
}

}  // namespace maeri::contracts
