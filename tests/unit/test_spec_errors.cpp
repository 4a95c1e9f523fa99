// Table-driven bad inputs: each must be rejected with a message naming file, line:column, field, what was
// expected and what was found. Expected positions are counted by hand in the YAML text of each case.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <ctime>
#include <cstring>
#include <string>
#include <vector>

#include "contracts/spec_loader.hpp"
#include "contracts/strict_yaml.hpp"
#include "temp_file.hpp"

using namespace maeri::contracts;
using maeri::test::TempDir;
using maeri::test::TempFile;

namespace {

// A valid hardware spec; cases replace one line (line numbers below refer to this text).
const std::string kHardware = R"(kind: hardware
name: hw
num_ms: 64
dn_bw: 16
rn_bw: 16
data_width: 16
acc_width: 32
clock_mhz: 200
sdm:
  capacity_kib: 64
dram:
  bytes_per_cycle: 16
  latency_cycles: 100
energy_pj:
  multiply: 0.8
  add: 0.1
  dn_hop: 0.15
  mn_hop: 0.05
  rn_hop: 0.3
  mn_forward: 0.05
  sdm_read: 5
  sdm_write: 5
  dram_byte: 160
)";

std::string replace_line(const std::string& text, const std::string& old_line, const std::string& new_line) {
  const auto at = text.find(old_line + "\n");
  REQUIRE(at != std::string::npos);
  return text.substr(0, at) + new_line + "\n" + text.substr(at + old_line.size() + 1);
}

struct BadInput {
  const char* what;
  std::string text;
  bool is_hardware;
  std::string expected_message;  // after "<file>:"
};

