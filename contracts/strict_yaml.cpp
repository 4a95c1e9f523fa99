// Implementation of the strict YAML field reader used by all spec loaders.
#include "contracts/strict_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <unordered_set>

#include "util/decimal_number.hpp"
#include "util/input_file.hpp"
#include "util/utf8_text.hpp"

namespace maeri::contracts {
namespace {

bool is_quoted(const YAML::Node& node) { return node.Tag() == "!"; }

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : ", ") + word;
  return out;
}

// Names from specs end up in JSON reports, YAML mapping files and file names, which all need valid Unicode text,
// so a spec that is not UTF-8 (YAML's default encoding) is rejected here, at its position, rather than later.
void check_utf8(const std::string& text, const std::string& path) {
  const std::size_t bad = util::first_invalid_utf8(text);
  if (bad == text.size()) return;
  int line = 1, column = 1;  // column in characters, like the parser's positions
  for (std::size_t at = 0; at < bad; ++at) {
    if (text[at] == '\n') {
      line += 1;
      column = 1;
    } else if ((static_cast<unsigned char>(text[at]) & 0xC0) != 0x80) {
      column += 1;
    }
  }
  throw util::InputError({path, line, column}, "",
                  fmt::format("not valid UTF-8 text: byte 0x{:02x} (spec files must be UTF-8)",
                              static_cast<unsigned char>(text[bad])));
}

