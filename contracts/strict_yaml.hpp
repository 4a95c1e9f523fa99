// Strict YAML reading for every spec file: typed, range-checked fields; unknown and duplicate keys rejected.
// A typo must produce an error naming file, line:column and field, never a silent default.
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::contracts {

// Limits on every YAML input (spec, workload, mapping file), so a crafted file ends in a quick util::InputError instead of
// minutes of parsing or gigabytes of memory (documented in docs/cli.md, "Limits"). Each is far above what a real
// file needs: the largest shipped config is 12 KiB; specs nest 2-3 levels, mapping files 4.
inline constexpr std::size_t kMaxSpecFileBytes = 16 * 1024 * 1024;
// How every spec file is read (util/input_file.hpp): devices and pipes too, up to kMaxSpecFileBytes.
inline constexpr util::InputFileRules kSpecFileRules{"a YAML file", kMaxSpecFileBytes, "kMaxSpecFileBytes"};
// Nesting of mappings and lists; a spec needs 4 (mapping file: root → layers → layer → shape).
inline constexpr std::size_t kMaxYamlDepth = 32;
// Nodes of the document with every alias counted as a full copy of what it names: yaml-cpp shares aliased nodes,
// so a few KiB of nested aliases ("billion laughs") would otherwise make any walk over the tree visit 10^9 nodes.
// Counted on the parser's events before the tree is built. 1 000 000 fits kMaxYamlSequenceLength layers of a
// mapping file (about 45 nodes each: 737 280), and bounds the tree yaml-cpp builds to a few hundred MB.
inline constexpr std::uint64_t kMaxYamlNodes = 1000000;
// Entries of one list field (the layers of a workload or mapping file): every entry is searched, compiled or
// co-simulated later. A recurrent network unrolled over its time steps has one layer per gate product and step
// (a 3-layer GRU over 120 steps: 8 022 operators), so the limit is 16 384.
inline constexpr std::size_t kMaxYamlSequenceLength = 16384;

// Parses a whole YAML file; syntax errors, unreadable files, directories, text that is not UTF-8 and files over
// the limits above become util::InputError naming the file (and line:column where there is one).
YAML::Node load_yaml_file(const std::string& path);
// The same checks on text already in memory (what `maeri import` is about to write); `path` names it in errors.
YAML::Node load_yaml_text(const std::string& text, const std::string& path);

// Where a node sits in its file, as a 1-based util::SourceLocation.
util::SourceLocation location_of(const std::string& file, const YAML::Node& node);

// One YAML mapping being read field by field. Call finish() once every known field
// has been read: any key that was never asked for is reported as unknown.
class StrictMap {
 public:
  // `path` is the field path of this mapping ("" for the document root, "layers[2]" ...).
  StrictMap(const YAML::Node& node, std::string file, std::string path);

  bool has(const std::string& key) const;
  // Whether the field is present and a mapping (for fields that take either a name or a mapping of fields).
  bool has_map(const std::string& key) const;

  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max);
  std::optional<std::int64_t> optional_integer(const std::string& key, std::int64_t min,
                                               std::int64_t max);
  // A per-axis field: one integer for both axes, or a list [along X, along Y]; nullopt when absent.
  std::optional<std::array<std::int64_t, 2>> optional_integer_pair(const std::string& key, std::int64_t min,
                                                                   std::int64_t max);
  // A non-empty list of at most `max_length` integers in [min, max] (a tensor's shape).
  std::vector<std::int64_t> integer_list(const std::string& key, std::int64_t min, std::int64_t max,
                                         std::size_t max_length);
  double number(const std::string& key, double min, double max);
  // A non-empty list of at most `max_length` numbers in [min, max], each read as number() reads one.
  std::vector<double> number_list(const std::string& key, double min, double max, std::size_t max_length);
  std::string text(const std::string& key);
  // A non-empty list of at most kMaxYamlSequenceLength non-empty strings (the tensors an operator reads).
  std::vector<std::string> text_list(const std::string& key);
  // A string field whose value must be one of `allowed`.
  std::string choice(const std::string& key, const std::vector<std::string>& allowed);
  StrictMap map(const std::string& key);
  // A non-empty sequence of at most kMaxYamlSequenceLength entries; the caller reads them with element_map().
  YAML::Node sequence(const std::string& key);
  StrictMap element_map(const std::string& sequence_key, const YAML::Node& sequence,
                        std::size_t index) const;

  void finish() const;

  // Error about `key` (located at the key's value, or at this mapping when the key is absent).
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  [[noreturn]] void fail_here(const std::string& problem) const;

  const std::string& file() const { return file_; }
  std::string field_path(const std::string& key) const;

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  const Entry* find(const std::string& key) const;
  // The value of a required key (marked as consumed); fails naming `expected` if absent.
  const Entry& required(const std::string& key, const std::string& expected);

  YAML::Node node_;
  std::vector<Entry> entries_;
  std::string file_;
  std::string path_;
  std::set<std::string> consumed_;
  mutable std::set<std::string> known_;  // every field name the loader asked about
};

// "found" text for messages: the scalar as written, or the kind of node.
std::string describe_node(const YAML::Node& node);

}  // namespace maeri::contracts
