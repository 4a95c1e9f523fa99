// Network manifest: the index `maeri codegen` writes beside the images of a whole network — the network, the
// fabric the images were built for, and per layer in execution order its image file, the file's SHA-256 and
// size, the tile and the model's predicted cycles. `maeri verify --manifest` checks every checksum and
// co-simulates the images. Format (JSON): docs/network-manifest.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/config_image.hpp"

namespace maeri::codegen {

inline constexpr const char* kManifestFormat = "maeri-network-manifest";
inline constexpr int kManifestVersion = 1;
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

struct NetworkManifest {
  std::string network;
  ImageHardware hardware;
  std::vector<ManifestLayer> layers;
};

std::string manifest_json(const NetworkManifest& manifest);
// Throws util::InputError naming the file, the field (e.g. "layers[2].sha256") and what was expected. The manifest
// must be a regular file (its images are found beside it) of at most kMaxManifestBytes.
NetworkManifest load_manifest(const std::string& path);
// The path of a layer's image: the manifest's folder joined with its file name.
std::string manifest_image_path(const std::string& manifest_path, const ManifestLayer& layer);
// The bytes of an image a manifest lists, to be checked against its SHA-256 and then decoded: a regular file of at
// most kMaxImageBytes (a link to a device or a huge file is a util::InputError, not an endless hash).
std::string read_manifest_image(const std::string& image_path);

}  // namespace maeri::codegen