std::vector<BadInput> bad_inputs() {
  return {
      {"num_ms not a power of two", replace_line(kHardware, "num_ms: 64", "num_ms: 48"), true,
       "3:9: field 'num_ms': expected a power of two in [2, 65536], found 48"},
      {"num_ms given as a float", replace_line(kHardware, "num_ms: 64", "num_ms: 64.0"), true,
       "3:9: field 'num_ms': expected an integer in [2, 65536], found '64.0'"},
      {"num_ms quoted", replace_line(kHardware, "num_ms: 64", "num_ms: \"64\""), true,
       "3:9: field 'num_ms': expected an integer in [2, 65536], found the string \"64\""},
      {"dn_bw larger than num_ms", replace_line(kHardware, "dn_bw: 16", "dn_bw: 128"), true,
       "4:8: field 'dn_bw': expected an integer in [1, 64], found 128"},
      {"rn_bw zero", replace_line(kHardware, "rn_bw: 16", "rn_bw: 0"), true,
       "5:8: field 'rn_bw': expected an integer in [1, 64], found 0"},
      {"typo in a top-level key", replace_line(kHardware, "rn_bw: 16", "rn_bw: 16\nrnbw: 16"), true,
       "6:1: field 'rnbw': unknown field (known fields here: acc_width, area_um2, calibration, clock_mhz, config_bw, data_width, dn_bw, dram, "
       "energy_pj, kind, model, name, num_ms, post_processing, rn_bw, sdm)"},
      {"config bus not a power of two", replace_line(kHardware, "rn_bw: 16", "rn_bw: 16\nconfig_bw: 48"), true,
       "6:12: field 'config_bw': expected a power of two in [16, 512], found 48"},
      {"config bus wider than 512 bits", replace_line(kHardware, "rn_bw: 16", "rn_bw: 16\nconfig_bw: 1024"), true,
       "6:12: field 'config_bw': expected an integer in [16, 512], found 1024"},
      {"missing required field", replace_line(kHardware, "data_width: 16", "# data_width removed"), true,
       "1:1: field 'data_width': missing required field (expected an integer in [2, 32])"},
      {"accumulator narrower than data", replace_line(kHardware, "acc_width: 32", "acc_width: 8"), true,
       "7:12: field 'acc_width': expected an integer in [16, 64], found 8"},
      {"negative energy", replace_line(kHardware, "  add: 0.1", "  add: -0.1"), true,
       "16:8: field 'energy_pj.add': expected a number in [0, 1000000], found -0.1"},
      {"energy not a number", replace_line(kHardware, "  add: 0.1", "  add: cheap"), true,
       "16:8: field 'energy_pj.add': expected a number in [0, 1000000], found 'cheap'"},
      // strtod would read both as 16 and 1.5: every number field reads plain decimal only (util::decimal_number).
      {"energy in hex", replace_line(kHardware, "  add: 0.1", "  add: 0x10"), true,
       "16:8: field 'energy_pj.add': expected a number in [0, 1000000], found '0x10' (numbers are written in plain "
       "decimal: no '+', no hex)"},
      {"energy with a plus sign", replace_line(kHardware, "  add: 0.1", "  add: +1.5"), true,
       "16:8: field 'energy_pj.add': expected a number in [0, 1000000], found '+1.5' (numbers are written in plain "
       "decimal: no '+', no hex)"},
      {"unknown energy key", replace_line(kHardware, "  add: 0.1", "  add: 0.1\n  adder: 0.1"), true,
       "17:3: field 'energy_pj.adder': unknown field (known fields here: add, dn_hop, dram_byte, mn_forward, "
       "mn_hop, multiply, ppu_add, ppu_compare, ppu_divide, ppu_lookup, ppu_multiply, ppu_shift, rn_hop, sdm_read, "
       "sdm_write)"},
      {"post-processing unit without lanes", replace_line(kHardware, "rn_bw: 16", "rn_bw: 16\npost_processing: {lanes: 0}"),
       true, "6:26: field 'post_processing.lanes': expected an integer in [1, 65536], found 0"},
      {"post-processing latency negative",
       replace_line(kHardware, "rn_bw: 16", "rn_bw: 16\npost_processing: {lanes: 4, latency: -1}"), true,
       "6:38: field 'post_processing.latency': expected an integer in [0, 1000], found -1"},
      {"unknown post-processing key",
       replace_line(kHardware, "rn_bw: 16", "rn_bw: 16\npost_processing: {lanes: 4, depth: 2}"), true,
       "6:29: field 'post_processing.depth': unknown field (known fields here: lanes, latency)"},
      {"negative post-processing energy", replace_line(kHardware, "  add: 0.1", "  add: 0.1\n  ppu_divide: -1"), true,
       "17:15: field 'energy_pj.ppu_divide': expected a number in [0, 1000000], found -1"},
      {"duplicate key", replace_line(kHardware, "dn_bw: 16", "dn_bw: 16\ndn_bw: 32"), true,
       "5:1: field 'dn_bw': duplicate field (each field may appear once)"},
      {"section given as a scalar", replace_line(replace_line(kHardware, "sdm:", "sdm: 64"),
                                                 "  capacity_kib: 64", ""), true,
       "9:6: field 'sdm': expected a mapping of fields, found '64'"},
      {"unknown DRAM timing preset",
       replace_line(kHardware, "  latency_cycles: 100", "  latency_cycles: 100\n  timing: ddr5"), true,
       "14:11: field 'dram.timing': expected one of: ddr4-2400, lpddr4-3200, hbm2, found 'ddr5'"},
      {"DRAM refresh as long as its interval",
       replace_line(kHardware, "  latency_cycles: 100",
                    "  latency_cycles: 100\n  timing: {banks: 8, row_bytes: 2048, row_miss_ns: 30, "
                    "refresh_interval_ns: 100, refresh_ns: 100, turnaround_ns: 5}"),
       true,
       "14:94: field 'dram.timing.refresh_ns': expected less than refresh_interval_ns (100 ns): the channel would "
       "never move data, found 100 ns"},
      {"workload given as hardware", "kind: workload\nname: w\nlayers: []\n", true,
       "1:7: field 'kind': expected 'hardware' (this file is a workload; use it with --workload)"},
      {"unknown kind", replace_line(kHardware, "kind: hardware", "kind: accelerator"), true,
       "1:7: field 'kind': expected one of: hardware, workload, found 'accelerator'"},
      {"empty layer list", "kind: workload\nname: w\nlayers: []\n", false,
       "3:9: field 'layers': expected a non-empty list, found an empty list"},
      {"negative stride",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, "
       "stride: -1, padding: 0}\n",
       false, "4:71: field 'layers[0].stride': expected an integer in [1, 1024] or a list [along X, along Y] of two such "
              "integers, found -1"},
      {"stride list of three",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, "
       "stride: [1, 2, 1], padding: 0}\n",
       false, "4:71: field 'layers[0].stride': expected an integer in [1, 1024] or a list [along X, along Y] of two such "
              "integers, found a sequence"},
      {"per-axis stride out of range",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, "
       "stride: [1, 1025], padding: 0}\n",
       false, "4:71: field 'layers[0].stride': expected an integer in [1, 1024] or a list [along X, along Y] of two such "
              "integers, found 1025"},
      {"groups not dividing C",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 4, C: 6, R: 3, S: 3, X: 8, Y: 8, "
       "stride: 1, padding: 0, groups: 4}\n",
       false, "4:94: field 'layers[0].groups': expected a divisor of C = 6 and of K = 4, found 4"},
      {"dilation zero",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, "
       "stride: 1, padding: 0, dilation: 0}\n",
       false, "4:96: field 'layers[0].dilation': expected an integer in [1, 64] or a list [along X, along Y] of two "
              "such integers, found 0"},
      {"dilated filter larger than padded input",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 4, "
       "stride: 1, padding: 0, dilation: [1, 2]}\n",
       false, "4:48: field 'layers[0].S': expected (S-1)*dilation_y + 1 <= Y + 2*padding_y = 4, found 5"},
      {"missing stride",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, padding: 0}\n",
       false, "4:5: field 'layers[0].stride': missing required field (expected an integer in [1, 1024] or a list [along "
              "X, along Y])"},
      {"GEMM without M",
       "kind: workload\nname: w\nlayers:\n  - {name: g, type: gemm, K: 4, N: 8}\n",
       false, "4:5: field 'layers[0].M': missing required field (expected an integer in [1, 16777216])"},
      {"GEMM with a conv field",
       "kind: workload\nname: w\nlayers:\n  - {name: g, type: gemm, M: 2, K: 4, N: 8, R: 3}\n",
       false, "4:45: field 'layers[0].R': unknown field (known fields here: K, M, N, batch, groups, name, type)"},
      {"filter larger than padded input",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 5, S: 3, X: 2, Y: 8, "
       "stride: 1, padding: 1}\n",
       false, "4:42: field 'layers[0].R': expected (R-1)*dilation_x + 1 <= X + 2*padding_x = 4, found 5"},
      {"padding as large as the filter",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, "
       "stride: 1, padding: 3}\n",
       false, "4:83: field 'layers[0].padding': expected padding smaller than the dilated filter ((R-1)*dilation_x+1 = 3, "
              "(S-1)*dilation_y+1 = 3), found 3x3"},
      {"declared output size wrong",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, "
       "stride: 1, padding: 0, X_out: 8}\n",
       false, "4:93: field 'layers[0].X_out': declared 8 but (X + 2*padding_x - (R-1)*dilation_x - 1)/stride_x + 1 = 6"},
      {"FC layer with a conv-only field", "kind: workload\nname: w\nlayers:\n  - {name: f, type: fc, K: 4, C: 8, R: 1}\n",
       false, "4:37: field 'layers[0].R': unknown field (known fields here: C, K, name, type)"},
      {"unknown layer type", "kind: workload\nname: w\nlayers:\n  - {name: p, type: pool, K: 4, C: 8}\n", false,
       "4:21: field 'layers[0].type': expected one of: conv, fc, gemm, found 'pool'"},
      {"duplicate layer names",
       "kind: workload\nname: w\nlayers:\n  - {name: f, type: fc, K: 4, C: 8}\n  - {name: f, type: fc, K: 4, "
       "C: 8}\n",
       false, "5:12: field 'layers[1].name': duplicate layer name 'f' (names must be unique)"},
      {"batch zero", "kind: workload\nname: w\nbatch: 0\nlayers:\n  - {name: f, type: fc, K: 4, C: 8}\n", false,
       "3:8: field 'batch': expected an integer in [1, 4096], found 0"},
      {"input tensor too large for int64 although its MACs fit (stride 64)",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 16777216, R: 1, S: 1, X: 8388608, "
       "Y: 8388608, stride: 64, padding: 0}\n",
       false, "4:5: field 'layers[0]': layer too large: more than 1e18 input elements"},
      {"layers that fit alone but whose MACs add up past int64",
       "kind: workload\nname: w\nbatch: 4096\nlayers:\n" + [] {
         std::string layers;
         for (int i = 0; i < 9; ++i) layers += "  - {name: f" + std::to_string(i) + ", type: fc, K: 16777216, C: 16777216}\n";
         return layers;
       }(),
       false, "8:5: field 'layers[3]': workload too large: its layers add up to more than 4e18 multiply-accumulates"},
      {"layer is a scalar", "kind: workload\nname: w\nlayers:\n  - conv1\n", false,
       "4:5: field 'layers[0]': expected a mapping of fields, found 'conv1'"},
      {"YAML syntax error", "kind: workload\nname: [unclosed\n", false,
       "3:1: YAML syntax error: end of sequence flow not found"},
      {"empty file", "", false, "1:1: the file is empty (expected a mapping of fields starting with 'kind')"},
      // Byte 0xFF never occurs in UTF-8; it is the 8th character of line 2 ("name: h" is 7).
      {"name not UTF-8", replace_line(kHardware, "name: hw", "name: h\xffw"), true,
       "2:8: not valid UTF-8 text: byte 0xff (spec files must be UTF-8)"},
      // ED A0 80 would encode U+D800, a UTF-16 surrogate, which RFC 3629 forbids; "é" before it is one character.
      {"name with an encoded surrogate", replace_line(kHardware, "name: hw", "name: \xc3\xa9\xed\xa0\x80"), true,
       "2:8: not valid UTF-8 text: byte 0xed (spec files must be UTF-8)"},
      // 0xC0 0xAF is an overlong form of '/', which RFC 3629 forbids; "  - {name: " is 11 characters.
      {"layer name with an overlong UTF-8 form", "kind: workload\nname: w\nlayers:\n  - {name: a\xc0\xaf, type: fc}\n",
       false, "4:13: not valid UTF-8 text: byte 0xc0 (spec files must be UTF-8)"},
  };
}

}  // namespace

