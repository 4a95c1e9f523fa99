// Network manifest writer and strict reader (see network_manifest.hpp).
#include "codegen/network_manifest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "contracts/mapping_file.hpp"
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
  bool flag(const std::string& key) const { return get(key, json::value_t::boolean, "true or false").get<bool>(); }
  // An array of strings, each checked by `check(index, text)`.
  std::vector<std::string> texts(const std::string& key) const {
    const json& array = get(key, json::value_t::array, "an array of names");
    std::vector<std::string> result;
    for (std::size_t i = 0; i < array.size(); ++i) {
      if (!array[i].is_string()) fail(fmt::format("{}[{}]", key, i), "expected a string, found " + util::shown_value(array[i].dump()));
      result.push_back(array[i].get<std::string>());
    }
    return result;
  }
  bool has(const std::string& key) const { return object_.contains(key); }
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

nlohmann::ordered_json group_json(const ManifestFusedGroup& group) {
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (const ManifestSharedTensor& tensor : group.shared_tensors) {
    nlohmann::ordered_json consumers = nlohmann::ordered_json::array();
    for (const ManifestSharedTensor::Consumer& consumer : tensor.consumers)
      consumers.push_back({{"layer", consumer.layer},
                           {"reads", consumer.as_weights ? "weights" : consumer.as_input ? "input" : "operand"}});
    tensors.push_back({{"tensor", tensor.tensor},
                       {"producer", tensor.producer},
                       {"consumers", consumers},
                       {"also_to_dram", tensor.also_to_dram}});
  }
  nlohmann::ordered_json entry = {{"name", group.name},
                                   {"members", group.members},
                                   {"stripes", group.stripes},
                                   {"pinned_weights", group.pinned_weights},
                                   {"shared_tensors", tensors}};
  if (group.token_stripes) entry["token_stripes"] = true;
  if (!group.query_rows.empty()) entry["query_rows"] = group.query_rows;
  if (!group.output_over_shortcut.empty()) entry["output_over_shortcut"] = group.output_over_shortcut;
  return entry;
}

