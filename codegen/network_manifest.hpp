// Network manifest: the index `maeri codegen` writes beside the images of a whole network — the network, the
// fabric the images were built for, and per layer in execution order its image file, the file's SHA-256 and
// size, the tile and the model's predicted cycles, and the fused groups the images' members belong to.
// `maeri verify --manifest` checks every checksum and co-simulates the images. Format (JSON):
// docs/network-manifest.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"

namespace maeri::codegen {

inline constexpr const char* kManifestFormat = "maeri-network-manifest";
// Version 2 adds fused_groups; a manifest without groups is written as version 1, as before them.
inline constexpr int kManifestVersion = 1;
inline constexpr int kFusedManifestVersion = 2;
// A manifest of a network with a thousand layers is well under a megabyte; anything far larger is refused before it
// is parsed (docs/cli.md, "Limits").
inline constexpr std::size_t kMaxManifestBytes = std::size_t(64) << 20;

struct ManifestLayer {
  int order = 0;             // 1, 2, … in the network's order
  std::string name;          // the layer's name as the workload spells it
  std::string file;          // the image, relative to the manifest's folder (a plain file name)
  std::string sha256;        // of the image file, 64 lower-case hex digits
  std::int64_t bytes = 0;    // size of the image file
  std::string tile;          // "T_R,T_S,T_C,T_K,T_N,T_X',T_Y'"
  double predicted_cycles = 0;  // the model's total cycles for the layer under this tile
};

// A tensor one member of a fused group leaves in the SDM for others (mapper::fusion_graph's edges inside the group).
struct ManifestSharedTensor {
  std::string tensor;    // the tensor the consumers read
  std::string producer;  // member names
  struct Consumer {
    std::string layer;
    bool as_input = true;  // its activation input, through its window; else a side operand of its post-processing
    bool as_weights = false;  // a matrix product's operand A, read whole as its weights (then as_input is false)
  };
  std::vector<Consumer> consumers;
  bool also_to_dram = false;  // the producer's output also leaves the group (a later layer outside it, or an output)
};

struct ManifestFusedGroup {
  std::string name;
  std::vector<std::string> members;  // in the network's order; a manifest of some layers may hold only some images
  std::int64_t stripes = 1;
  std::vector<std::string> pinned_weights;
  std::vector<ManifestSharedTensor> shared_tensors;
  bool token_stripes = false;  // "token_stripes": true — the stripes cut N (written only when set)
  // "query_rows": with token_stripes, the members (matrix products) whose stripes cut their query rows (written only
  // when some do).
  std::vector<std::string> query_rows = {};
  // "output_over_shortcut": in a group of one stripe, the members whose shared output takes the SDM rows of the
  // shortcut their add reads last (contracts::FusedRole::output_over_shortcut; written only when some do).
  std::vector<std::string> output_over_shortcut = {};
};

struct NetworkManifest {
  std::string network;
  ImageHardware hardware;
  std::vector<ManifestLayer> layers;
  std::vector<ManifestFusedGroup> fused_groups;  // empty: version 1
};

std::string manifest_json(const NetworkManifest& manifest);
// Throws util::InputError naming the file, the field (e.g. "layers[2].sha256") and what was expected. The manifest
// must be a regular file (its images are found beside it) of at most kMaxManifestBytes.
NetworkManifest load_manifest(const std::string& path);
// The record the manifest's groups give a layer's image: its group, position, member count and role (what
// mapper::group_roles gives); nullopt when the layer is in no group.
std::optional<contracts::FusedMember> manifest_member(const NetworkManifest& manifest, const std::string& layer);
// Throws util::InputError naming the image, the group and the first field of the image's fused record (or its
// absence) that disagrees with the manifest.
void check_fused_record(const NetworkManifest& manifest, const ConfigImage& image, const std::string& image_path);

// The path of a layer's image: the manifest's folder joined with its file name.
std::string manifest_image_path(const std::string& manifest_path, const ManifestLayer& layer);
// The bytes of an image a manifest lists, to be checked against its SHA-256 and then decoded: a regular file of at
// most kMaxImageBytes (a link to a device or a huge file is a util::InputError, not an endless hash).
std::string read_manifest_image(const std::string& image_path);

}  // namespace maeri::codegen