TEST_CASE("bad spec inputs are rejected with file, position, field, expectation and finding", "[spec][errors]") {
  for (const BadInput& bad : bad_inputs()) {
    SECTION(bad.what) {
      TempFile file(bad.text);
      std::string message;
      try {
        if (bad.is_hardware) {
          load_hardware(file.path());
        } else {
          load_workload(file.path());
        }
      } catch (const maeri::util::InputError& error) {
        message = error.what();
      }
      INFO("input:\n" << bad.text);
      CHECK(message == file.path() + ":" + bad.expected_message);
    }
  }
}

TEST_CASE("a file that does not exist is a maeri::util::InputError naming it and the OS's reason", "[spec][errors]") {
  CHECK_THROWS_WITH(load_hardware("/nonexistent/maeri.yaml"),
                    "/nonexistent/maeri.yaml: cannot open file for reading: " + std::string(std::strerror(ENOENT)));
}

TEST_CASE("names in any UTF-8 text are accepted", "[spec][errors]") {
  // é (2 bytes), € (3 bytes), U+1F600 (4 bytes): one of each encoded length.
  const std::string name = "maeri-\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
  TempFile file(replace_line(kHardware, "name: hw", "name: " + name));
  CHECK(load_hardware(file.path()).name == name);
}

TEST_CASE("a directory given as a spec is a maeri::util::InputError saying so", "[spec][errors]") {
  const TempDir folder;
  CHECK_THROWS_WITH(load_workload(folder.path()), folder.path() + ": is a directory (expected a YAML file)");
}