// One group of `fused_groups`, checked against itself and the groups before it (`grouped`: every member so far).
ManifestFusedGroup read_group(const std::string& path, const json& entry, std::size_t index,
                              std::set<std::string>& names, std::set<std::string>& grouped) {
  const std::string prefix = fmt::format("fused_groups[{}]", index);
  if (!entry.is_object()) throw util::InputError({path, 0, 0}, prefix, "expected an object");
  const Fields fields(path, entry, prefix + ".");
  fields.refuse_unknown(
      {"name", "members", "stripes", "pinned_weights", "shared_tensors", "token_stripes", "query_rows",
       "output_over_shortcut"});
  ManifestFusedGroup group;
  group.name = fields.text("name");
  if (group.name.empty()) fields.fail("name", "expected the group's name, found an empty string");
  if (!names.insert(group.name).second)
    fields.fail("name", "a second group named '" + util::shown_value(group.name) + "'");
  group.members = fields.texts("members");
  if (group.members.size() < contracts::kMinFusedGroupLayers)
    fields.fail("members", fmt::format("expected at least {} layers, found {}", contracts::kMinFusedGroupLayers,
                                       group.members.size()));
  for (std::size_t m = 0; m < group.members.size(); ++m)
    if (!grouped.insert(group.members[m]).second)
      fields.fail(fmt::format("members[{}]", m), "layer '" + group.members[m] + "' is in a group already");
  group.stripes = std::int64_t(fields.count("stripes", std::uint64_t(1) << 31));
  if (group.stripes < 1) fields.fail("stripes", "expected at least 1, found 0");
  group.token_stripes = fields.has("token_stripes") && fields.flag("token_stripes");
  if (group.token_stripes && group.stripes == 1)
    fields.fail("token_stripes", "token stripes need stripes > 1, found stripes 1");
  const auto position_of = [&](const std::string& layer) {
    return std::size_t(std::find(group.members.begin(), group.members.end(), layer) - group.members.begin());
  };
  group.pinned_weights = fields.texts("pinned_weights");
  for (std::size_t p = 0; p < group.pinned_weights.size(); ++p)
    if (position_of(group.pinned_weights[p]) == group.members.size())
      fields.fail(fmt::format("pinned_weights[{}]", p), "'" + group.pinned_weights[p] + "' is not a member of the group");
  if (fields.has("query_rows")) {
    group.query_rows = fields.texts("query_rows");
    if (!group.token_stripes && !group.query_rows.empty())
      fields.fail("query_rows", "query-row stripes are a matrix product's token stripes: the group has no "
                                "\"token_stripes\": true");
    for (std::size_t q = 0; q < group.query_rows.size(); ++q)
      if (position_of(group.query_rows[q]) == group.members.size())
        fields.fail(fmt::format("query_rows[{}]", q), "'" + group.query_rows[q] + "' is not a member of the group");
  }
  if (fields.has("output_over_shortcut")) {
    group.output_over_shortcut = fields.texts("output_over_shortcut");
    if (group.stripes != 1 && !group.output_over_shortcut.empty())
      fields.fail("output_over_shortcut", fmt::format("an output takes a shortcut's rows only in a group of one stripe, "
                                                      "found stripes {}", group.stripes));
    for (std::size_t o = 0; o < group.output_over_shortcut.size(); ++o)
      if (position_of(group.output_over_shortcut[o]) == group.members.size())
        fields.fail(fmt::format("output_over_shortcut[{}]", o),
                    "'" + group.output_over_shortcut[o] + "' is not a member of the group");
  }
  const json& tensors = fields.get("shared_tensors", json::value_t::array, "an array of shared tensors");
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    const std::string tensor_prefix = fmt::format("{}.shared_tensors[{}]", prefix, t);
    if (!tensors[t].is_object()) throw util::InputError({path, 0, 0}, tensor_prefix, "expected an object");
    const Fields tensor_fields(path, tensors[t], tensor_prefix + ".");
    tensor_fields.refuse_unknown({"tensor", "producer", "consumers", "also_to_dram"});
    ManifestSharedTensor tensor;
    tensor.tensor = tensor_fields.text("tensor");
    tensor.producer = tensor_fields.text("producer");
    const std::size_t producer = position_of(tensor.producer);
    if (producer == group.members.size())
      tensor_fields.fail("producer", "'" + tensor.producer + "' is not a member of the group");
    const json& consumers = tensor_fields.get("consumers", json::value_t::array, "an array of consumers");
    if (consumers.empty()) tensor_fields.fail("consumers", "expected at least one consumer");
    for (std::size_t c = 0; c < consumers.size(); ++c) {
      const std::string consumer_prefix = fmt::format("{}.consumers[{}]", tensor_prefix, c);
      if (!consumers[c].is_object()) throw util::InputError({path, 0, 0}, consumer_prefix, "expected an object");
      const Fields consumer_fields(path, consumers[c], consumer_prefix + ".");
      consumer_fields.refuse_unknown({"layer", "reads"});
      ManifestSharedTensor::Consumer consumer;
      consumer.layer = consumer_fields.text("layer");
      if (position_of(consumer.layer) == group.members.size() || position_of(consumer.layer) <= producer)
        consumer_fields.fail("layer", "'" + consumer.layer + "' is not a member of the group after its producer '" +
                                          tensor.producer + "'");
      const std::string reads = consumer_fields.text("reads");
      if (reads != "input" && reads != "operand" && reads != "weights")
        consumer_fields.fail("reads", "expected input, operand or weights, found '" + util::shown_value(reads) + "'");
      consumer.as_input = reads == "input";
      consumer.as_weights = reads == "weights";
      tensor.consumers.push_back(consumer);
    }
    tensor.also_to_dram = tensor_fields.flag("also_to_dram");
    group.shared_tensors.push_back(tensor);
  }
  return group;
}

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
  root["version"] = manifest.fused_groups.empty() ? kManifestVersion : kFusedManifestVersion;
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
  if (!manifest.fused_groups.empty()) {
    root["fused_groups"] = nlohmann::ordered_json::array();
    for (const ManifestFusedGroup& group : manifest.fused_groups) root["fused_groups"].push_back(group_json(group));
  }
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
  if (top.text("format") != kManifestFormat)
    top.fail("format", std::string("expected '") + kManifestFormat + "', found '" + util::shown_value(top.text("format")) + "'");
  const std::uint64_t version = top.count("version", 1000);
  if (version != std::uint64_t(kManifestVersion) && version != std::uint64_t(kFusedManifestVersion))
    top.fail("version", fmt::format("expected {} or {} (the versions this tool reads)", kManifestVersion,
                                    kFusedManifestVersion));
  if (version == std::uint64_t(kManifestVersion))
    top.refuse_unknown({"format", "version", "network", "hardware", "layers"});
  else
    top.refuse_unknown({"format", "version", "network", "hardware", "layers", "fused_groups"});
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
    if (!names.insert(layer.name).second)
      entry.fail("name", "a second layer named '" + util::shown_value(layer.name) + "'");
    layer.file = entry.text("file");
    if (!files.insert(layer.file).second)
      entry.fail("file", "a second layer with the image '" + util::shown_value(layer.file) + "'");
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
                             util::shown_value(layer.tile) + "'");
    layer.predicted_cycles = entry.get("predicted_cycles", json::value_t::number_float, "a number").get<double>();
    if (!std::isfinite(layer.predicted_cycles) || layer.predicted_cycles < 0)
      entry.fail("predicted_cycles", "expected a finite non-negative number of cycles");
    manifest.layers.push_back(layer);
  }
  if (top.has("fused_groups")) {
    const json& groups = top.get("fused_groups", json::value_t::array, "an array of fused groups");
    if (groups.empty()) top.fail("fused_groups", "expected at least one group (version 1 has none)");
    std::set<std::string> group_names, grouped;
    for (std::size_t g = 0; g < groups.size(); ++g)
      manifest.fused_groups.push_back(read_group(path, groups[g], g, group_names, grouped));
  }
  return manifest;
}

