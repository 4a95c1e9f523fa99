// The bounded reader under every loader of a user's file (util/input_file.hpp), the way values and names from
// input files appear in messages and file names, and the strict optimum cache reader (flow/optimum_cache).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "flow/optimum_cache.hpp"
#include "tests/unit/temp_file.hpp"
#include "util/file_names.hpp"
#include "util/input_error.hpp"
#include "util/decimal_number.hpp"
#include "util/input_file.hpp"

using namespace maeri;

namespace {

const util::InputFileRules kTenBytes{"a test file", 10, "kTenBytes"};

}  // namespace

TEST_CASE("input files: whole files up to the limit, and every refusal named") {
  test::TempFile exact("0123456789", ".txt");
  CHECK(util::read_input_file(exact.path(), kTenBytes) == "0123456789");
  test::TempFile over("0123456789!", ".txt");
  CHECK_THROWS_WITH(util::read_input_file(over.path(), kTenBytes),
                    over.path() + ": file larger than the limit of 10 bytes (kTenBytes, docs/cli.md: Limits)");
  // A device never ends: reading stops one byte past the limit.
  CHECK_THROWS_WITH(util::read_input_file("/dev/zero", kTenBytes), Catch::Contains("file larger than the limit of 10"));
  util::InputFileRules regular = kTenBytes;
  regular.regular_files_only = true;
  CHECK_THROWS_WITH(util::read_input_file("/dev/zero", regular),
                    "/dev/zero: is a character device, not a regular file (expected a test file)");
  test::TempDir folder;
  CHECK_THROWS_WITH(util::read_input_file(folder.path(), kTenBytes),
                    folder.path() + ": is a directory (expected a test file)");
  CHECK_THROWS_WITH(util::read_input_file(folder / "missing", kTenBytes),
                    folder / "missing" + ": cannot open file for reading: No such file or directory");
  // A FIFO nobody writes to: refused (regular files only) or read as empty, never waited on.
  const std::string fifo = folder / "fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(util::read_input_file(fifo, regular), Catch::Contains("is a FIFO (named pipe), not a regular file"));
  CHECK(util::read_input_file(fifo, kTenBytes).empty());
}

TEST_CASE("input files: CR-only line endings are named; CR LF and LF are not") {
  CHECK_THROWS_WITH(util::refuse_cr_only_line_endings("a: 1\rb: 2\r", "f.yaml"),
                    "f.yaml: lines end in CR alone (classic Mac OS line endings); save the file with LF or CR LF "
                    "line endings");
  CHECK_NOTHROW(util::refuse_cr_only_line_endings("a: 1\r\nb: 2\r\n", "f.yaml"));
  CHECK_NOTHROW(util::refuse_cr_only_line_endings("a: 1\nb: 2\n", "f.yaml"));
}

TEST_CASE("input files: values in messages are escaped and shortened, NUL bytes never end a message") {
  CHECK(util::shown_value("conv1") == "conv1");
  CHECK(util::shown_value(std::string("a\0b\r\n", 5)) == "a\\x00b\\x0d\\x0a");
  const std::string long_value(5000, 'a');
  CHECK(util::shown_value(long_value) == std::string(util::kMaxShownValueBytes, 'a') + "… (5000 bytes)");
  // Never cut inside a UTF-8 character: "é" is two bytes, the 80th and 81st.
  const std::string accented = std::string(79, 'a') + "é" + "z";
  CHECK(util::shown_value(accented) == std::string(79, 'a') + "… (82 bytes)");
  // Bytes that are not UTF-8 are escaped (Latin-1 "é", a lone continuation byte, a truncated character); UTF-8 is
  // kept; the cut counts the value's bytes, an escape as the one byte it shows.
  CHECK(util::shown_value("caf\xe9 \x80 \xe2\x82 \xe2\x82\xac") == "caf\\xe9 \\x80 \\xe2\\x82 \xe2\x82\xac");
  CHECK(util::shown_value(std::string(100, '\xff')) == [] {
    std::string escaped;
    for (int i = 0; i < 80; ++i) escaped += "\\xff";
    return escaped + "… (100 bytes)";
  }());
  const util::InputError error({"w.yaml", 3, 9}, "name", std::string("has no layer 'x\0y'", 18));
  CHECK(std::string(error.what()) == "w.yaml:3:9: field 'name': has no layer 'x\\x00y'");
}

TEST_CASE("file names: names from inputs never leave the output folder") {
  CHECK(util::safe_file_stem("../../evil") == "_._.._evil");
  CHECK(util::safe_file_stem("/tmp/abs") == "_tmp_abs");
  CHECK(util::safe_file_stem(std::string("a\0b", 3)) == "a_b");
  CHECK(util::safe_file_stem("a\tb\x7f") == "a_b_");
  CHECK(util::safe_file_stem(std::string(300, 'n')).size() == 100);
  CHECK(util::safe_file_stem("") == "_");
}