// Inputs over the limits of contracts/strict_yaml.hpp, each generated here. Each must end in a maeri::util::InputError naming the
// file, the position where the parser was and the limit, and do so quickly: before the limits, the billion-laughs
// and wide-mapping files took minutes (expansion) or quadratic time (duplicate-key check).
namespace {

std::string repeat(const std::string& text, std::size_t times) {
  std::string out;
  out.reserve(text.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += text;
  return out;
}

struct OverLimit {
  const char* what;
  std::string text;
  std::string expected_message;  // after "<file>:"
};

std::vector<OverLimit> over_limits() {
  // Billion laughs: a0 is a list of 10 scalars (11 nodes), a_k a list of 10 aliases of a_(k-1), so a_k expands to
  // s_k = 1 + 10·s_(k-1) nodes: 11, 111, ..., 111111 for a4. Before a5 the count is 1 (root) + 5 keys +
  // (11 + ... + 111111) = 123461; key a5 and its list make 123463; each *a4 adds 111111: the 7th gives 901240, the
  // 8th 1012351 > 1000000: the error is at the 8th alias of line 6 ("a5: &a5 [" is 9 characters, each "*a4," 4).
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= 9; ++level)
    laughs += fmt::format("a{}: &a{} [{}]\n", level, level, fmt::join(std::vector<std::string>(10, fmt::format("*a{}", level - 1)), ","));
  // 32 levels are allowed: the root mapping is level 1, "layers:" holds brackets 1..31 at levels 2..32; the 32nd
  // bracket (column 8 + 32 = 40 of line 3) opens level 33.
  const std::string deep = "kind: workload\nname: w\nlayers: " + repeat("[", kMaxYamlDepth) + repeat("]", kMaxYamlDepth) + "\n";
  // 16385 FC layers of 9 nodes each: under the node limit, over the list limit. The list's position is its first
  // entry's dash, line 4 column 3.
  std::string layers = "kind: workload\nname: w\nlayers:\n";
  for (std::size_t i = 0; i <= kMaxYamlSequenceLength; ++i) layers += fmt::format("  - {{name: l{}, type: fc, K: 1, C: 1}}\n", i);
  return {
      {"alias expansion (billion laughs)", laughs,
       "6:38: more than 1000000 YAML nodes, counting each alias as a copy of what it refers to (kMaxYamlNodes, "
       "docs/cli.md: Limits)"},
      {"an alias inside the node it names", "kind: workload\nname: &n [a, *n]\n",
       "2:14: an alias inside the node it refers to (an endless expansion)"},
      {"nesting", deep, "3:40: mappings and lists nested more than 32 levels deep (kMaxYamlDepth, docs/cli.md: Limits)"},
      {"file size", "kind: workload\n" + repeat("# a comment line of padding: 40 bytes. \n", kMaxSpecFileBytes / 40 + 1),
       " file larger than the limit of 16777216 bytes (kMaxSpecFileBytes, docs/cli.md: Limits)"},
      {"list length", layers,
       "4:3: field 'layers': expected a list of at most 16384 entries (kMaxYamlSequenceLength, docs/cli.md: Limits), "
       "found 16385"},
      // 100 000 distinct keys (200 001 nodes, under the limits): the duplicate-key check once compared every pair.
      // The root mapping has no 'name', so the error is the first missing required field, at the root's line 1.
      {"wide mapping", "kind: workload\n" + [] {
         std::string keys;
         for (int i = 0; i < 100000; ++i) keys += fmt::format("k{}: 1\n", i);
         return keys;
       }(),
       "1:1: field 'name': missing required field (expected a string)"},
  };
}

}  // namespace

