// libFuzzer harness: the network manifest reader (codegen::load_manifest, docs/network-manifest.md) on arbitrary
// file contents, and the writer on what it accepted: a manifest the reader accepts must be written back in a form
// the reader accepts again with the same contents (its fused groups too), and every file it names must stay in the
// manifest's folder.
// Bad input must end in maeri::util::InputError.
#include <cstddef>
#include <cstdint>

#include "codegen/network_manifest.hpp"
#include "util/file_names.hpp"
#include "util/input_error.hpp"
#include "tests/fuzz/fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static maeri::fuzz::FuzzInputFile file(".json");
  static maeri::fuzz::FuzzInputFile rewritten(".json");
  const std::string& path = file.write(data, size);
  maeri::codegen::NetworkManifest manifest;
  try {
    manifest = maeri::codegen::load_manifest(path);
  } catch (const maeri::util::InputError&) {
    return 0;
  }
  for (const auto& layer : manifest.layers)
    if (maeri::util::safe_file_stem(layer.file) != layer.file || layer.sha256.size() != 64) __builtin_trap();
  const std::string text = maeri::codegen::manifest_json(manifest);
  const maeri::codegen::NetworkManifest again = maeri::codegen::load_manifest(
      rewritten.write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  if (again.layers.size() != manifest.layers.size() || !(again.hardware == manifest.hardware)) __builtin_trap();
  if (again.fused_groups.size() != manifest.fused_groups.size()) __builtin_trap();
  for (std::size_t g = 0; g < manifest.fused_groups.size(); ++g)
    if (again.fused_groups[g].members != manifest.fused_groups[g].members ||
        again.fused_groups[g].stripes != manifest.fused_groups[g].stripes ||
        again.fused_groups[g].shared_tensors.size() != manifest.fused_groups[g].shared_tensors.size())
      __builtin_trap();
  for (const auto& layer : manifest.layers) (void)maeri::codegen::manifest_member(manifest, layer.name);
  for (std::size_t i = 0; i < manifest.layers.size(); ++i)
    if (again.layers[i].file != manifest.layers[i].file || again.layers[i].sha256 != manifest.layers[i].sha256 ||
        again.layers[i].order != manifest.layers[i].order)
      __builtin_trap();
  return 0;
}