TEST_CASE("optimum cache: rows read strictly, each bad row named by line and field") {
  const auto entries = flow::parse_optimum_cache(
      "key,optimum,exhaustive\r\nmaeri,64/64MS/x/edp,1.5e3,1\r\n\r\nk2,2,0\n", "c.csv");
  REQUIRE(entries.size() == 2);
  CHECK(entries.at("maeri,64/64MS/x/edp").optimum == 1500);
  CHECK(entries.at("maeri,64/64MS/x/edp").exhaustive);
  CHECK_FALSE(entries.at("k2").exhaustive);
  struct Case {
    const char* row;
    const char* message;
  };
  for (const Case& bad : {
           Case{"x,y,1", "c.csv:2:3: field 'optimum': expected a positive, finite number (the objective's optimum), found 'y'"},
           Case{"k,1e999,1", "found '1e999'"},
           Case{"k,,1", "found ''"},
           Case{"k,nan,1", "found 'nan'"},
           Case{"k,-1,1", "found '-1'"},
           Case{"k,1,yes", "c.csv:2:5: field 'exhaustive': expected 0 or 1, found 'yes'"},
           Case{"k5", "c.csv:2:1: expected a row 'key,optimum,exhaustive'"},
           Case{",1,1", "c.csv:2:1: expected a row"},
       }) {
    INFO(bad.row);
    CHECK_THROWS_WITH(flow::parse_optimum_cache(std::string("key,optimum,exhaustive\n") + bad.row + "\n", "c.csv"),
                      Catch::Contains(bad.message));
  }
  // A key twice with other values is ambiguous (the same row twice is harmless); a UTF-8 byte order mark is skipped
  // (it made the header a row: "found 'exhaustive'").
  CHECK_THROWS_WITH(flow::parse_optimum_cache("key,optimum,exhaustive\nk,2,1\nk,3,1\n", "c.csv"),
                    "c.csv:3:1: field 'key': the key of line 2 again, with another optimum or exhaustive flag: which "
                    "one holds is ambiguous; remove one of the rows");
  CHECK(flow::parse_optimum_cache("key,optimum,exhaustive\nk,2,1\nk,2,1\n", "c.csv").size() == 1);
  CHECK(flow::parse_optimum_cache("\xEF\xBB\xBFkey,optimum,exhaustive\nk,2,1\n", "c.csv").at("k").optimum == 2);
  CHECK_THROWS_WITH(flow::parse_optimum_cache("key,optimum,exhaustive\rk,1,1\r", "c.csv"),
                    Catch::Contains("c.csv: lines end in CR alone"));
  test::TempDir folder;
  CHECK_THROWS_WITH(flow::OptimumCache(folder.path()), Catch::Contains("is a directory (expected an optimum cache"));
  CHECK_NOTHROW(flow::OptimumCache(folder / "not-yet.csv"));  // created by the first add
  // An optimum below the layer's algorithmic minimum (1 cycle, 1e-300: ratios of 10^8 before) is refused when used.
  std::ofstream(folder / "low.csv") << "key,optimum,exhaustive\nk,1e-300,1\nm,50,1\n";
  const flow::OptimumCache low(folder / "low.csv");
  CHECK_THROWS_WITH(low.find("k", 40), Catch::StartsWith(folder / "low.csv" + ":2:1: field 'optimum': 1") &&
                                           Catch::Contains("e-300 is below the algorithmic minimum 40 of the layer of "
                                                           "key 'k'"));
  CHECK(low.find("m", 50)->optimum == 50);  // equal to the minimum: a perfect mapping
  CHECK(low.find("n", 50) == nullptr);
}

TEST_CASE("decimal numbers: one spelling for every reader, finite values only") {
  using maeri::util::decimal_number;
  // Values a person writes, and what C++ reads them as.
  CHECK(decimal_number("16") == 16.0);
  CHECK(decimal_number("-0.25") == -0.25);
  CHECK(decimal_number("1e4") == 1e4);
  CHECK(decimal_number("5e-324") == 5e-324);  // the smallest subnormal
  CHECK(decimal_number("1e-400") == 0.0);     // underflow: the nearest double, as strtod gives
  // strtod accepts each of these; a config value must not change meaning with the reader.
  for (const char* refused : {"", "0x10", "+1", " 1", "1 ", "inf", "-inf", "nan", "infinity", "1e400", "1,5", "1.5.5"})
    CHECK_FALSE(decimal_number(refused));
}
