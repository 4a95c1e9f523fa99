// A design-space grid for `maeri sweep`: axes that each give a hardware-spec field (dotted path, e.g. dn_bw or
// sdm.capacity_kib) a list of values, read from a `kind: sweep` YAML file or from --set NAME=VALUES, expanded into
// the points of their Cartesian product, and applied to a base hardware spec by replacing those fields in its
// YAML before the ordinary hardware checks run (so every field of the spec can be swept, and a point that breaks a
// rule fails with the same message a hand-written file would, naming the point). Format: docs/sweep.md.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace maeri::contracts {

// Largest grid `maeri sweep` expands (points, and values per axis): a few minutes of mapping at most.
inline constexpr std::size_t kMaxSweepPoints = 100000;
inline constexpr std::size_t kMaxSweepAxisValues = 4096;

struct SweepAxis {
  std::string field;                // dotted path into the hardware spec
  std::vector<std::string> values;  // YAML scalars, type-checked when a point is loaded
};

struct SweepGrid {
  std::vector<SweepAxis> axes;  // first axis varies slowest
};

struct SweepPoint {
  std::size_t index = 0;            // 0-based, in expansion order
  std::vector<std::string> values;  // one per axis
  std::string label;                // "num_ms=64 dn_bw=8"
};

// `kind: sweep` file: `grid:` maps fields to a list of values or a range {from, to, times} (geometric) or
// {from, to, step} (arithmetic). Errors are util::InputError at the offending line.
SweepGrid load_sweep_grid(const std::string& path);

// One --set argument: FIELD=V1,V2,... or FIELD=FROM:TO:xFACTOR (geometric) or FIELD=FROM:TO:+STEP (arithmetic).
SweepAxis parse_sweep_setting(const std::string& text);

// A grid value as a number (the whole text must be one), nullopt otherwise: range bounds, and which axes can be
// plotted.
std::optional<double> sweep_value_number(const std::string& text);

// Adds an axis, refusing a field already swept and fields that identify the spec rather than describe hardware.
void add_axis(SweepGrid& grid, SweepAxis axis, const std::string& origin);

// Every point of the grid, first axis outermost; util::InputError if the grid is empty or over kMaxSweepPoints.
std::vector<SweepPoint> expand_grid(const SweepGrid& grid, const std::string& origin);

// A deep copy of `base` with the point's values at their fields (missing maps along a path are created; the
// hardware loader then rejects any field it does not know) and `name` set to "<base name>[<label>]".
YAML::Node apply_point(const YAML::Node& base, const SweepGrid& grid, const SweepPoint& point);

}  // namespace maeri::contracts
