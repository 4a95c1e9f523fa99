// Writer and strict reader of mapping files.
#include "spec/mapping_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "spec/atomic_file.hpp"
#include "spec/sdm_rules.hpp"
#include "spec/spec_loader.hpp"
#include "spec/strict_yaml.hpp"

namespace maeri::spec {
namespace {

const char* const kTileKeys[kNumTileDims] = {"T_R", "T_S", "T_C", "T_K", "T_N", "T_X", "T_Y"};

std::string shape_text(const Layer& layer) {
  return fmt::format("{} N={} K={} C={} R={} S={} X={} Y={} stride {} padding {}", to_string(layer.type), layer.N,
                     layer.K, layer.C, layer.R, layer.S, layer.X, layer.Y, layer.stride, layer.padding);
}

}  // namespace

void check_mapping_hardware(const MappingFile& mapping, const std::string& path, const Hardware& hardware) {
  if (mapping.num_ms == hardware.num_ms && mapping.dn_bw == hardware.dn_bw && mapping.rn_bw == hardware.rn_bw) return;
  throw SpecError({path, 0, 0}, "hardware",
                  fmt::format("the mapping was made for {} ({} MS, dn_bw {}, rn_bw {}), not for {} ({} MS, dn_bw {}, "
                              "rn_bw {})",
                              mapping.hardware_name, mapping.num_ms, mapping.dn_bw, mapping.rn_bw, hardware.name,
                              hardware.num_ms, hardware.dn_bw, hardware.rn_bw));
}

Tile tile_for_layer(const MappingFile& mapping, const std::string& path, const Layer& layer, const Hardware& hardware) {
  for (std::size_t index = 0; index < mapping.layers.size(); ++index) {
    const LayerMapping& entry = mapping.layers[index];
    if (entry.layer.name != layer.name) continue;
    const std::string field = fmt::format("layers[{}]", index);
    const Layer& recorded = entry.layer;
    if (recorded.type != layer.type || recorded.N != layer.N || recorded.K != layer.K || recorded.C != layer.C ||
        recorded.R != layer.R || recorded.S != layer.S || recorded.X != layer.X || recorded.Y != layer.Y ||
        recorded.stride != layer.stride || recorded.padding != layer.padding)
      throw SpecError({path, 0, 0}, field + ".shape",
                      fmt::format("the mapping is for layer '{}' of shape {}, but the workload's '{}' is {}",
                                  recorded.name, shape_text(recorded), layer.name, shape_text(layer)));
    if (const auto violation = tile_violation(layer, hardware, entry.tile))
      throw SpecError({path, 0, 0}, field + (violation->rfind("SDM", 0) == 0 ? ".sdm" : ".tile"),
                      fmt::format("the tile does not fit layer '{}' on {}: {}", layer.name, hardware.name, *violation));
    return entry.tile;
  }
  throw SpecError({path, 0, 0}, "layers", "the mapping file has no layer '" + layer.name + "'");
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
    out << YAML::Key << "N" << YAML::Value << layer.N << YAML::Key << "K" << YAML::Value << layer.K;
    out << YAML::Key << "C" << YAML::Value << layer.C << YAML::Key << "R" << YAML::Value << layer.R;
    out << YAML::Key << "S" << YAML::Value << layer.S << YAML::Key << "X" << YAML::Value << layer.X;
    out << YAML::Key << "Y" << YAML::Value << layer.Y << YAML::Key << "stride" << YAML::Value << layer.stride;
    out << YAML::Key << "padding" << YAML::Value << layer.padding << YAML::EndMap;
    out << YAML::Key << "tile" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (int dim = 0; dim < kNumTileDims; ++dim) out << YAML::Key << kTileKeys[dim] << YAML::Value << entry.tile[dim];
    out << YAML::EndMap;
    if (entry.tile.sdm.blocked) {
      out << YAML::Key << "sdm" << YAML::Value << YAML::Flow << YAML::BeginMap;
      for (int dim = 0; dim < kNumSdmDims; ++dim)
        out << YAML::Key << sdm_dim_key(dim) << YAML::Value << entry.tile.sdm.block[size_t(dim)];
      out << YAML::Key << "order" << YAML::Value << order_text(entry.tile.sdm.order) << YAML::EndMap;
    }
    out << YAML::Key << "predicted_cycles" << YAML::Value << entry.predicted_cycles;
    out << YAML::Key << "predicted_energy_pj" << YAML::Value << entry.predicted_energy_pj;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string("# MAERI mapping file (docs/mapping.md), written by `maeri map`\n") + out.c_str() + "\n";
}

void write_mapping_file(const std::string& path, const MappingFile& mapping) {
  write_file_atomically(path, emit_mapping_file(mapping));
}

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
  mapping.objective = root.text("objective");
  const YAML::Node layers = root.sequence("layers");
  Hardware bounds;
  bounds.num_ms = mapping.num_ms;
  for (std::size_t index = 0; index < layers.size(); ++index) {
    StrictMap entry = root.element_map("layers", layers, index);
    LayerMapping layer_mapping;
    Layer& layer = layer_mapping.layer;
    layer.name = entry.text("name");
    StrictMap shape = entry.map("shape");
    layer.type = shape.choice("type", {"conv", "fc"}) == "conv" ? LayerType::Convolution : LayerType::FullyConnected;
    layer.N = shape.integer("N", 1, kMaxBatch);
    layer.K = shape.integer("K", 1, kMaxLayerDimension);
    layer.C = shape.integer("C", 1, kMaxLayerDimension);
    layer.R = shape.integer("R", 1, kMaxLayerDimension);
    layer.S = shape.integer("S", 1, kMaxLayerDimension);
    layer.X = shape.integer("X", 1, kMaxLayerDimension);
    layer.Y = shape.integer("Y", 1, kMaxLayerDimension);
    layer.stride = shape.integer("stride", 1, kMaxStride);
    layer.padding = shape.integer("padding", 0, kMaxLayerDimension);
    check_layer_shape(shape, layer);
    shape.finish();
    StrictMap tile = entry.map("tile");
    for (int dim = 0; dim < kNumTileDims; ++dim) {
      layer_mapping.tile[dim] = tile.integer(kTileKeys[dim], 1, kMaxLayerDimension);
    }
    if (const auto violation = tile_violation(layer, bounds, Tile{layer_mapping.tile.size, {}}))
      tile.fail_here(*violation);
    tile.finish();
    // The SDM level is optional: a file without it maps each layer as one block (docs/mapping.md).
    if (entry.has("sdm")) {
      StrictMap sdm = entry.map("sdm");
      SdmLevel& level = layer_mapping.tile.sdm;
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
      if (const auto violation = sdm_violation(layer, bounds, layer_mapping.tile)) {
        // Blame the block the rule names ("sdm.K = …"), or the SDM level as a whole.
        for (int dim = 0; dim < kNumSdmDims; ++dim)
          if (violation->find(fmt::format("sdm.{} ", sdm_dim_key(dim))) != std::string::npos)
            sdm.fail(sdm_dim_key(dim), *violation);
        sdm.fail_here(*violation);
      }
      sdm.finish();
    }
    layer_mapping.predicted_cycles = entry.number("predicted_cycles", 0, 1e30);
    layer_mapping.predicted_energy_pj = entry.number("predicted_energy_pj", 0, 1e30);
    entry.finish();
    mapping.layers.push_back(layer_mapping);
  }
  root.finish();
  return mapping;
}

}  // namespace maeri::spec
