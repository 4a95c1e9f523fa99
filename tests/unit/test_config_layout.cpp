// Checks that the configuration word layout of the C++ side (codegen/fabric_config.hpp) and of the RTL
// (rtl/maeri_config_pkg.sv) are the same: the SV package is parsed, each packed struct's fields are laid out
// MSB-first as SystemVerilog does, and every field's position and width is compared with the C++ table.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/fabric_config.hpp"

using namespace maeri::codegen;

namespace {

struct ParsedField {
  std::string name;
  int lsb;
  int width;
};

std::string read_package() {
  std::ifstream in(std::string(MAERI_SOURCE_DIR) + "/rtl/maeri_config_pkg.sv");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// struct name -> fields with LSB positions.
std::map<std::string, std::vector<ParsedField>> parse_structs(const std::string& text) {
  std::map<std::string, std::vector<ParsedField>> structs;
  const std::regex struct_re(R"(typedef\s+struct\s+packed\s*\{([^}]*)\}\s*(\w+)\s*;)");
  const std::regex field_re(R"(logic\s*(?:\[\s*(\d+)\s*:\s*(\d+)\s*\])?\s*(\w+)\s*;)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), struct_re); it != std::sregex_iterator(); ++it) {
    std::string body = (*it)[1];
    body = std::regex_replace(body, std::regex(R"(//[^\n]*)"), "");
    std::vector<ParsedField> msb_first;
    for (auto f = std::sregex_iterator(body.begin(), body.end(), field_re); f != std::sregex_iterator(); ++f) {
      const int width = (*f)[1].matched ? std::stoi((*f)[1]) - std::stoi((*f)[2]) + 1 : 1;
      msb_first.push_back({(*f)[3], 0, width});
    }
    int lsb = 0;
    for (auto f = msb_first.rbegin(); f != msb_first.rend(); ++f) f->lsb = lsb, lsb += f->width;
    structs[(*it)[2]] = msb_first;
  }
  return structs;
}

template <size_t N>
void check_same(const std::vector<ParsedField>& rtl, const ConfigField (&cpp)[N]) {
  REQUIRE(rtl.size() == N);
  for (const ConfigField& field : cpp) {
    bool found = false;
    for (const ParsedField& parsed : rtl) {
      if (parsed.name != field.name) continue;
      found = true;
      CHECK(parsed.lsb == field.lsb);
      CHECK(parsed.width == field.width);
    }
    INFO("field " << field.name);
    CHECK(found);
  }
}

}  // namespace

TEST_CASE("config word layout: rtl/maeri_config_pkg.sv matches codegen/fabric_config.hpp", "[config]") {
  const std::string text = read_package();
  const auto structs = parse_structs(text);
  REQUIRE(structs.count("mult_switch_config_t"));
  REQUIRE(structs.count("adder_switch_config_t"));
  check_same(structs.at("mult_switch_config_t"), kMultSwitchFields);
  check_same(structs.at("adder_switch_config_t"), kAdderSwitchFields);
  // The dense layout's sizes (vn_count, collector entries, totals) are functions of NUM_MS in the package; the RTL
  // test "config bus: …" checks them against contracts/config_bus.hpp on every prebuilt fabric.
}
