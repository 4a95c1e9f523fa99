// NumPy's .npy and .npz files (util/npy_file.hpp): round trips of every dtype and of shapes from scalars to 4-D, the
// bytes NumPy 1.24 writes (np.save), and every refusal of the bad-input list with its message.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/unit/temp_file.hpp"
#include "tests/unit/zip_lies.hpp"
#include "util/input_error.hpp"
#include "util/npy_file.hpp"

using namespace maeri;

namespace {

// np.save's bytes for a header dict: the preamble of version 1.0, the dict padded with spaces to 64-byte alignment.
std::string numpy_file(const std::string& dict, const std::string& data, char major = 1) {
  std::string header = dict;
  const std::size_t preamble = major == 1 ? 10 : 12;
  while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY", 6) + major + '\0';
  bytes += char(header.size() & 0xff);
  bytes += char(header.size() >> 8);
  if (major != 1) bytes += std::string(2, '\0');
  return bytes + header + data;
}

std::string npy_with(const std::string& dict, const std::string& data) { return numpy_file(dict, data); }

void check_refused(const std::string& bytes, const std::string& field, const std::string& message) {
  INFO(field << ": " << message);
  try {
    util::parse_npy(bytes, "t.npy");
    FAIL("accepted");
  } catch (const util::InputError& error) {
    CHECK(error.field() == field);
    CHECK_THAT(error.what(), Catch::Contains(message));
    CHECK_THAT(error.what(), Catch::StartsWith("t.npy: field '" + field + "'"));
  }
}

}  // namespace

TEST_CASE("npy: the bytes np.save writes, read and written identically") {
  // np.save(f, np.arange(6, dtype='<i2').reshape(2, 3) - 3) with NumPy 1.24.
  const std::string int16 = numpy_file("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }",
                                       std::string("\xfd\xff\xfe\xff\xff\xff\x00\x00\x01\x00\x02\x00", 12));
  REQUIRE(int16.size() == 140);
  const util::NpyArray array = util::parse_npy(int16, "a.npy");
  CHECK(array.type == util::NpyType::Int16);
  CHECK(array.shape == std::vector<std::int64_t>{2, 3});
  CHECK(array.integers == std::vector<std::int64_t>{-3, -2, -1, 0, 1, 2});
  CHECK(util::npy_bytes(array) == int16);
  // np.array([1.5, -2.25], dtype='<f4'), np.array(7, dtype='<i8') (a scalar), np.array([200, 1], dtype='u1').
  const std::string float32 = numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                                         std::string("\x00\x00\xc0\x3f\x00\x00\x10\xc0", 8));
  CHECK(util::parse_npy(float32, "f.npy").reals == std::vector<double>{1.5, -2.25});
  CHECK(util::npy_bytes(util::parse_npy(float32, "f.npy")) == float32);
  const std::string scalar = numpy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                                        std::string("\x07\x00\x00\x00\x00\x00\x00\x00", 8));
  CHECK(util::parse_npy(scalar, "s.npy").integers == std::vector<std::int64_t>{7});
  CHECK(util::npy_bytes(util::parse_npy(scalar, "s.npy")) == scalar);
  const std::string uint8 = numpy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", "\xc8\x01");
  CHECK(util::parse_npy(uint8, "u.npy").integers == std::vector<std::int64_t>{200, 1});
  CHECK(util::npy_bytes(util::parse_npy(uint8, "u.npy")) == uint8);
}

