// Derived structure of a MAERI instance: tree depth, switch and link counts.
#include "spec/hardware.hpp"

#include <algorithm>

#include "spec/integer_math.hpp"

namespace maeri::spec {

double pipeline_latency(const Hardware& hardware) {
  const ModelParameters& model = hardware.model;
  const int levels = ceil_log2(hardware.num_ms);
  return levels * model.dn_level_latency + model.mn_latency + levels * model.rn_level_latency +
         model.collect_latency;
}

int dn_conversion_level(std::int64_t num_ms, std::int64_t dn_bw) {
  const int levels = ceil_log2(num_ms);
  for (int level = 0; level < levels; ++level)
    if ((num_ms >> (level + 1)) < dn_bw) return level;
  return levels;
}

HardwareStructure derive_structure(const Hardware& hardware) {
  HardwareStructure structure;
  structure.tree_levels = spec::ceil_log2(hardware.num_ms);
  structure.dn_switches = hardware.num_ms - 1;
  structure.rn_adders = hardware.num_ms - 1;
  structure.ms_forward_links = hardware.num_ms - 1;
  for (int level = 0; level < structure.tree_levels; ++level) {
    // A switch at `level` feeds num_ms / 2^level leaves; its input link never needs to be
    // wider than the root bandwidth nor than the number of leaves below it (fat tree).
    const std::int64_t leaves_below = hardware.num_ms >> level;
    structure.dn_link_width.push_back(std::min(hardware.dn_bw, leaves_below));
    // Adders (level, j) and (level, j+1) with j odd have different parents; the ART links them.
    const std::int64_t adders = std::int64_t{1} << level;
    if (adders >= 4) structure.rn_forward_links += adders / 2 - 1;
  }
  return structure;
}

}  // namespace maeri::spec
