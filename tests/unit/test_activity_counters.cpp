// Checks that the activity counters of the C++ side (sim/activity_counters.hpp, the table the fabric driver reads
// the `counts` port with) and of the RTL (maeri_config_pkg::activity_counter_e in rtl/maeri_config_pkg.sv) are the
// same list: the SV enum is parsed, and every item must be COUNT_<NAME> of the C++ row at the same position, with
// that position as its value; NUM_ACTIVITY_COUNTERS must be the number of rows. docs/rtl.md must define each one.
#include <catch2/catch.hpp>

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "sim/activity_counters.hpp"

using namespace maeri::sim;

namespace {

std::string read_source(const std::string& path) {
  std::ifstream in(std::string(MAERI_SOURCE_DIR) + "/" + path);
  INFO(path);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct EnumItem {
  std::string name;
  int value;
};

// The items of `typedef enum … { A = 0, B = 1 } type_name;`, in declaration order. Every item must have an
// explicit value: the position in the port is the contract, so the package spells it out.
std::vector<EnumItem> parse_enum(const std::string& text, const std::string& type_name) {
  std::smatch found;
  const std::regex enum_re(R"(typedef\s+enum\b[^{]*\{([^}]*)\}\s*)" + type_name + R"(\s*;)");
  REQUIRE(std::regex_search(text, found, enum_re));
  const std::string body = std::regex_replace(std::string(found[1]), std::regex(R"(//[^\n]*)"), "");
  std::vector<EnumItem> items;
  const std::regex item_re(R"(^\s*(\w+)\s*(?:=\s*(\d+))?\s*$)");
  std::stringstream list(body);
  for (std::string item; std::getline(list, item, ',');) {
    std::smatch parts;
    INFO("enum item '" << item << "'");
    REQUIRE(std::regex_match(item, parts, item_re));
    REQUIRE(parts[2].matched);
    items.push_back({parts[1], std::stoi(parts[2])});
  }
  return items;
}

std::string rtl_name(const char* name) {
  std::string upper = "COUNT_";
  for (const char* c = name; *c; ++c) upper += char(std::toupper(static_cast<unsigned char>(*c)));
  return upper;
}

}  // namespace

TEST_CASE("activity counters: rtl/maeri_config_pkg.sv matches sim/activity_counters.hpp", "[counters]") {
  const std::string text = read_source("rtl/maeri_config_pkg.sv");
  const std::vector<EnumItem> items = parse_enum(text, "activity_counter_e");
  REQUIRE(items.size() == size_t(kNumActivityCounters));
  for (int position = 0; position < kNumActivityCounters; ++position) {
    const ActivityCounterInfo& counter = kActivityCounters[position];
    INFO("C++ row " << position << ": " << counter.name);
    CHECK(int(counter.index) == position);
    CHECK(items[size_t(position)].name == rtl_name(counter.name));
    CHECK(items[size_t(position)].value == position);
  }

  std::smatch count;
  REQUIRE(std::regex_search(text, count, std::regex(R"(NUM_ACTIVITY_COUNTERS\s*=\s*(\d+))")));
  CHECK(std::stoi(count[1]) == kNumActivityCounters);
}

TEST_CASE("activity counters: the table covers every field of Counters once", "[counters]") {
  // Distinct member pointers, as many as Counters has 64-bit fields: reading the port fills the whole struct.
  static_assert(sizeof(Counters) == size_t(kNumActivityCounters) * sizeof(std::uint64_t));
  Counters counters;
  for (int position = 0; position < kNumActivityCounters; ++position)
    counters.*kActivityCounters[position].field = std::uint64_t(position) + 1;
  for (int position = 0; position < kNumActivityCounters; ++position) {
    INFO(kActivityCounters[position].name);
    CHECK(counters.*kActivityCounters[position].field == std::uint64_t(position) + 1);
  }
}

TEST_CASE("activity counters: docs/rtl.md defines every counter", "[counters]") {
  const std::string doc = read_source("docs/rtl.md");
  for (const ActivityCounterInfo& counter : kActivityCounters) {
    INFO(rtl_name(counter.name));
    CHECK(doc.find("| `" + rtl_name(counter.name) + "` |") != std::string::npos);
  }
}