TEST_CASE("npy: f2, u8 and bool, the dtypes --network-input takes beside the others") {
  // np.array([1, -2.5, 65504, 2**-24, 1/3, inf], dtype='<f2'): 0x3c00, 0xc100, 0x7bff, 0x0001, 0x3555, 0x7c00.
  const std::string half = numpy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (6,), }",
                                      std::string("\x00\x3c\x00\xc1\xff\x7b\x01\x00\x55\x35\x00\x7c", 12));
  const util::NpyArray halves = util::parse_npy(half, "h.npy");
  REQUIRE(halves.reals.size() == 6);
  CHECK(halves.reals[0] == 1.0);
  CHECK(halves.reals[1] == -2.5);
  CHECK(halves.reals[2] == 65504.0);
  CHECK(halves.reals[3] == std::ldexp(1.0, -24));
  CHECK(halves.reals[4] == 0.333251953125);
  CHECK(std::isinf(halves.reals[5]));
  CHECK(util::npy_bytes(halves) == half);
  // Writing rounds to the nearest half, ties to even, as astype('<f2'): 1/3 → 0x3555, 65519 → 65504, 65520 → inf,
  // 2^-25 (a tie between 0 and the smallest subnormal) → 0, 3·2^-26 → 2^-24.
  util::NpyArray rounded;
  rounded.type = util::NpyType::Float16;
  rounded.shape = {5};
  rounded.reals = {1.0 / 3, 65519.0, 65520.0, std::ldexp(1.0, -25), 3 * std::ldexp(1.0, -26)};
  const util::NpyArray back = util::parse_npy(util::npy_bytes(rounded), "r.npy");
  CHECK(back.reals[0] == 0.333251953125);
  CHECK(back.reals[1] == 65504.0);
  CHECK(std::isinf(back.reals[2]));
  CHECK(back.reals[3] == 0.0);
  CHECK(back.reals[4] == std::ldexp(1.0, -24));
  // u8 up to int64's largest value; bool as 0 and 1.
  const std::string uint64 = numpy_file("{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }",
                                        std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8));
  CHECK(util::parse_npy(uint64, "u.npy").integers == std::vector<std::int64_t>{INT64_MAX});
  const std::string boolean =
      numpy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", std::string("\x01\x00\x01", 3));
  CHECK(util::parse_npy(boolean, "b.npy").integers == std::vector<std::int64_t>{1, 0, 1});
  CHECK(util::npy_bytes(util::parse_npy(boolean, "b.npy")) == boolean);
}

TEST_CASE("npy: round trips of every dtype and shapes from a scalar to 4-D, through files") {
  test::TempDir folder;
  const std::vector<std::vector<std::int64_t>> shapes = {{}, {0}, {5}, {2, 3}, {1, 2, 3, 1}, {2, 0, 4}, {3, 2, 2, 2}};
  for (const util::NpyType type :
       {util::NpyType::Int8, util::NpyType::Int16, util::NpyType::Int32, util::NpyType::Int64, util::NpyType::UInt8,
        util::NpyType::UInt16, util::NpyType::UInt32, util::NpyType::UInt64, util::NpyType::Bool,
        util::NpyType::Float16, util::NpyType::Float32, util::NpyType::Float64}) {
    for (const auto& shape : shapes) {
      INFO(util::npy_descr(type) << " with " << shape.size() << " dimensions");
      util::NpyArray array;
      array.type = type;
      array.shape = shape;
      const std::int64_t count = array.elements();
      const int bits = int(util::npy_item_bytes(type)) * 8;
      for (std::int64_t i = 0; i < count; ++i) {
        if (!util::npy_is_integer(type)) {
          array.reals.push_back(double(i) * 0.25 - 1.5);
        } else if (type == util::NpyType::Bool) {
          array.integers.push_back(i % 2);
        } else if (type == util::NpyType::UInt64) {
          array.integers.push_back(i % 2 ? INT64_MAX : i);  // the largest value held
        } else if (type == util::NpyType::UInt8 || type == util::NpyType::UInt16 || type == util::NpyType::UInt32) {
          array.integers.push_back(i % 2 ? (std::int64_t{1} << bits) - 1 : i);  // the largest value too
        } else {
          const std::int64_t low = bits == 64 ? INT64_MIN : -(std::int64_t{1} << (bits - 1));
          array.integers.push_back(i % 2 ? low : -i);  // the smallest value too
        }
      }
      const std::string path = folder / "a.npy";
      util::write_npy_file(path, array);
      const util::NpyArray back = util::read_npy_file(path);
      CHECK(back.type == type);
      CHECK(back.shape == shape);
      CHECK(back.integers == array.integers);
      CHECK(back.reals == array.reals);
      CHECK(std::filesystem::file_size(path) % 64 == (count * util::npy_item_bytes(type)) % 64);
    }
  }
}

