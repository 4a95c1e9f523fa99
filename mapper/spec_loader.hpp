// Loading hardware and workload specs from YAML (configs/hardware/*.yaml, configs/workloads/*.yaml).
// Every field is type- and range-checked; unknown keys are rejected; errors are SpecError.
// The schemas are documented in docs/hardware-spec.md and docs/workload-spec.md.
#pragma once

#include <optional>
#include <string>

#include "mapper/hardware.hpp"
#include "mapper/layer.hpp"
#include "mapper/spec_error.hpp"

namespace maeri::mapper {

enum class SpecKind { Hardware, Workload };

Hardware load_hardware(const std::string& path);
Network load_workload(const std::string& path);

// Why a layer is too large for the chain's int64 arithmetic, or nothing: its MACs and its input, weight and output
// element counts must each stay below 4e18 (so Layer's derived sizes never overflow). Checked by every loader.
std::optional<std::string> layer_size_violation(const Layer& layer);

// Reads only the top-level `kind` field, so `maeri validate` can dispatch on it.
SpecKind peek_spec_kind(const std::string& path);

// Largest supported num_ms for the mapper (the RTL has its own, smaller, limit).
inline constexpr std::int64_t kMaxMultiplierSwitches = 65536;

}  // namespace maeri::mapper