std::optional<contracts::FusedMember> manifest_member(const NetworkManifest& manifest, const std::string& layer) {
  for (const ManifestFusedGroup& group : manifest.fused_groups) {
    const auto at = std::find(group.members.begin(), group.members.end(), layer);
    if (at == group.members.end()) continue;
    contracts::FusedMember member;
    member.group = group.name;
    member.position = std::int64_t(at - group.members.begin());
    member.members = std::int64_t(group.members.size());
    member.role.stripes = group.stripes;
    member.role.token_stripes = group.token_stripes;
    member.role.query_rows =
        std::find(group.query_rows.begin(), group.query_rows.end(), layer) != group.query_rows.end();
    member.role.weights_pinned =
        std::find(group.pinned_weights.begin(), group.pinned_weights.end(), layer) != group.pinned_weights.end();
    member.role.output_over_shortcut =
        std::find(group.output_over_shortcut.begin(), group.output_over_shortcut.end(), layer) !=
        group.output_over_shortcut.end();
    // As mapper::group_roles: the input is in the SDM when a member reads it through its window; the output stays
    // there when members read it and nothing outside the group does.
    bool feeds = false, leaves = false;
    for (const ManifestSharedTensor& tensor : group.shared_tensors) {
      if (tensor.producer == layer) {
        feeds = true;
        leaves = leaves || tensor.also_to_dram;
      }
      for (const ManifestSharedTensor::Consumer& consumer : tensor.consumers)
        if (consumer.layer == layer && consumer.as_input) member.role.input_in_sdm = true;
        else if (consumer.layer == layer && consumer.as_weights) member.role.weights_in_sdm = true;
    }
    member.role.output_in_sdm = feeds && !leaves;
    return member;
  }
  return std::nullopt;
}

void check_fused_record(const NetworkManifest& manifest, const ConfigImage& image, const std::string& image_path) {
  const std::optional<contracts::FusedMember> expected = manifest_member(manifest, image.layer.name);
  const std::optional<contracts::FusedMember>& recorded = image.fused;
  if (!expected && !recorded) return;
  if (!expected)
    throw util::InputError({image_path, 0, 0}, "fused.group",
                           fmt::format("the image is member {} of group '{}', but the manifest lists layer '{}' in no "
                                       "group",
                                       recorded->position + 1, util::shown_value(recorded->group),
                                       util::shown_value(image.layer.name)));
  if (!recorded)
    throw util::InputError({image_path, 0, 0}, "fused",
                           fmt::format("the manifest lists layer '{}' in group '{}', but the image has no fused record "
                                       "(it was built alone)",
                                       util::shown_value(image.layer.name), util::shown_value(expected->group)));
  const auto differ = [&](const char* field, const std::string& in_image, const std::string& in_manifest) {
    if (in_image != in_manifest)
      throw util::InputError({image_path, 0, 0}, std::string("fused.") + field,
                             fmt::format("group '{}': the image records {}, the manifest's group gives {}",
                                         util::shown_value(expected->group), util::shown_value(in_image),
                                         util::shown_value(in_manifest)));
  };
  const auto yes_no = [](bool value) { return std::string(value ? "true" : "false"); };
  differ("group", "'" + recorded->group + "'", "'" + expected->group + "'");
  differ("position", std::to_string(recorded->position), std::to_string(expected->position));
  differ("members", std::to_string(recorded->members), std::to_string(expected->members));
  differ("stripes", std::to_string(recorded->role.stripes), std::to_string(expected->role.stripes));
  differ("token_stripes", yes_no(recorded->role.token_stripes), yes_no(expected->role.token_stripes));
  differ("query_rows", yes_no(recorded->role.query_rows), yes_no(expected->role.query_rows));
  differ("input_in_sdm", yes_no(recorded->role.input_in_sdm), yes_no(expected->role.input_in_sdm));
  differ("output_in_sdm", yes_no(recorded->role.output_in_sdm), yes_no(expected->role.output_in_sdm));
  differ("weights_pinned", yes_no(recorded->role.weights_pinned), yes_no(expected->role.weights_pinned));
  differ("output_over_shortcut", yes_no(recorded->role.output_over_shortcut),
         yes_no(expected->role.output_over_shortcut));
}

std::string manifest_image_path(const std::string& manifest_path, const ManifestLayer& layer) {
  return (std::filesystem::path(manifest_path).parent_path() / layer.file).string();
}

std::string read_manifest_image(const std::string& image_path) {
  return util::read_input_file(image_path, {"a configuration image", kMaxImageBytes, "kMaxImageBytes", true});
}

}  // namespace maeri::codegen
