// Mapping files (kind: mapping): the tiles chosen for the layers of a workload on one hardware
// instance, written by `maeri map` and read by `maeri codegen`. Format: docs/mapping.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "contracts/cost_report.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/tile.hpp"

namespace maeri::contracts {

struct LayerMapping {
  Layer layer;       // the full shape, so a consumer can check it maps the layer it thinks it does
  Mapping mapping;  // fabric tile and, when the file gives one, the SDM level
  double predicted_cycles = 0;
  double predicted_energy_pj = 0;
};

// The objectives a mapping is chosen for, by the names mapping files and the command line use; mapper::Objective
// enumerates them in this order.
inline const std::vector<std::string> kObjectiveNames = {"runtime", "energy", "edp"};

// Layers that run as one fused group, their shared tensors kept in the SDM (docs/mapping.md, "Fused groups"). Which
// tensors they share follows from the workload's graph; a consumer checks the group against it and the hardware.
// A group has at least kMinFusedGroupLayers members: one layer shares nothing (the mapping file and the manifest
// readers both refuse fewer).
inline constexpr std::size_t kMinFusedGroupLayers = 2;
struct FusedGroupEntry {
  std::string name;
  std::vector<std::string> layers;          // the members, in the workload's layer order
  std::int64_t stripes = 1;                 // row stripes the members run in, interleaved (1: tensors held whole)
  std::vector<std::string> pinned_weights;  // members whose weights stay in the SDM across the stripes
  bool token_stripes = false;               // the stripes cut N (tokens), not X' (`stripe_axis: N`)
};

struct MappingFile {
  std::string hardware_name;
  std::int64_t num_ms = 0;
  std::int64_t dn_bw = 0;
  std::int64_t rn_bw = 0;
  std::string workload_name;
  std::string objective;  // one of kObjectiveNames
  std::vector<LayerMapping> layers;
  std::vector<FusedGroupEntry> fused_groups;  // absent in files without fused groups
};

// A mapping file for `workload` on `hardware`, ranked by `objective`, with no layer yet: its header.
MappingFile mapping_file_for(const Hardware& hardware, const std::string& workload, const std::string& objective);

// A mapping file used with a hardware spec must have been made for that fabric (num_ms, dn_bw, rn_bw): util::InputError
// naming the file and both fabrics otherwise.
void check_mapping_hardware(const MappingFile& mapping, const std::string& path, const Hardware& hardware);
// The tile the mapping file gives the workload's `layer` (matched by name). util::InputError naming the file and the
// layer when the file has no such layer, when the shape it recorded differs from the workload's, or when the tile
// does not fit the layer on `hardware` (mapping_violation).
Mapping tile_for_layer(const MappingFile& mapping, const std::string& path, const Layer& layer, const Hardware& hardware);

std::string emit_mapping_file(const MappingFile& mapping);
void write_mapping_file(const std::string& path, const MappingFile& mapping);
// Strict reader: shapes re-derived and every tile re-checked against Eq. 1 for the recorded num_ms; a fused group's
// members must be layers of the file, each in one group at most, pinned weights members of their group.
MappingFile load_mapping_file(const std::string& path);

}  // namespace maeri::contracts
