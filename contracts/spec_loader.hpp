// Loading hardware and workload specs from YAML (configs/hardware/*.yaml, configs/workloads/*.yaml).
// Every field is type- and range-checked; unknown keys are rejected; errors are util::InputError.
// The schemas are documented in docs/hardware-spec.md and docs/workload-spec.md.
#pragma once

#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/network.hpp"
#include "contracts/network.hpp"
#include "util/input_error.hpp"

namespace maeri::contracts {

enum class SpecKind { Hardware, Workload };

Hardware load_hardware(const std::string& path);
// The same checks on a document already parsed (e.g. a sweep point's spec on an MPI rank that does not write the
// point's file); `origin` stands for the file name in errors.
Hardware hardware_from_yaml(const YAML::Node& document, const std::string& origin);
Network load_workload(const std::string& path);
// The same checks on a workload's text (what `maeri import` is about to write) or parsed document; `origin` stands
// for the file name in errors.
Network load_workload_text(const std::string& text, const std::string& origin);
Network workload_from_yaml(const YAML::Node& document, const std::string& origin);

// The LayerType a file names ("conv", "fc", "gemm"; the readers check the name first).
LayerType layer_type_of(const std::string& name);

class StrictMap;
// Fails at the offending field of `map` (or at the map itself for a whole-layer rule) when the layer read from it
// breaks contracts::shape_violation; shared by the workload and mapping-file readers.
void check_layer_shape(const StrictMap& map, const Layer& layer);

// Reads only the top-level `kind` field, so `maeri validate` can dispatch on it.
SpecKind peek_spec_kind(const std::string& path);

}  // namespace maeri::contracts