util::SourceLocation location_of_mark(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

// Walks the parser's events before any tree exists, counting nesting depth and nodes with each alias counted as
// a copy of the node it names, and stops at the first limit passed. yaml-cpp registers an anchor when its node
// starts, so an alias inside the node it names (an endless expansion) is an alias to a node still open.
class YamlBudget : public YAML::EventHandler {
 public:
  explicit YamlBudget(const std::string& path) : path_(path) {}

  // Where the document started (its '---' or first node).
  const YAML::Mark& document_start() const { return document_start_; }

  void OnDocumentStart(const YAML::Mark& mark) override { document_start_ = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (anchor >= expanded_size_.size() || expanded_size_[anchor] == kOpen)
      fail(mark, "an alias inside the node it refers to (an endless expansion)");
    add(mark, expanded_size_[anchor]);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  static constexpr std::uint64_t kOpen = ~std::uint64_t{0};
  struct Frame {
    YAML::anchor_t anchor;
    std::uint64_t nodes_before;  // total_ when the collection started
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& problem) const {
    throw util::InputError({path_, mark.is_null() ? 0 : mark.line + 1, mark.is_null() ? 0 : mark.column + 1}, "", problem);
  }
  void add(const YAML::Mark& mark, std::uint64_t nodes) {
    total_ += nodes;  // both terms are at most kMaxYamlNodes, so no overflow
    if (total_ > kMaxYamlNodes)
      fail(mark, fmt::format("more than {} YAML nodes, counting each alias as a copy of what it refers to "
                             "(kMaxYamlNodes, docs/cli.md: Limits)",
                             kMaxYamlNodes));
  }
  void record(YAML::anchor_t anchor, std::uint64_t nodes) {
    if (anchor == YAML::NullAnchor) return;
    if (anchor >= expanded_size_.size()) expanded_size_.resize(anchor + 1, kOpen);
    expanded_size_[anchor] = nodes;
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(mark, 1);
    record(anchor, 1);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (stack_.size() >= kMaxYamlDepth)
      fail(mark, fmt::format("mappings and lists nested more than {} levels deep (kMaxYamlDepth, docs/cli.md: Limits)",
                             kMaxYamlDepth));
    if (anchor != YAML::NullAnchor) record(anchor, kOpen);
    stack_.push_back({anchor, total_});
    add(mark, 1);
  }
  void close() {
    const Frame frame = stack_.back();
    stack_.pop_back();
    record(frame.anchor, total_ - frame.nodes_before);
  }

  const std::string& path_;
  YAML::Mark document_start_ = YAML::Mark::null_mark();
  std::uint64_t total_ = 0;
  std::vector<Frame> stack_;
  std::vector<std::uint64_t> expanded_size_;  // by anchor id: nodes of the anchored subtree, kOpen while open
};

}  // namespace

util::SourceLocation location_of(const std::string& file, const YAML::Node& node) {
  return location_of_mark(file, node.Mark());
}

YAML::Node load_yaml_file(const std::string& path) {
  return load_yaml_text(util::read_input_file(path, kSpecFileRules), path);
}

YAML::Node load_yaml_text(const std::string& text, const std::string& path) {
  if (text.size() > kMaxSpecFileBytes)
    throw util::InputError({path, 0, 0}, "",
                           fmt::format("{} bytes, more than a spec file may have ({} bytes, kMaxSpecFileBytes)",
                                       text.size(), kMaxSpecFileBytes));
  util::refuse_cr_only_line_endings(text, path);
  check_utf8(text, path);
  try {
    {
      std::istringstream events(text);
      YAML::Parser parser(events);
      YamlBudget budget(path);
      parser.HandleNextDocument(budget);  // throws util::InputError at the first limit passed
      // YAML::Load reads the first document only: anything after it would be silently ignored.
      YamlBudget rest(path);
      if (parser.HandleNextDocument(rest))
        throw util::InputError(location_of_mark(path, rest.document_start()), "",
                               "a second YAML document: a spec file holds one (remove the '---' or split the file)");
    }
    YAML::Node document = YAML::Load(text);
    if (document.IsNull()) {
      throw util::InputError({path, 1, 1}, "", "the file is empty (expected a mapping of fields starting with 'kind')");
    }
    return document;
  } catch (const YAML::Exception& error) {
    throw util::InputError({path, error.mark.line + 1, error.mark.column + 1}, "",
                    fmt::format("YAML syntax error: {}", error.msg));
  }
}

std::string describe_node(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing (null)";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a sequence";
  if (is_quoted(node)) return fmt::format("the string \"{}\"", util::shown_value(node.Scalar()));
  return fmt::format("'{}'", util::shown_value(node.Scalar()));
}

StrictMap::StrictMap(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node.IsMap()) {
    throw util::InputError(location_of(file_, node), path_,
                    fmt::format("expected a mapping of fields, found {}", describe_node(node)));
  }
  std::unordered_set<std::string> seen;  // a set, not find(): a crafted mapping may have 10^5 keys
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key_node = it->first;
    if (!key_node.IsScalar()) {
      throw util::InputError(location_of(file_, key_node), path_, "expected field names to be plain words");
    }
    const std::string key = key_node.Scalar();
    if (!seen.insert(key).second) {
      throw util::InputError(location_of(file_, key_node), field_path(key),
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

bool StrictMap::has_map(const std::string& key) const {
  known_.insert(key);
  const Entry* entry = find(key);
  return entry != nullptr && entry->value.IsMap();
}

void StrictMap::fail(const std::string& key, const std::string& problem) const {
  const Entry* entry = find(key);
  const util::SourceLocation where =
      entry ? location_of(file_, entry->value.Mark().is_null() ? entry->key_node : entry->value)
            : location_of(file_, node_);
  throw util::InputError(where, field_path(key), problem);
}

void StrictMap::fail_here(const std::string& problem) const {
  throw util::InputError(location_of(file_, node_), path_, problem);
}

const StrictMap::Entry& StrictMap::required(const std::string& key, const std::string& expected) {
  known_.insert(key);
  const Entry* entry = find(key);
  if (entry == nullptr) {
    throw util::InputError(location_of(file_, node_), field_path(key),
                    fmt::format("missing required field (expected {})", expected));
  }
  consumed_.insert(key);
  return *entry;
}

namespace {

// Whether a scalar is a plain one or explicitly tagged as `type` ("int", "float"): `!!str 64` and "64" are text.
bool untagged_or(const YAML::Node& value, const char* type) {
  return value.Tag() == "?" || value.Tag() == std::string("tag:yaml.org,2002:") + type;
}

// The integer a plain scalar spells in decimal digits with an optional '-', nullopt if it is not one. `+64` and
// `064` are refused: YAML 1.1 readers take 064 as octal 52, and one spelling per value keeps files diffable.
std::optional<std::int64_t> integer_of(const YAML::Node& value) {
  if (!value.IsScalar() || !untagged_or(value, "int")) return std::nullopt;
  const std::string& text = value.Scalar();
  std::int64_t parsed = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const char* digits = begin != end && *begin == '-' ? begin + 1 : begin;
  if (end - digits > 1 && *digits == '0') return std::nullopt;
  const auto [stop, status] = std::from_chars(begin, end, parsed);
  if (status != std::errc() || stop != end || begin == end) return std::nullopt;
  return parsed;
}

// Why a scalar that reads like an integer is not one, for the message; "" otherwise.
std::string integer_spelling_hint(const YAML::Node& value) {
  if (!value.IsScalar() || is_quoted(value)) return "";
  const std::string& text = value.Scalar();
  const std::size_t digits = text.find_first_not_of("+-");
  if (digits > 1 || digits == std::string::npos || text.find_first_not_of("0123456789", digits) != std::string::npos)
    return "";
  if (!untagged_or(value, "int")) return " (tagged " + value.Tag() + ": not an integer)";
  return " (integers are written in plain decimal digits: no '+', no leading zeros)";
}

}  // namespace

std::int64_t StrictMap::integer(const std::string& key, std::int64_t min, std::int64_t max) {
  const std::string expected = fmt::format("an integer in [{}, {}]", min, max);
  const Entry& entry = required(key, expected);
  const auto parsed = integer_of(entry.value);
  if (!parsed)
    fail(key, fmt::format("expected {}, found {}{}", expected, describe_node(entry.value),
                          integer_spelling_hint(entry.value)));
  if (*parsed < min || *parsed > max) fail(key, fmt::format("expected {}, found {}", expected, *parsed));
  return *parsed;
}

std::optional<std::array<std::int64_t, 2>> StrictMap::optional_integer_pair(const std::string& key,
                                                                            std::int64_t min, std::int64_t max) {
  if (!has(key)) return std::nullopt;
  const std::string expected =
      fmt::format("an integer in [{}, {}] or a list [along X, along Y] of two such integers", min, max);
  const Entry& entry = required(key, expected);
  const YAML::Node& value = entry.value;
  std::vector<YAML::Node> items;
  if (value.IsSequence() && value.size() == 2) {
    items = {value[0], value[1]};
  } else if (value.IsScalar()) {
    items = {value, value};
  } else {
    fail(key, fmt::format("expected {}, found {}", expected, describe_node(value)));
  }
  std::array<std::int64_t, 2> pair{};
  for (std::size_t axis = 0; axis < 2; ++axis) {
    const auto parsed = integer_of(items[axis]);
    if (!parsed)
      fail(key, fmt::format("expected {}, found {}{}", expected, describe_node(items[axis]),
                            integer_spelling_hint(items[axis])));
    if (*parsed < min || *parsed > max) fail(key, fmt::format("expected {}, found {}", expected, *parsed));
    pair[axis] = *parsed;
  }
  return pair;
}

std::vector<std::int64_t> StrictMap::integer_list(const std::string& key, std::int64_t min, std::int64_t max,
                                                  std::size_t max_length) {
  const std::string expected = fmt::format("a list of 1 to {} integers in [{}, {}]", max_length, min, max);
  const Entry& entry = required(key, expected);
  const YAML::Node& value = entry.value;
  if (!value.IsSequence() || value.size() == 0 || value.size() > max_length)
    fail(key, fmt::format("expected {}, found {}", expected,
                          value.IsSequence() ? fmt::format("a list of {}", value.size()) : describe_node(value)));
  std::vector<std::int64_t> values;
  for (const YAML::Node& item : value) {
    const auto parsed = integer_of(item);
    if (!parsed)
      fail(key, fmt::format("expected {}, found {}{}", expected, describe_node(item), integer_spelling_hint(item)));
    if (*parsed < min || *parsed > max) fail(key, fmt::format("expected {}, found {}", expected, *parsed));
    values.push_back(*parsed);
  }
  return values;
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
  if (!value.IsScalar() || !(untagged_or(value, "float") || untagged_or(value, "int"))) {
    fail(key, fmt::format("expected {}, found {}", expected, describe_node(value)));
  }
  const std::string& text = value.Scalar();
  const std::optional<double> read = util::decimal_number(text);
  if (!read) {
    const bool other_spelling = text.find_first_of("+xX") != std::string::npos;
    fail(key, fmt::format("expected {}, found {}{}", expected, describe_node(value),
                          other_spelling ? " (numbers are written in plain decimal: no '+', no hex)" : ""));
  }
  const double parsed = *read;
  if (parsed < min || parsed > max) {
    fail(key, fmt::format("expected {}, found {}", expected, text));
  }
  return parsed;
}

std::vector<double> StrictMap::number_list(const std::string& key, double min, double max, std::size_t max_length) {
  const std::string expected = fmt::format("a list of 1 to {} numbers in [{}, {}]", max_length, min, max);
  const Entry& entry = required(key, expected);
  const YAML::Node& value = entry.value;
  if (!value.IsSequence() || value.size() == 0 || value.size() > max_length)
    fail(key, fmt::format("expected {}, found {}", expected,
                          value.IsSequence() ? fmt::format("a list of {}", value.size()) : describe_node(value)));
  std::vector<double> values;
  for (const YAML::Node& item : value) {
    const bool scalar = item.IsScalar() && (untagged_or(item, "float") || untagged_or(item, "int"));
    const std::optional<double> read = scalar ? util::decimal_number(item.Scalar()) : std::nullopt;
    if (!read) fail(key, fmt::format("expected {}, found {}", expected, describe_node(item)));
    if (*read < min || *read > max) fail(key, fmt::format("expected {}, found {}", expected, item.Scalar()));
    values.push_back(*read);
  }
  return values;
}

std::string StrictMap::text(const std::string& key) {
  const Entry& entry = required(key, "a string");
  if (!entry.value.IsScalar() || entry.value.Scalar().empty()) {
    fail(key, fmt::format("expected a non-empty string, found {}", describe_node(entry.value)));
  }
  return entry.value.Scalar();
}

std::vector<std::string> StrictMap::text_list(const std::string& key) {
  const std::string expected = fmt::format("a list of 1 to {} names", kMaxYamlSequenceLength);
  const Entry& entry = required(key, expected);
  const YAML::Node& value = entry.value;
  if (!value.IsSequence() || value.size() == 0 || value.size() > kMaxYamlSequenceLength)
    fail(key, fmt::format("expected {}, found {}", expected,
                          value.IsSequence() ? fmt::format("a list of {}", value.size()) : describe_node(value)));
  std::vector<std::string> names;
  for (const YAML::Node& item : value) {
    if (!item.IsScalar() || item.Scalar().empty())
      fail(key, fmt::format("expected {}, found {} in the list", expected, describe_node(item)));
    names.push_back(item.Scalar());
  }
  return names;
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
  if (entry.value.size() > kMaxYamlSequenceLength) {
    fail(key, fmt::format("expected a list of at most {} entries (kMaxYamlSequenceLength, docs/cli.md: Limits), "
                          "found {}",
                          kMaxYamlSequenceLength, entry.value.size()));
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
      throw util::InputError(location_of(file_, entry.key_node), field_path(entry.key),
                      fmt::format("unknown field (known fields here: {})", join(known)));
    }
  }
}

}  // namespace maeri::contracts
