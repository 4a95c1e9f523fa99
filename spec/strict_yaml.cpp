// Implementation of the strict YAML field reader used by all spec loaders.
#include "spec/strict_yaml.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>

namespace maeri::spec {
namespace {

bool is_quoted(const YAML::Node& node) { return node.Tag() == "!"; }

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : ", ") + word;
  return out;
}

}  // namespace

SourceLocation location_of(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream probe(path);
  if (!probe) throw SpecError({path, 0, 0}, "", "cannot open file for reading");
  try {
    YAML::Node document = YAML::LoadFile(path);
    if (document.IsNull()) {
      throw SpecError({path, 1, 1}, "", "the file is empty (expected a mapping of fields starting with 'kind')");
    }
    return document;
  } catch (const YAML::Exception& error) {
    throw SpecError({path, error.mark.line + 1, error.mark.column + 1}, "",
                    fmt::format("YAML syntax error: {}", error.msg));
  }
}

std::string describe_node(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing (null)";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a sequence";
  if (is_quoted(node)) return fmt::format("the string \"{}\"", node.Scalar());
  return fmt::format("'{}'", node.Scalar());
}

StrictMap::StrictMap(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node.IsMap()) {
    throw SpecError(location_of(file_, node), path_,
                    fmt::format("expected a mapping of fields, found {}", describe_node(node)));
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key_node = it->first;
    if (!key_node.IsScalar()) {
      throw SpecError(location_of(file_, key_node), path_, "expected field names to be plain words");
    }
    const std::string key = key_node.Scalar();
    if (find(key) != nullptr) {
      throw SpecError(location_of(file_, key_node), field_path(key),
                      "duplicate field (each field may appear once)");
    }
    entries_.push_back({key, key_node, it->second});
  }
}

std::string StrictMap::field_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

const StrictMap::Entry* StrictMap::find(const std::string& key) const {
  for (const auto& entry : entries_) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

bool StrictMap::has(const std::string& key) const {
  known_.insert(key);
  return find(key) != nullptr;
}

void StrictMap::fail(const std::string& key, const std::string& problem) const {
  const Entry* entry = find(key);
  const SourceLocation where =
      entry ? location_of(file_, entry->value.Mark().is_null() ? entry->key_node : entry->value)
            : location_of(file_, node_);
  throw SpecError(where, field_path(key), problem);
}

void StrictMap::fail_here(const std::string& problem) const {
  throw SpecError(location_of(file_, node_), path_, problem);
}

const StrictMap::Entry& StrictMap::required(const std::string& key, const std::string& expected) {
  known_.insert(key);
  const Entry* entry = find(key);
  if (entry == nullptr) {
    throw SpecError(location_of(file_, node_), field_path(key),
                    fmt::format("missing required field (expected {})", expected));
  }
  consumed_.insert(key);
  return *entry;
}

std::int64_t StrictMap::integer(const std::string& key, std::int64_t min, std::int64_t max) {
  const std::string expected = fmt::format("an integer in [{}, {}]", min, max);
  const Entry& entry = required(key, expected);
  const YAML::Node& value = entry.value;
  if (!value.IsScalar() || is_quoted(value)) {
    fail(key, fmt::format("expected {}, found {}", expected, describe_node(value)));
  }
  const std::string& text = value.Scalar();
  std::int64_t parsed = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  const auto [stop, status] = std::from_chars(begin, end, parsed);
  if (status != std::errc() || stop != end || begin == end) {
    fail(key, fmt::format("expected {}, found {}", expected, describe_node(value)));
  }
  if (parsed < min || parsed > max) {
    fail(key, fmt::format("expected {}, found {}", expected, parsed));
  }
  return parsed;
}

std::optional<std::int64_t> StrictMap::optional_integer(const std::string& key, std::int64_t min,
                                                        std::int64_t max) {
  if (!has(key)) return std::nullopt;
  return integer(key, min, max);
}

double StrictMap::number(const std::string& key, double min, double max) {
  const std::string expected = fmt::format("a number in [{}, {}]", min, max);
  const Entry& entry = required(key, expected);
  const YAML::Node& value = entry.value;
  if (!value.IsScalar() || is_quoted(value)) {
    fail(key, fmt::format("expected {}, found {}", expected, describe_node(value)));
  }
  const std::string& text = value.Scalar();
  char* stop = nullptr;
  const double parsed = std::strtod(text.c_str(), &stop);
  if (text.empty() || stop != text.c_str() + text.size() || !std::isfinite(parsed)) {
    fail(key, fmt::format("expected {}, found {}", expected, describe_node(value)));
  }
  if (parsed < min || parsed > max) {
    fail(key, fmt::format("expected {}, found {}", expected, text));
  }
  return parsed;
}

std::string StrictMap::text(const std::string& key) {
  const Entry& entry = required(key, "a string");
  if (!entry.value.IsScalar() || entry.value.Scalar().empty()) {
    fail(key, fmt::format("expected a non-empty string, found {}", describe_node(entry.value)));
  }
  return entry.value.Scalar();
}

std::string StrictMap::choice(const std::string& key, const std::vector<std::string>& allowed) {
  const std::string expected = "one of: " + join(allowed);
  const Entry& entry = required(key, expected);
  if (entry.value.IsScalar()) {
    for (const auto& option : allowed) {
      if (entry.value.Scalar() == option) return option;
    }
  }
  fail(key, fmt::format("expected {}, found {}", expected, describe_node(entry.value)));
}

StrictMap StrictMap::map(const std::string& key) {
  const Entry& entry = required(key, "a mapping of fields");
  if (!entry.value.IsMap()) {
    fail(key, fmt::format("expected a mapping of fields, found {}", describe_node(entry.value)));
  }
  return StrictMap(entry.value, file_, field_path(key));
}

YAML::Node StrictMap::sequence(const std::string& key) {
  const Entry& entry = required(key, "a non-empty list");
  if (!entry.value.IsSequence() || entry.value.size() == 0) {
    fail(key, fmt::format("expected a non-empty list, found {}",
                          entry.value.IsSequence() ? "an empty list" : describe_node(entry.value)));
  }
  return entry.value;
}

StrictMap StrictMap::element_map(const std::string& sequence_key, const YAML::Node& sequence,
                                 std::size_t index) const {
  return StrictMap(sequence[index], file_, fmt::format("{}[{}]", field_path(sequence_key), index));
}

void StrictMap::finish() const {
  const std::vector<std::string> known(known_.begin(), known_.end());
  for (const auto& entry : entries_) {
    if (consumed_.count(entry.key) == 0) {
      throw SpecError(location_of(file_, entry.key_node), field_path(entry.key),
                      fmt::format("unknown field (known fields here: {})", join(known)));
    }
  }
}

}  // namespace maeri::spec
