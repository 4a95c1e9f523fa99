// Table-driven bad inputs: each must be rejected with a message naming file, line:column, field, what was
// expected and what was found. Expected positions are counted by hand in the YAML text of each case.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "mapper/spec_loader.hpp"
#include "temp_file.hpp"

using namespace maeri::mapper;
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
       "6:1: field 'rnbw': unknown field (known fields here: acc_width, calibration, clock_mhz, data_width, dn_bw, dram, "
       "energy_pj, kind, model, name, num_ms, rn_bw, sdm)"},
      {"missing required field", replace_line(kHardware, "data_width: 16", "# data_width removed"), true,
       "1:1: field 'data_width': missing required field (expected an integer in [2, 32])"},
      {"accumulator narrower than data", replace_line(kHardware, "acc_width: 32", "acc_width: 8"), true,
       "7:12: field 'acc_width': expected an integer in [16, 64], found 8"},
      {"negative energy", replace_line(kHardware, "  add: 0.1", "  add: -0.1"), true,
       "16:8: field 'energy_pj.add': expected a number in [0, 1000000], found -0.1"},
      {"energy not a number", replace_line(kHardware, "  add: 0.1", "  add: cheap"), true,
       "16:8: field 'energy_pj.add': expected a number in [0, 1000000], found 'cheap'"},
      {"unknown energy key", replace_line(kHardware, "  add: 0.1", "  add: 0.1\n  adder: 0.1"), true,
       "17:3: field 'energy_pj.adder': unknown field (known fields here: add, dn_hop, dram_byte, mn_forward, "
       "mn_hop, multiply, rn_hop, sdm_read, sdm_write)"},
      {"duplicate key", replace_line(kHardware, "dn_bw: 16", "dn_bw: 16\ndn_bw: 32"), true,
       "5:1: field 'dn_bw': duplicate field (each field may appear once)"},
      {"section given as a scalar", replace_line(replace_line(kHardware, "sdm:", "sdm: 64"),
                                                 "  capacity_kib: 64", ""), true,
       "9:6: field 'sdm': expected a mapping of fields, found '64'"},
      {"workload given as hardware", "kind: workload\nname: w\nlayers: []\n", true,
       "1:7: field 'kind': expected 'hardware' (this file is a workload; use it with --workload)"},
      {"unknown kind", replace_line(kHardware, "kind: hardware", "kind: accelerator"), true,
       "1:7: field 'kind': expected one of: hardware, workload, found 'accelerator'"},
      {"empty layer list", "kind: workload\nname: w\nlayers: []\n", false,
       "3:9: field 'layers': expected a non-empty list, found an empty list"},
      {"negative stride",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, "
       "stride: -1, padding: 0}\n",
       false, "4:71: field 'layers[0].stride': expected an integer in [1, 64], found -1"},
      {"filter larger than padded input",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 5, S: 3, X: 2, Y: 8, "
       "stride: 1, padding: 1}\n",
       false, "4:42: field 'layers[0].R': expected R <= X + 2*padding = 4, found 5"},
      {"padding as large as the filter",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, "
       "stride: 1, padding: 3}\n",
       false, "4:83: field 'layers[0].padding': expected padding smaller than the filter (R=3, S=3), found 3"},
      {"declared output size wrong",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 1, R: 3, S: 3, X: 8, Y: 8, "
       "stride: 1, padding: 0, X_out: 8}\n",
       false, "4:93: field 'layers[0].X_out': declared 8 but (X + 2*padding - R)/stride + 1 = 6"},
      {"FC layer with a conv-only field", "kind: workload\nname: w\nlayers:\n  - {name: f, type: fc, K: 4, C: 8, R: 1}\n",
       false, "4:37: field 'layers[0].R': unknown field (known fields here: C, K, name, type)"},
      {"unknown layer type", "kind: workload\nname: w\nlayers:\n  - {name: p, type: pool, K: 4, C: 8}\n", false,
       "4:21: field 'layers[0].type': expected one of: conv, fc, found 'pool'"},
      {"duplicate layer names",
       "kind: workload\nname: w\nlayers:\n  - {name: f, type: fc, K: 4, C: 8}\n  - {name: f, type: fc, K: 4, "
       "C: 8}\n",
       false, "5:12: field 'layers[1].name': duplicate layer name 'f' (names must be unique)"},
      {"batch zero", "kind: workload\nname: w\nbatch: 0\nlayers:\n  - {name: f, type: fc, K: 4, C: 8}\n", false,
       "3:8: field 'batch': expected an integer in [1, 4096], found 0"},
      {"input tensor too large for int64 although its MACs fit (stride 64)",
       "kind: workload\nname: w\nlayers:\n  - {name: a, type: conv, K: 1, C: 16777216, R: 1, S: 1, X: 8388608, "
       "Y: 8388608, stride: 64, padding: 0}\n",
       false, "4:5: field 'layers[0]': layer too large: more than 4e18 input elements"},
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
      } catch (const SpecError& error) {
        message = error.what();
      }
      INFO("input:\n" << bad.text);
      CHECK(message == file.path() + ":" + bad.expected_message);
    }
  }
}

TEST_CASE("a file that does not exist is a SpecError naming it", "[spec][errors]") {
  CHECK_THROWS_WITH(load_hardware("/nonexistent/maeri.yaml"),
                    "/nonexistent/maeri.yaml: cannot open file for reading");
}
