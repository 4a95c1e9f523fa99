// The NetworkPlan contract: every decision a run of a network needs, made once and before anything runs — the
// network and the hardware as loaded, each fabric layer's chosen mapping(s) in rank order with the configuration
// image that runs each, and the fused groups with each member's role and SDM reservations. flow/ makes it (a search
// as `maeri map` ranks, the mappings of a mapping file, or the images of a network manifest: flow/network_plan.hpp);
// the testbench executes it and never searches (docs/cosim.md, "The network plan").
//
// Images are in the plan, encoded as a user ships them (codegen/config_image.hpp): built once from the mapping when
// the plan is made (a fused member's with its member record), or read and checked from a manifest. The testbench
// decodes each image it runs, as it would decode a shipped file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "contracts/fused_role.hpp"
#include "contracts/hardware.hpp"
#include "contracts/layer.hpp"
#include "contracts/network.hpp"
#include "contracts/tile.hpp"

namespace maeri::contracts {

// Where a plan's mappings came from.
enum class PlanSource {
  Searched,     // the exhaustive search over the joint space, ranked with exact DN/RN traffic (as `maeri map`)
  MappingFile,  // a mapping file (`maeri map -o`), its fused groups included
  Manifest,     // the images of a network manifest (`maeri codegen`), checksums checked
};

// One fabric run: a layer with one of its mappings and the image that runs it.
struct PlannedRun {
  Layer layer;
  Mapping mapping;
  std::size_t position = 0;  // the layer's place among the layers planned (a manifest's: its place in the manifest)
  int rank = 0;              // the mapping's place among the layer's mappings, 0 = the best
  std::vector<std::uint8_t> image;  // encoded; empty when `error` says why there is none
  std::string source;               // where the image came from: "<layer>.mimg" when built, else its file
  std::string error;                // a manifest's image that cannot run (checksum mismatch, unreadable, wrong)
};

// A fused group of two or more consecutive fabric layers as the plan runs it.
struct PlannedGroup {
  std::string name;
  std::size_t first = 0, count = 0;  // its members: network.layers[first … first + count − 1]
  std::int64_t stripes = 1;
  std::vector<Mapping> mappings;        // per member
  std::vector<FusedRole> roles;         // per member, as the model costs it (mapper::group_roles)
  std::vector<std::int64_t> live_bytes;    // per member: the shared tensors live while it runs
  std::vector<std::int64_t> pinned_bytes;  // per member: its weights when pinned, else 0

  bool has_layer(std::size_t layer) const { return layer >= first && layer < first + count; }
  // The group's SDM reservation while stripe `stripe` of member `member` runs: the shared tensors live then and the
  // pinned weights — but for the member's own while its first stripe fetches them through the stream buffer.
  std::int64_t reserved_bytes(std::size_t member, std::int64_t stripe) const {
    std::int64_t pinned = 0;
    for (std::int64_t bytes : pinned_bytes) pinned += bytes;
    return live_bytes[member] + pinned - (stripe == 0 ? pinned_bytes[member] : 0);
  }
};

struct NetworkPlan {
  Network network;  // a manifest's plan: the name only (its layers are in the runs)
  Hardware hardware;
  PlanSource source = PlanSource::Searched;
  std::string origin;              // the mapping file or manifest the decisions were read from ("" when searched)
  std::vector<PlannedRun> runs;    // by layer, in the network's order; each layer's mappings in rank order
  std::vector<PlannedGroup> groups;

  // The group layer `layer` (network.layers index) is a member of; null when it runs alone.
  const PlannedGroup* group_of(std::size_t layer) const {
    for (const PlannedGroup& group : groups)
      if (group.has_layer(layer)) return &group;
    return nullptr;
  }
  // The best run of the layer at `position` (a network.layers index when every layer was planned); null when the plan
  // has none.
  const PlannedRun* best_run(std::size_t position) const {
    for (const PlannedRun& run : runs)
      if (run.position == position && run.rank == 0) return &run;
    return nullptr;
  }
};

}  // namespace maeri::contracts