TEST_CASE("YAML inputs over a limit end quickly with an error naming the file and the limit", "[spec][errors][limits]") {
  for (const OverLimit& bad : over_limits()) {
    SECTION(bad.what) {
      TempFile file(bad.text);
      std::string message;
      const std::clock_t start = std::clock();
      try {
        load_workload(file.path());
      } catch (const maeri::util::InputError& error) {
        message = error.what();
      }
      // CPU time, not wall time, so that a busy machine does not fail it; the unbounded versions ran for minutes.
      const double cpu_seconds = double(std::clock() - start) / CLOCKS_PER_SEC;
      CHECK(message == file.path() + ":" + bad.expected_message);
      CHECK(cpu_seconds < 5.0);
    }
  }
}

TEST_CASE("the limits leave room for real files: exactly at each limit the file is accepted", "[spec][errors][limits]") {
  // kMaxYamlSequenceLength FC layers and kMaxYamlDepth levels are within the limits (counted as above).
  std::string layers = "kind: workload\nname: w\nlayers:\n";
  for (std::size_t i = 0; i < kMaxYamlSequenceLength; ++i) layers += fmt::format("  - {{name: l{}, type: fc, K: 1, C: 1}}\n", i);
  TempFile many(layers);
  CHECK(load_workload(many.path()).layers.size() == kMaxYamlSequenceLength);
  // 31 brackets reach level 32; the loader then rejects the nested list as a layer, not the depth.
  TempFile deep("kind: workload\nname: w\nlayers: " + repeat("[", kMaxYamlDepth - 1) + repeat("]", kMaxYamlDepth - 1) + "\n");
  CHECK_THROWS_WITH(load_workload(deep.path()), Catch::Contains("field 'layers[0]': expected a mapping of fields, found a sequence"));
}
