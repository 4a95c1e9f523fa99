// Reads a hardware spec (kind: hardware) into Hardware, checking every field and the
// relations between them (bandwidths are powers of two no larger than num_ms, acc_width >= data_width).
#include <fmt/format.h>

#include "mapper/spec_loader.hpp"
#include "mapper/strict_yaml.hpp"

namespace maeri::mapper {
namespace {

std::int64_t power_of_two_field(StrictMap& map, const std::string& key, std::int64_t min,
                                std::int64_t max) {
  const std::int64_t value = map.integer(key, min, max);
  if (!is_power_of_two(value)) {
    map.fail(key, fmt::format("expected a power of two in [{}, {}], found {}", min, max, value));
  }
  return value;
}

EnergyTable read_energy(StrictMap energy) {
  constexpr double kMaxPicojoules = 1e6;
  EnergyTable table;
  table.multiply = energy.number("multiply", 0, kMaxPicojoules);
  table.add = energy.number("add", 0, kMaxPicojoules);
  table.dn_hop = energy.number("dn_hop", 0, kMaxPicojoules);
  table.mn_hop = energy.number("mn_hop", 0, kMaxPicojoules);
  table.rn_hop = energy.number("rn_hop", 0, kMaxPicojoules);
  table.mn_forward = energy.number("mn_forward", 0, kMaxPicojoules);
  table.sdm_read = energy.number("sdm_read", 0, kMaxPicojoules);
  table.sdm_write = energy.number("sdm_write", 0, kMaxPicojoules);
  table.dram_byte = energy.number("dram_byte", 0, kMaxPicojoules);
  energy.finish();
  return table;
}

// Optional section: absent means the nominal design values.
ModelParameters read_model(StrictMap model) {
  constexpr double kMaxCycles = 1e6;
  ModelParameters parameters;
  const auto optional_number = [&model](const std::string& key, double fallback, double min, double max) {
    return model.has(key) ? model.number(key, min, max) : fallback;
  };
  parameters.dn_level_latency = optional_number("dn_level_latency", parameters.dn_level_latency, 0, kMaxCycles);
  parameters.mn_latency = optional_number("mn_latency", parameters.mn_latency, 0, kMaxCycles);
  parameters.rn_level_latency = optional_number("rn_level_latency", parameters.rn_level_latency, 0, kMaxCycles);
  parameters.collect_latency = optional_number("collect_latency", parameters.collect_latency, 0, kMaxCycles);
  parameters.step_overhead = optional_number("step_overhead", parameters.step_overhead, 0, kMaxCycles);
  parameters.phase_overhead = optional_number("phase_overhead", parameters.phase_overhead, 0, kMaxCycles);
  parameters.config_words_per_cycle =
      optional_number("config_words_per_cycle", parameters.config_words_per_cycle, 0.001, kMaxCycles);
  model.finish();
  return parameters;
}

}  // namespace

Hardware load_hardware(const std::string& path) {
  StrictMap root(load_yaml_file(path), path, "");
  if (root.choice("kind", {"hardware", "workload"}) != "hardware") {
    root.fail("kind", "expected 'hardware' (this file is a workload; use it with --workload)");
  }
  Hardware hardware;
  hardware.name = root.text("name");
  hardware.num_ms = power_of_two_field(root, "num_ms", 2, kMaxMultiplierSwitches);
  hardware.dn_bw = power_of_two_field(root, "dn_bw", 1, hardware.num_ms);
  hardware.rn_bw = power_of_two_field(root, "rn_bw", 1, hardware.num_ms);
  hardware.data_width = static_cast<int>(root.integer("data_width", 2, 32));
  hardware.acc_width = static_cast<int>(root.integer("acc_width", hardware.data_width, 64));
  hardware.clock_mhz = root.number("clock_mhz", 1, 10000);

  StrictMap sdm = root.map("sdm");
  hardware.sdm_bytes = sdm.integer("capacity_kib", 1, 1 << 20) * 1024;
  sdm.finish();

  StrictMap dram = root.map("dram");
  hardware.dram_bytes_per_cycle = dram.number("bytes_per_cycle", 0.001, 4096);
  hardware.dram_latency_cycles = dram.integer("latency_cycles", 0, 1000000);
  dram.finish();

  hardware.energy_pj = read_energy(root.map("energy_pj"));
  if (root.has("model")) hardware.model = read_model(root.map("model"));
  root.finish();
  return hardware;
}

SpecKind peek_spec_kind(const std::string& path) {
  StrictMap root(load_yaml_file(path), path, "");
  return root.choice("kind", {"hardware", "workload"}) == "hardware" ? SpecKind::Hardware
                                                                     : SpecKind::Workload;
}

}  // namespace maeri::mapper
