// Whole-network files: SHA-256 against the FIPS 180-2 examples, safe and unique file names from layer names, the
// progress bar's line and ETA, and the network manifest's round trip and positioned errors.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "codegen/network_manifest.hpp"
#include "util/file_names.hpp"
#include "util/progress_bar.hpp"
#include "util/sha256.hpp"
#include "util/input_error.hpp"
#include "tests/unit/temp_file.hpp"

using namespace maeri;

TEST_CASE("SHA-256 of the FIPS 180-2 example messages", "[spec][sha256]") {
  // FIPS 180-2, appendix B.1, B.2 and B.3; the empty string from NIST's SHA examples.
  CHECK(maeri::util::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(maeri::util::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(maeri::util::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  maeri::util::Sha256 million;
  const std::string block(1000, 'a');
  for (int i = 0; i < 1000; ++i) million.update(block);
  CHECK(million.hex_digest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Padding boundaries: 55 bytes fit one block with the length, 56 need a second (same digest in any split).
  for (const std::size_t size : {55, 56, 63, 64, 65}) {
    const std::string message(size, 'x');
    maeri::util::Sha256 split;
    split.update(message.substr(0, 7));
    split.update(message.substr(7));
    CHECK(split.hex_digest() == maeri::util::sha256_hex(message));
  }
}

TEST_CASE("layer names become safe, unique file names", "[spec][file_names]") {
  CHECK(maeri::util::safe_file_stem("conv1_1") == "conv1_1");
  CHECK(maeri::util::safe_file_stem("inception_3a/5x5_reduce") == "inception_3a_5x5_reduce");
  CHECK(maeri::util::safe_file_stem("../x") == "_._x");
  CHECK(maeri::util::safe_file_stem("..") == "_.");
  CHECK(maeri::util::safe_file_stem(".hidden") == "_hidden");
  CHECK(maeri::util::safe_file_stem("") == "_");
  CHECK(maeri::util::safe_file_stem("a b\\c\xc3\xa9") == "a_b_c__");
  CHECK(maeri::util::safe_file_stem(std::string(300, 'k')).size() == 100);
  CHECK(maeri::util::unique_file_stems({"a/b", "a_b", "A_B", "conv", "a b"}) ==
        std::vector<std::string>{"a_b", "a_b-2", "A_B-3", "conv", "a_b-4"});
  // --outputs writes x.npy, x.real.npy and x.float.npy per tensor: tensors "r" and "r.real" both wrote r.real.npy
  // (issue 43, item 7); "R.REAL" collides too on a case-folding file system.
  CHECK(maeri::util::unique_file_stems({"r", "r.real", "R.REAL", "r.float", "s"}, {"", ".real", ".float"}) ==
        std::vector<std::string>{"r", "r.real-2", "R.REAL-3", "r.float-2", "s"});
}

TEST_CASE("progress line: bar, counts, elapsed time and linear ETA", "[spec][progress]") {
  // 5 of 10 done in 3 s: the other 5 take 3 s more.
  CHECK(maeri::util::progress_line("verify", 5, 10, 3.0, "conv1", 10) ==
        "verify [#####.....] 5/10 50% 3.0 s, ETA 3.0 s  conv1");
  CHECK(maeri::util::progress_line("x", 0, 4, 1.0, "", 4) == "x [....] 0/4 0% 1.0 s, ETA ?");
  // 1 of 4 in 100 s: 300 s more = 5m00s.
  CHECK(maeri::util::progress_line("x", 1, 4, 100.0, "", 4) == "x [#...] 1/4 25% 1m40s, ETA 5m00s");
  CHECK(maeri::util::progress_line("x", 4, 4, 7200.0, "", 4) == "x [####] 4/4 100% 2h00m, ETA 0.0 s");
}

TEST_CASE("progress bar draws nothing when disabled (stderr not a terminal)", "[spec][progress]") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out);
  {
    maeri::util::ProgressBar bar("quiet", 3, false, out);
    for (int i = 0; i < 3; ++i) bar.advance();
    CHECK_FALSE(bar.drew());
  }
  CHECK(std::ftell(out) == 0);
  std::fclose(out);
}

TEST_CASE("network manifest: round trip and positioned errors", "[codegen][manifest]") {
  codegen::NetworkManifest manifest;
  manifest.network = "tiny";
  manifest.hardware = {"maeri-64", 64, 16, 16, 16, 32};
  manifest.layers.push_back({1, "conv1", "tiny.conv1.mimg", std::string(64, 'a'), 607, "3,3,3,2,1,1,1", 663.5});
  manifest.layers.push_back({2, "fc", "tiny.fc.mimg", std::string(64, '0'), 604, "1,1,16,2,1,1,1", 582});
  test::TempDir dir;
  {
    std::ofstream(dir / "m.json") << codegen::manifest_json(manifest);
  }
  const codegen::NetworkManifest loaded = codegen::load_manifest(dir / "m.json");
  CHECK(loaded.network == "tiny");
  CHECK(loaded.hardware == manifest.hardware);
  REQUIRE(loaded.layers.size() == 2);
  CHECK(loaded.layers[1].name == "fc");
  CHECK(loaded.layers[1].sha256 == std::string(64, '0'));
  CHECK(loaded.layers[0].predicted_cycles == 663.5);
  CHECK(codegen::manifest_image_path(dir / "m.json", loaded.layers[0]) == dir / "tiny.conv1.mimg");

  const auto error_of = [&](const std::string& text) {
    std::ofstream(dir / "bad.json") << text;
    try {
      codegen::load_manifest(dir / "bad.json");
    } catch (const maeri::util::InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  std::string text = codegen::manifest_json(manifest);
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string copy = text;
    copy.replace(copy.find(from), from.size(), to);
    return copy;
  };
  CHECK_THAT(error_of("[1,2]"), Catch::Contains("expected a JSON object"));
  CHECK_THAT(error_of("{"), Catch::Contains("not JSON"));
  CHECK_THAT(error_of(replaced("\"tiny.conv1.mimg\"", "\"../x.mimg\"")),
             Catch::Contains("layers[0].file") && Catch::Contains("plain file name"));
  CHECK_THAT(error_of(replaced(std::string(64, 'a'), "abc")), Catch::Contains("layers[0].sha256"));
  CHECK_THAT(error_of(replaced("\"version\": 1", "\"version\": 3")), Catch::Contains("field 'version'"));
  CHECK_THAT(error_of(replaced("\"num_ms\": 64", "\"num_ms\": -1")), Catch::Contains("hardware.num_ms"));
  CHECK_THAT(error_of(replaced("\"order\": 2", "\"order\": \"2\"")), Catch::Contains("layers[1].order"));
  // Found by the fuzzer: numbers beyond a double's range are nlohmann's out_of_range, not a parse_error.
  CHECK_THAT(error_of(replaced("\"num_ms\": 64", "\"num_ms\": 62e33617186732")), Catch::Contains("not JSON"));
  CHECK_THAT(error_of(replaced("663.5", "1e999")), Catch::Contains("not JSON"));
  CHECK_THAT(error_of(replaced("663.5", "-1")), Catch::Contains("layers[0].predicted_cycles"));
  // Issue 34: fields the writer never writes, a tile that is not one, two entries for one layer, a swapped order.
  CHECK_THAT(error_of(replaced("\"3,3,3,2,1,1,1\"", "\"fast\"")),
             Catch::Contains("field 'layers[0].tile': expected seven comma-separated integers") &&
                 Catch::Contains("found 'fast'"));
  CHECK_THAT(error_of(replaced("\"network\": \"tiny\"", "\"network\": \"tiny\", \"extra\": 1")),
             Catch::Contains("field 'extra': unknown field (expected format, hardware, layers, network, version)"));
  CHECK_THAT(error_of(replaced("\"rn_bw\": 16", "\"rn_bw\": 16, \"rn_bandwidth\": 8")),
             Catch::Contains("field 'hardware.rn_bandwidth': unknown field"));
  CHECK_THAT(error_of(replaced("\"order\": 2", "\"order\": 2, \"phase\": 1")),
             Catch::Contains("field 'layers[1].phase': unknown field"));
  CHECK_THAT(error_of(replaced("\"name\": \"fc\"", "\"name\": \"conv1\"")),
             Catch::Contains("field 'layers[1].name': a second layer named 'conv1'"));
  CHECK_THAT(error_of(replaced("\"tiny.fc.mimg\"", "\"tiny.conv1.mimg\"")),
             Catch::Contains("field 'layers[1].file': a second layer with the image 'tiny.conv1.mimg'"));
  std::string swapped = text;  // orders 2, 1
  swapped.replace(swapped.find("\"order\": 1"), 10, "\"order\": 0");
  swapped.replace(swapped.find("\"order\": 2"), 10, "\"order\": 1");
  swapped.replace(swapped.find("\"order\": 0"), 10, "\"order\": 2");
  CHECK_THAT(error_of(swapped),
             Catch::Contains("field 'layers[0].order': expected 1 (codegen lists the layers in the network's order), "
                             "found 2"));
}
