// Derived structure of a MAERI instance: tree depth, switch and link counts, and the area estimate built on them.
#include "contracts/hardware.hpp"

#include <algorithm>

#include "util/integer_math.hpp"

namespace maeri::contracts {

double pipeline_latency(const Hardware& hardware) {
  const ModelParameters& model = hardware.model;
  const int levels = util::ceil_log2(hardware.num_ms);
  return levels * model.dn_level_latency + model.mn_latency + levels * model.rn_level_latency +
         model.collect_latency;
}

int dn_conversion_level(std::int64_t num_ms, std::int64_t dn_bw) {
  const int levels = util::ceil_log2(num_ms);
  for (int level = 0; level < levels; ++level)
    if ((num_ms >> (level + 1)) < dn_bw) return level;
  return levels;
}

HardwareStructure derive_structure(const Hardware& hardware) {
  HardwareStructure structure;
  structure.tree_levels = util::ceil_log2(hardware.num_ms);
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

std::optional<double> estimated_area_um2(const Hardware& hardware) {
  if (!hardware.area_um2) return std::nullopt;
  const AreaTable& area = *hardware.area_um2;
  const HardwareStructure structure = derive_structure(hardware);
  // A DN switch is as wide as its input link (fat tree): level l has 2^l switches of dn_link_width[l] lanes, so
  // the DN's area grows with dn_bw as its wiring and registers do.
  double dn_lanes = 0;
  for (int level = 0; level < structure.tree_levels; ++level)
    dn_lanes += static_cast<double>(std::int64_t{1} << level) * static_cast<double>(structure.dn_link_width[level]);
  return static_cast<double>(hardware.num_ms) * area.multiplier_switch +
         static_cast<double>(structure.rn_adders) * area.adder_switch + dn_lanes * area.distribution_switch +
         static_cast<double>(hardware.sdm_bytes) / 1024.0 * area.sdm_per_kib;
}

}  // namespace maeri::contracts
