// Reads a hardware spec (kind: hardware) into Hardware, checking every field and the
// relations between them (bandwidths are powers of two no larger than num_ms, acc_width >= data_width).
#include <fmt/format.h>

#include <utility>

#include "contracts/spec_loader.hpp"
#include "contracts/dram_presets.hpp"
#include "contracts/dram_timing.hpp"
#include "contracts/model_parameters.hpp"
#include "contracts/strict_yaml.hpp"
#include "util/integer_math.hpp"

namespace maeri::contracts {
namespace {

std::int64_t power_of_two_field(StrictMap& map, const std::string& key, std::int64_t min,
                                std::int64_t max) {
  const std::int64_t value = map.integer(key, min, max);
  if (!util::is_power_of_two(value)) {
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
  // The post-processing unit's energies are optional: a file from before the unit keeps the defaults.
  const std::pair<const char*, double EnergyTable::*> unit_energies[] = {
      {"ppu_add", &EnergyTable::ppu_add},         {"ppu_multiply", &EnergyTable::ppu_multiply},
      {"ppu_shift", &EnergyTable::ppu_shift},     {"ppu_compare", &EnergyTable::ppu_compare},
      {"ppu_divide", &EnergyTable::ppu_divide},   {"ppu_lookup", &EnergyTable::ppu_lookup},
  };
  for (const auto& [key, field] : unit_energies)
    if (energy.has(key)) table.*field = energy.number(key, 0, kMaxPicojoules);
  energy.finish();
  return table;
}

// Optional section: areas for `maeri sweep`'s relative area estimate.
AreaTable read_area(StrictMap area) {
  constexpr double kMaxSquareMicrons = 1e9;
  AreaTable table;
  table.multiplier_switch = area.number("multiplier_switch", 0, kMaxSquareMicrons);
  table.adder_switch = area.number("adder_switch", 0, kMaxSquareMicrons);
  table.distribution_switch = area.number("distribution_switch", 0, kMaxSquareMicrons);
  table.sdm_per_kib = area.number("sdm_per_kib", 0, kMaxSquareMicrons);
  area.finish();
  return table;
}

// Optional section: absent means the nominal design values. Names and ranges: model_fit.cpp's table.
ModelParameters read_model(StrictMap model) {
  ModelParameters parameters;
  for (const ModelParameterInfo& info : model_parameter_table())
    if (model.has(info.name)) parameters.*(info.field) = model.number(info.name, info.min, info.max);
  model.finish();
  return parameters;
}

// Optional section written by `maeri calibrate`: where the model parameters came from.
CalibrationProvenance read_calibration(StrictMap calibration) {
  CalibrationProvenance provenance;
  provenance.date = calibration.text("date");
  provenance.method = calibration.text("method");
  provenance.source = calibration.text("source");
  provenance.fitted = calibration.text("fitted");
  provenance.fit_cases = calibration.integer("fit_cases", 0, 1 << 30);
  provenance.holdout_cases = calibration.integer("holdout_cases", 0, 1 << 30);
  provenance.cycle_mape_before_percent = calibration.number("cycle_mape_before_percent", 0, 1e9);
  provenance.cycle_mape_after_percent = calibration.number("cycle_mape_after_percent", 0, 1e9);
  calibration.finish();
  return provenance;
}

// `dram.timing`: a preset's name or the device's fields (docs/hardware-spec.md, "DRAM timing").
DramDevice read_dram_device(StrictMap& dram, double clock_mhz) {
  if (!dram.has_map("timing")) {
    std::vector<std::string> names;
    for (const DramDevice& preset : dram_presets()) names.push_back(preset.preset);
    const std::string name = dram.choice("timing", names);
    for (const DramDevice& preset : dram_presets())
      if (preset.preset == name) return preset;
  }
  StrictMap timing = dram.map("timing");
  DramDevice device;
  device.banks = timing.integer("banks", 1, 1024);
  device.row_bytes = timing.integer("row_bytes", 16, 1 << 20);
  device.row_miss_ns = timing.number("row_miss_ns", 0, 1e4);
  device.refresh_interval_ns = timing.number("refresh_interval_ns", 0, 1e9);
  device.refresh_ns = timing.number("refresh_ns", 0, 1e6);
  device.turnaround_ns = timing.number("turnaround_ns", 0, 1e4);
  if (device.refresh_interval_ns > 0 && device.refresh_ns >= device.refresh_interval_ns)
    timing.fail("refresh_ns", fmt::format("expected less than refresh_interval_ns ({} ns): the channel would never move "
                                          "data, found {} ns", device.refresh_interval_ns, device.refresh_ns));
  if (const auto violation = dram_timing_violation(device, clock_mhz)) timing.fail("refresh_ns", *violation);
  timing.finish();
  return device;
}

}  // namespace

Hardware load_hardware(const std::string& path) { return hardware_from_yaml(load_yaml_file(path), path); }

Hardware hardware_from_yaml(const YAML::Node& document, const std::string& origin) {
  StrictMap root(document, origin, "");
  if (root.choice("kind", {"hardware", "workload"}) != "hardware") {
    root.fail("kind", "expected 'hardware' (this file is a workload; use it with --workload)");
  }
  Hardware hardware;
  hardware.name = root.text("name");
  hardware.num_ms = power_of_two_field(root, "num_ms", 2, kMaxMultiplierSwitches);
  hardware.dn_bw = power_of_two_field(root, "dn_bw", 1, hardware.num_ms);
  hardware.rn_bw = power_of_two_field(root, "rn_bw", 1, hardware.num_ms);
  if (root.has("config_bw"))
    hardware.config_bw = power_of_two_field(root, "config_bw", kMinConfigBusBits, kMaxConfigBusBits);
  hardware.data_width = static_cast<int>(root.integer("data_width", kMinDataWidth, kMaxDataWidth));
  hardware.acc_width = static_cast<int>(root.integer("acc_width", hardware.data_width, kMaxAccWidth));
  hardware.clock_mhz = root.number("clock_mhz", 1, 10000);

  StrictMap sdm = root.map("sdm");
  hardware.sdm_bytes = sdm.integer("capacity_kib", 1, 1 << 20) * 1024;
  sdm.finish();

  StrictMap dram = root.map("dram");
  hardware.dram_bytes_per_cycle = dram.number("bytes_per_cycle", 0.001, 4096);
  hardware.dram_latency_cycles = dram.integer("latency_cycles", 0, 1000000);
  if (dram.has("timing")) hardware.dram_device = read_dram_device(dram, hardware.clock_mhz);
  dram.finish();

  hardware.post_processing.lanes = hardware.rn_bw;
  if (root.has("post_processing")) {
    StrictMap unit = root.map("post_processing");
    if (unit.has("lanes")) hardware.post_processing.lanes = unit.integer("lanes", 1, kMaxMultiplierSwitches);
    if (unit.has("latency")) hardware.post_processing.latency = unit.integer("latency", 0, 1000);
    unit.finish();
  }

  hardware.energy_pj = read_energy(root.map("energy_pj"));
  if (root.has("area_um2")) hardware.area_um2 = read_area(root.map("area_um2"));
  if (root.has("model")) hardware.model = read_model(root.map("model"));
  if (root.has("calibration")) hardware.calibration = read_calibration(root.map("calibration"));
  root.finish();
  return hardware;
}

SpecKind peek_spec_kind(const std::string& path) {
  StrictMap root(load_yaml_file(path), path, "");
  return root.choice("kind", {"hardware", "workload"}) == "hardware" ? SpecKind::Hardware
                                                                     : SpecKind::Workload;
}

}  // namespace maeri::contracts
