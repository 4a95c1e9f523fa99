// Loading hardware and workload specs from YAML (configs/hardware/*.yaml, configs/workloads/*.yaml).
// Every field is type- and range-checked; unknown keys are rejected; errors are SpecError.
// The schemas are documented in docs/hardware-spec.md and docs/workload-spec.md.
#pragma once

#include <string>

#include "mapper/hardware.hpp"
#include "mapper/layer.hpp"
#include "mapper/spec_error.hpp"

namespace maeri::mapper {

enum class SpecKind { Hardware, Workload };

Hardware load_hardware(const std::string& path);
Network load_workload(const std::string& path);

// Reads only the top-level `kind` field, so `maeri validate` can dispatch on it.
SpecKind peek_spec_kind(const std::string& path);

// Largest supported num_ms for the mapper (the RTL has its own, smaller, limit).
inline constexpr std::int64_t kMaxMultiplierSwitches = 65536;

// Ranges of the hardware spec's widths (docs/hardware-spec.md): products of two DATA_W values and ACC_W sums
// are computed in 64-bit integers.
inline constexpr int kMinDataWidth = 2;
inline constexpr int kMaxDataWidth = 32;
inline constexpr int kMaxAccWidth = 64;

// Ranges of a layer's fields in workloads and mapping files (docs/workload-spec.md).
inline constexpr std::int64_t kMaxLayerDimension = std::int64_t{1} << 24;  // K, C, R, S, X, Y
inline constexpr std::int64_t kMaxBatch = 4096;                            // N
inline constexpr std::int64_t kMaxStride = 64;

}  // namespace maeri::mapper
