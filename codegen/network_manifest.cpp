// Network manifest writer and strict reader (see network_manifest.hpp).
#include "codegen/network_manifest.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "contracts/tile.hpp"

#include "codegen/image_validation.hpp"
#include "util/file_names.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::codegen {
namespace {

using nlohmann::json;

class Fields {
 public:
  Fields(const std::string& path, const json& object, std::string prefix)
      : path_(path), object_(object), prefix_(std::move(prefix)) {}

  const json& get(const std::string& key, json::value_t type, const char* expected) const {
    const auto it = object_.find(key);
    if (it == object_.end()) fail(key, std::string("missing; expected ") + expected);
    const bool ok = type == json::value_t::number_float ? it->is_number()
                    : type == json::value_t::number_unsigned
                        ? it->is_number_unsigned() || (it->is_number_integer() && it->get<std::int64_t>() >= 0)
                        : it->type() == type;
    if (!ok) fail(key, std::string("expected ") + expected + ", found " + util::shown_value(it->dump()));
    return *it;
  }
  std::string text(const std::string& key) const {
    return get(key, json::value_t::string, "a string").get<std::string>();
  }
  std::uint64_t count(const std::string& key, std::uint64_t max) const {
    const std::uint64_t value = get(key, json::value_t::number_unsigned, "a non-negative integer").get<std::uint64_t>();
    if (value > max) fail(key, "expected at most " + std::to_string(max) + ", found " + std::to_string(value));
    return value;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw util::InputError({path_, 0, 0}, prefix_ + key, problem);
  }
  // A field the writer never writes is a typo or an edit, not something to ignore.
  void refuse_unknown(const std::set<std::string>& known) const {
    std::string expected;
    for (const std::string& key : known) expected += (expected.empty() ? "" : ", ") + key;
    for (const auto& item : object_.items())
      if (!known.count(item.key())) fail(item.key(), "unknown field (expected " + expected + ")");
  }

 private:
  const std::string& path_;
  const json& object_;
  std::string prefix_;
};

bool is_sha256_hex(const std::string& text) {
  if (text.size() != 64) return false;
  for (const char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::string manifest_json(const NetworkManifest& manifest) {
  nlohmann::ordered_json root;
  root["format"] = kManifestFormat;
  root["version"] = kManifestVersion;
  root["network"] = manifest.network;
  const ImageHardware& hw = manifest.hardware;
  root["hardware"] = {{"name", hw.name},         {"num_ms", hw.num_ms},         {"dn_bw", hw.dn_bw},
                      {"rn_bw", hw.rn_bw},       {"data_width", hw.data_width}, {"acc_width", hw.acc_width}};
  root["layers"] = nlohmann::ordered_json::array();
  for (const ManifestLayer& layer : manifest.layers)
    root["layers"].push_back({{"order", layer.order},
                              {"name", layer.name},
                              {"file", layer.file},
                              {"sha256", layer.sha256},
                              {"bytes", layer.bytes},
                              {"tile", layer.tile},
                              {"predicted_cycles", layer.predicted_cycles}});
  // Names come from the YAML as bytes: any that are not UTF-8 are written as U+FFFD rather than throwing.
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

NetworkManifest load_manifest(const std::string& path) {
  const std::string text =
      util::read_input_file(path, {"a network manifest (JSON)", kMaxManifestBytes, "kMaxManifestBytes", true});
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& parse) {  // parse_error, and out_of_range for numbers too large for 64 bits
    throw util::InputError({path, 0, 0}, "", std::string("not JSON: ") + parse.what());
  }
  if (!root.is_object()) throw util::InputError({path, 0, 0}, "", "expected a JSON object (a network manifest)");
  const Fields top(path, root, "");
  top.refuse_unknown({"format", "version", "network", "hardware", "layers"});
  if (top.text("format") != kManifestFormat)
    top.fail("format", std::string("expected '") + kManifestFormat + "', found '" + util::shown_value(top.text("format")) + "'");
  if (top.count("version", 1000) != std::uint64_t(kManifestVersion))
    top.fail("version", "expected " + std::to_string(kManifestVersion) + " (the version this tool reads)");
  NetworkManifest manifest;
  manifest.network = top.text("network");
  const Fields hardware(path, top.get("hardware", json::value_t::object, "an object"), "hardware.");
  hardware.refuse_unknown({"name", "num_ms", "dn_bw", "rn_bw", "data_width", "acc_width"});
  manifest.hardware.name = hardware.text("name");
  manifest.hardware.num_ms = std::uint32_t(hardware.count("num_ms", 1u << 20));
  manifest.hardware.dn_bw = std::uint32_t(hardware.count("dn_bw", 1u << 20));
  manifest.hardware.rn_bw = std::uint32_t(hardware.count("rn_bw", 1u << 20));
  manifest.hardware.data_width = std::uint8_t(hardware.count("data_width", 64));
  manifest.hardware.acc_width = std::uint8_t(hardware.count("acc_width", 64));
  const json& layers = top.get("layers", json::value_t::array, "an array of layers");
  if (layers.empty()) top.fail("layers", "expected at least one layer");
  std::set<std::string> names, files;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string prefix = "layers[" + std::to_string(i) + "].";
    if (!layers[i].is_object())
      throw util::InputError({path, 0, 0}, "layers[" + std::to_string(i) + "]", "expected an object");
    const Fields entry(path, layers[i], prefix);
    entry.refuse_unknown({"order", "name", "file", "sha256", "bytes", "tile", "predicted_cycles"});
    ManifestLayer layer;
    layer.order = int(entry.count("order", 1u << 30));
    if (layer.order != int(i) + 1)
      entry.fail("order", fmt::format("expected {} (codegen lists the layers in the network's order), found {}", i + 1,
                                      layer.order));
    layer.name = entry.text("name");
    if (!names.insert(layer.name).second) entry.fail("name", "a second layer named '" + layer.name + "'");
    layer.file = entry.text("file");
    if (!files.insert(layer.file).second) entry.fail("file", "a second layer with the image '" + layer.file + "'");
    // Only plain file names that codegen could have written: nothing outside the manifest's folder.
    if (util::safe_file_stem(layer.file) != layer.file)
      entry.fail("file", "expected a plain file name in the manifest's folder (A-Z a-z 0-9 . - _, not starting "
                         "with '.'), found '" + util::shown_value(layer.file) + "'");
    layer.sha256 = entry.text("sha256");
    if (!is_sha256_hex(layer.sha256)) entry.fail("sha256", "expected 64 lower-case hex digits");
    layer.bytes = std::int64_t(entry.count("bytes", std::uint64_t(1) << 40));
    layer.tile = entry.text("tile");
    if (!contracts::parse_fabric_tile(layer.tile))
      entry.fail("tile", "expected seven comma-separated integers T_R,T_S,T_C,T_K,T_N,T_X',T_Y', found '" +
                             layer.tile + "'");
    layer.predicted_cycles = entry.get("predicted_cycles", json::value_t::number_float, "a number").get<double>();
    if (!std::isfinite(layer.predicted_cycles) || layer.predicted_cycles < 0)
      entry.fail("predicted_cycles", "expected a finite non-negative number of cycles");
    manifest.layers.push_back(layer);
  }
  return manifest;
}

std::string manifest_image_path(const std::string& manifest_path, const ManifestLayer& layer) {
  return (std::filesystem::path(manifest_path).parent_path() / layer.file).string();
}

std::string read_manifest_image(const std::string& image_path) {
  return util::read_input_file(image_path, {"a configuration image", kMaxImageBytes, "kMaxImageBytes", true});
}

}  // namespace maeri::codegen