TEST_CASE("npy: versions 2.0 and 3.0, keys in any order, double quotes and no trailing comma are read") {
  const std::string data("\x01\x00\x00\x00\xff\xff\xff\xff", 8);
  for (const char major : {char(2), char(3)})
    CHECK(util::parse_npy(numpy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", data, major),
                          "v.npy")
              .integers == std::vector<std::int64_t>{1, -1});
  CHECK(util::parse_npy(npy_with("{\"shape\":(2,),\"fortran_order\":False,\"descr\":\"<i4\"}", data), "o.npy")
            .integers == std::vector<std::int64_t>{1, -1});
  // One-byte dtypes have no byte order: '<', '|' and '>' are the same.
  CHECK(util::parse_npy(npy_with("{'descr': '>i1', 'fortran_order': False, 'shape': (1,), }", "\xff"), "b.npy")
            .integers == std::vector<std::int64_t>{-1});
  // An unaligned header (NumPy before 1.13 aligned to 16 bytes; NumPy's reader does not check).
  std::string unaligned = std::string("\x93NUMPY\x01\x00", 8);
  const std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n";
  unaligned += char(header.size());
  unaligned += '\0';
  CHECK(util::parse_npy(unaligned + header + data, "u.npy").integers.size() == 2);
}

TEST_CASE("npy: the bad-input list — dtype, byte order, Fortran order, shape, truncated, oversized, bad header") {
  const std::string data("\x01\x00\x00\x00\x02\x00\x00\x00", 8);
  const auto with = [&](const std::string& descr, const std::string& order, const std::string& shape) {
    return npy_with("{'descr': " + descr + ", 'fortran_order': " + order + ", 'shape': " + shape + ", }", data);
  };
  check_refused(with("'>i4'", "False", "(2,)"), "descr",
                "'>i4' is big-endian; only little-endian data is read: convert it with array.astype('<i4')");
  check_refused(with("'=i4'", "False", "(2,)"), "descr", "'=i4' has the writer's native byte order");
  check_refused(with("'<c8'", "False", "(1,)"), "descr",
                "dtype '<c8' is not one of |i1, <i2, <i4, <i8, |u1, <u2, <u4, <u8, |b1, <f2, <f4, <f8");
  check_refused(npy_with("{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\xff')), "data",
                "value 18446744073709551615 at flat index 0 of <u8 is past 9223372036854775807, the largest int64");
  check_refused(with("'|b1'", "False", "(8,)"), "data", "value 2 at flat index 4 of |b1 is past 1 (a bool is 0 or 1)");
  check_refused(with("'<U1'", "False", "(2,)"), "descr", "is not one of");
  check_refused(with("[('a', '<i4')]", "False", "(2,)"), "descr", "a structured dtype");
  check_refused(with("'<i4'", "True", "(2,)"), "fortran_order", "only C order is read");
  check_refused(with("'<i4'", "0", "(2,)"), "fortran_order", "expected False or True");
  check_refused(with("'<i4'", "False", "(2)"), "shape", "(n) is an integer, not a tuple");
  check_refused(with("'<i4'", "False", "(-2,)"), "shape", "expected a non-negative integer");
  check_refused(with("'<i4'", "False", "[2]"), "shape", "expected a tuple");
  check_refused(with("'<i4'", "False", "(3,)"), "data",
                "8 bytes of data, but the shape (3,) of <i4 needs 12 (truncated)");
  check_refused(with("'<i4'", "False", "(1,)"), "data",
                "8 bytes of data, but the shape (1,) of <i4 needs 4 (oversized)");
  check_refused(with("'<i4'", "False", "(2, 99999999999)"), "shape", "needs more than kMaxNpyBytes");
  // The budget counts the values as held (8 bytes each): 2^27 + 1 one-byte values are refused from the header.
  check_refused(with("'|u1'", "False", "(134217729,)"), "shape",
                "(134217729,) of |u1 needs more than kMaxNpyBytes (1073741824 bytes) as 8-byte values in memory");
  check_refused(std::string("\x93NUMPY\x02\x00\x01\x00\x10\x00", 12) + std::string(1048577, ' '), "header",
                "the header's length 1048577 is more than kMaxNpyHeaderBytes (1048576)");
  check_refused(with("'<i4'", "False", "(99999999999999999999,)"), "shape", "a dimension is too large");
  // The header's syntax and keys.
  check_refused(npy_with("{'descr': '<i4', 'shape': (2,), }", data), "fortran_order", "no 'fortran_order' key");
  check_refused(npy_with("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data), "header",
                "unknown key 'x'");
  check_refused(npy_with("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (2,)}", data), "header",
                "the key 'descr' appears twice");
  check_refused(npy_with("{descr: '<i4'}", data), "header", "expected a quoted string");
  check_refused(npy_with("{'descr' '<i4'}", data), "header", "expected ':'");
  check_refused(npy_with("{'descr': '<i4', 'fortran_order': False, 'shape': (2,)} x", data), "header",
                "after the dict, expected spaces and one newline");
  check_refused(npy_with("{'descr': '<i4\\x'}", data), "descr", "escapes in strings are not supported");
  // The preamble.
  check_refused("PK\x03\x04 not npy", "magic", "not a .npy file: it does not start with \\x93NUMPY");
  check_refused(std::string("\x93NUMPY\x04\x00", 8) + "xx", "version", "format version 4.0 is not 1.0, 2.0 or 3.0");
  check_refused(std::string("\x93NUMPY\x01\x00\xff\x00{", 11), "header",
                "the header's length 255 runs past the end of the file (11 bytes)");
  check_refused(std::string("\x93NUMPY\x02\x00\x01", 9), "header", "the file ends within the header's length");
}

TEST_CASE("npy files: unreadable paths, devices and refused writes leave nothing behind") {
  test::TempDir folder;
  CHECK_THROWS_WITH(util::read_npy_file(folder.path()), Catch::Contains("is a directory (expected a .npy file)"));
  CHECK_THROWS_WITH(util::read_npy_file("/dev/zero"), Catch::Contains("not a regular file (expected a .npy file)"));
  CHECK_THROWS_AS(util::write_npy_file(folder / "missing/x.npy", util::integer_array(util::NpyType::Int8, {1}, {1})),
                  util::InputError);
  CHECK_THROWS_AS(util::integer_array(util::NpyType::Int8, {1}, {128}), std::invalid_argument);
  CHECK_THROWS_AS(util::integer_array(util::NpyType::Int8, {2}, {1}), std::invalid_argument);
  CHECK(std::filesystem::is_empty(folder.path()));
}

TEST_CASE("npz: members by name, stored or deflated, and the refusals") {
  test::TempDir folder;
  const util::NpyArray weights = util::integer_array(util::NpyType::Int16, {2, 1, 1, 2}, {1, -2, 3, -4});
  const util::NpyArray input = util::integer_array(util::NpyType::Int8, {1, 1, 2, 2}, {5, 6, 7, -8});
  const std::string path = folder / "t.npz";
  util::write_npz_file(path, {{"conv1.weight", weights}, {"input", input}});
  CHECK(util::npz_member_names(path) == std::vector<std::string>{"conv1.weight", "input"});
  CHECK(util::read_npz_member(path, "conv1.weight").integers == weights.integers);
  CHECK(util::read_npz_member(path, "input.npy").shape == input.shape);  // the member's own name works too
  // One archive read once, its members on demand (a network's weights in one file).
  const util::NpzArchive opened(path);
  CHECK(opened.member("input").integers == input.integers);
  CHECK(opened.member("conv1.weight").type == util::NpyType::Int16);
  // The same arrays make the same bytes (a fixed date), so outputs can be compared byte for byte.
  util::write_npz_file(folder / "u.npz", {{"conv1.weight", weights}, {"input", input}});
  CHECK(std::filesystem::file_size(path) == std::filesystem::file_size(folder / "u.npz"));

  CHECK_THROWS_WITH(util::read_npz_member(path, "conv2.weight"),
                    path + ": field 'member': no member 'conv2.weight' (the archive has: conv1.weight, input)");
  test::TempFile not_zip("not a zip archive", ".npz");
  CHECK_THROWS_WITH(util::read_npz_member(not_zip.path(), "x"), Catch::Contains(": not a .npz (zip) archive: "));
  // A member that is not a valid .npy file is named as FILE:member, with the field.
  std::string truncated = util::npy_bytes(input);
  truncated.pop_back();
  test::TempFile bad_member(util::npz_archive_bytes({{"input.npy", truncated}}), ".npz");
  CHECK_THROWS_WITH(util::read_npz_member(bad_member.path(), "input"),
                    bad_member.path() + ":input: field 'data': 3 bytes of data (its directory entry says 131 "
                                        "bytes), but the shape (1, 1, 2, 2) of |i1 needs 4 (truncated)");
  // An archive whose stored bytes were changed after it was written: the checksum catches it.
  std::string archive = util::npz_archive_bytes({{"input.npy", util::npy_bytes(input)}});
  archive[archive.find("\x05\x06\x07")] = '\x04';
  test::TempFile corrupt(archive, ".npz");
  CHECK_THROWS_WITH(util::read_npz_member(corrupt.path(), "input"), Catch::Contains(":input: field 'member': "));
}

TEST_CASE("npz: memory bounded by the header — the shape checked before a byte of data is inflated") {
  test::TempDir folder;
  const auto archive = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(folder / name, std::ios::binary) << bytes;
    return folder / name;
  };
  // 64 MiB of one-byte values deflate to 64 KiB; as a layer's (1, 3, 10, 10) they are refused from the header, and
  // the data is never reached: its checksum is broken, which reading it would report instead.
  const std::size_t count = std::size_t{64} << 20;
  const std::string big = npy_with("{'descr': '|u1', 'fortran_order': False, 'shape': (67108864,), }",
                             std::string(count, '\0'));
  std::string bomb = util::npz_archive_bytes({{"image.npy", big}}, true);
  bomb[bomb.find(std::string("PK\x03\x04", 4)) + 14] ^= 1;  // the CRC-32, in the local header
  bomb[bomb.find(std::string("PK\x01\x02", 4)) + 16] ^= 1;  // and in the central directory
  const std::string bomb_path = archive("bomb.npz", bomb);
  CHECK(std::filesystem::file_size(bomb_path) < count / 512);
  const util::NpyExpectation layer{{1, 3, 10, 10}, "the layer"};
  CHECK_THROWS_WITH(util::NpzArchive(bomb_path).member("image", layer),
                    bomb_path + ":image: field 'shape': (67108864,), but the layer needs (1, 3, 10, 10)");
  CHECK_THROWS_WITH(util::NpzArchive(bomb_path).member("image"), Catch::Contains("field 'member': cannot read"));

  // A member whose directory entry declares more or fewer bytes than it inflates to, or than its header promises.
  const std::string good = util::npy_bytes(util::integer_array(util::NpyType::Int16, {1, 3}, {1, 2, 3}));
  const std::string deflated = util::npz_archive_bytes({{"x.npy", good}}, true);
  const std::uint32_t size = std::uint32_t(good.size());
  const std::string more = archive("more.npz", test::with_declared_size(deflated, size + 2));
  CHECK_THROWS_WITH(util::read_npz_member(more, "x"),
                    more + ":x: field 'data': 8 bytes of data (its directory entry says 136 bytes), but the shape "
                           "(1, 3) of <i2 needs 6 (oversized)");
  const std::string less = archive("less.npz", test::with_declared_size(deflated, size - 2));
  CHECK_THROWS_WITH(util::read_npz_member(less, "x"), Catch::Contains("needs 6 (truncated)"));
  // Header and directory agree, the deflated data does not: it inflates to two bytes more, or two fewer.
  const std::string longer = archive(
      "longer.npz", test::with_declared_size(util::npz_archive_bytes({{"x.npy", good + "\x04\x00"}}, true), size));
  CHECK_THROWS_WITH(util::read_npz_member(longer, "x"), Catch::Contains(":x: field 'member': "));
  const std::string shorter = archive(
      "shorter.npz",
      test::with_declared_size(util::npz_archive_bytes({{"x.npy", good.substr(0, good.size() - 2)}}, true), size));
  CHECK_THROWS_WITH(util::read_npz_member(shorter, "x"),
                    shorter + ":x: field 'member': the member has 132 bytes, its directory entry says 134");
}

TEST_CASE("npz: an empty file, two members of one name, a long member name") {
  test::TempDir folder;
  std::ofstream(folder / "empty.npz").close();
  CHECK_THROWS_WITH(util::NpzArchive(folder / "empty.npz"),
                    folder / "empty.npz" + ": the file is empty (0 bytes): not a .npz (zip) archive");
  // Two members of one name: libzip's own words were "File already exists".
  const std::string member = util::npy_bytes(util::integer_array(util::NpyType::Int8, {1}, {1}));
  std::string twice = util::npz_archive_bytes({{"a.npy", member}, {"b.npy", member}});
  for (std::size_t at = twice.find("b.npy"); at != std::string::npos; at = twice.find("b.npy", at)) twice[at] = 'a';
  std::ofstream(folder / "twice.npz", std::ios::binary) << twice;
  CHECK_THROWS_WITH(util::NpzArchive(folder / "twice.npz"),
                    folder / "twice.npz" + ": field 'member': two members are named 'a.npy': which one is meant is "
                                           "ambiguous; write the archive again with each name once");
  // A member's name in a message is cut (docs/cli.md), wherever the message names it.
  const std::string long_name(60000, 'm');
  util::write_npz_file(folder / "long.npz", {{long_name, util::integer_array(util::NpyType::Int8, {2}, {1, 2})}});
  try {
    util::NpzArchive(folder / "long.npz").member(long_name, util::NpyExpectation{{3}, "the layer"});
    FAIL("accepted");
  } catch (const util::InputError& error) {
    CHECK(std::string(error.what()).size() < 300);
    CHECK_THAT(error.what(), Catch::Contains("m… (60000 bytes): field 'shape': (2,), but the layer needs (3,)"));
  }
}

TEST_CASE("tensor sources: FILE.npy, FILE.npz and FILE.npz:MEMBER") {
  CHECK(util::tensor_source("a/b.npy").path == "a/b.npy");
  CHECK_FALSE(util::tensor_source("a/b.npy").archive);
  const util::TensorSource member = util::tensor_source("w.npz:layer3.0.conv1");
  CHECK(member.path == "w.npz");
  CHECK(member.member == "layer3.0.conv1");
  CHECK(member.archive);
  CHECK(util::tensor_source_name(member) == "w.npz:layer3.0.conv1");
  CHECK(util::tensor_source("w.npz").archive);
  CHECK(util::tensor_source("w.npz").member.empty());
  CHECK(util::tensor_source("c:/x.npy").path == "c:/x.npy");
}
