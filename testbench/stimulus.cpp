// Tensor files and NumPy tensors (see stimulus.hpp).
#include "testbench/stimulus.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "contracts/network.hpp"
#include "util/input_error.hpp"

namespace maeri::testbench {
namespace {

// A word as it may be shown in a message: bytes outside printable ASCII as \xNN.
std::string printable(const std::string& word) {
  std::string text;
  for (const char c : word) {
    const unsigned char byte = static_cast<unsigned char>(c);
    text += byte >= 0x20 && byte < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", byte);
  }
  return text;
}

// The bytes a tensor file of `count` values may have: at least a digit and a separator per value, at most
// kTensorFileBytesPerValue per value plus kTensorFileSlackBytes of comments.
struct TensorFileBounds {
  std::int64_t min_bytes = 0, max_bytes = 0;
  std::string text;  // the rule, for messages
};

TensorFileBounds tensor_file_bounds(std::size_t expected_count) {
  const std::int64_t count = std::int64_t(expected_count);
  TensorFileBounds bounds;
  bounds.min_bytes = count == 0 ? 0 : 2 * count - 1;
  bounds.max_bytes = kTensorFileSlackBytes + kTensorFileBytesPerValue * count;
  bounds.text = fmt::format("{} values for the layer need {}..{} bytes (at least a digit and a separator per value; at "
                            "most {} bytes per value plus {} bytes of comments)",
                            count, bounds.min_bytes, bounds.max_bytes, kTensorFileBytesPerValue,
                            kTensorFileSlackBytes);
  return bounds;
}

// The file opened, a directory and a regular file outside the bounds refused before a byte is read.
std::ifstream open_tensor_file(const std::string& path, const std::string& what, const TensorFileBounds& bounds) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw util::InputError({path, 0, 0}, what, "is a directory (expected a tensor file)");
  if (std::filesystem::is_regular_file(path, error)) {
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (!error && (std::int64_t(size) < bounds.min_bytes || size > std::uintmax_t(bounds.max_bytes)))
      throw util::InputError({path, 0, 0}, what, fmt::format("the file has {} bytes, but {}", size, bounds.text));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw util::InputError({path, 0, 0}, what, "cannot open the tensor file");
  return in;
}

// The values of a tensor file, word by word: each word an integer of data_width signed bits, no more than expected.
struct TensorWords {
  const std::string& path;
  const std::string& what;
  std::size_t expected_count;
  int data_width;
  std::vector<std::int64_t> values;
  std::string word;  // the word being read, which started at word_line, word_column
  int word_line = 0, word_column = 0;

  void add(char c, int line, int column) {
    if (word.empty()) word_line = line, word_column = column;
    word += c;
    if (word.size() > kTensorFileMaxWordLength)
      throw util::InputError({path, word_line, word_column}, what,
                             "expected an integer, found '" + printable(word) + "…'");
  }

  void finish_word() {
    if (word.empty()) return;
    const std::int64_t half = std::int64_t(1) << (data_width - 1);
    std::size_t used = 0;
    std::int64_t value = 0;
    try {
      value = std::stoll(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size())
      throw util::InputError({path, word_line, word_column}, what,
                             "expected an integer, found '" + printable(word) + "'");
    if (value < -half || value >= half)
      throw util::InputError({path, word_line, word_column}, what,
                             fmt::format("{} does not fit {} signed bits ({} … {})", value, data_width, -half,
                                         half - 1));
    if (values.size() == expected_count)
      throw util::InputError({path, word_line, word_column}, what,
                             fmt::format("expected {} values for the layer, found more", expected_count));
    values.push_back(value);
    word.clear();
  }
};

}  // namespace

std::vector<std::int64_t> read_tensor_file(const std::string& path, std::size_t expected_count, int data_width,
                                           const std::string& what) {
  const TensorFileBounds bounds = tensor_file_bounds(expected_count);
  std::ifstream in = open_tensor_file(path, what, bounds);
  TensorWords words{path, what, expected_count, data_width, {}, {}};
  words.values.reserve(expected_count);
  int line = 1, column = 1;
  bool in_comment = false;
  // Character by character, so that neither a long line nor a pipe longer than any tensor file is held whole.
  std::int64_t consumed = 0;
  for (std::istreambuf_iterator<char> next(in), end; next != end; ++next) {
    const char c = *next;
    if (++consumed > bounds.max_bytes)
      throw util::InputError({path, line, column}, what,
                             fmt::format("the file has more than {} bytes, but {}", bounds.max_bytes, bounds.text));
    if (c == '\n') {
      words.finish_word();
      in_comment = false;
      ++line;
      column = 1;
      continue;
    }
    if (!in_comment) {
      if (c == '#') {
        words.finish_word();
        in_comment = true;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
        words.finish_word();
      } else {
        words.add(c, line, column);
      }
    }
    ++column;
  }
  words.finish_word();
  if (words.values.size() != expected_count)
    throw util::InputError({path, 0, 0}, what,
                           fmt::format("expected {} values for the layer, found {}", expected_count,
                                       words.values.size()));
  return std::move(words.values);
}

std::string tensor_text(const std::vector<std::int64_t>& values, const std::string& header) {
  std::string text = "# " + header + "\n";
  for (std::size_t i = 0; i < values.size(); ++i) text += fmt::format("{}{}", values[i], (i + 1) % 16 ? " " : "\n");
  if (values.size() % 16) text += "\n";
  return text;
}

std::vector<std::int64_t> read_npy_tensor(const std::string& source, const std::vector<std::int64_t>& shape, int bits,
                                          const std::string& default_member) {
  util::TensorSource where = util::tensor_source(source);
  util::NpyArray array;
  if (where.archive) {
    const util::NpzArchive archive(where.path);
    if (where.member.empty()) {
      const std::vector<std::string> members = archive.member_names();
      where.member = members.size() == 1 ? members.front() : default_member;
    }
    array = archive.member(where.member, util::NpyExpectation{shape, "the layer"});
  } else {
    array = util::read_npy_file(where.path, util::NpyExpectation{shape, "the layer"});
  }
  const std::string name = util::tensor_source_name(where);
  if (!util::npy_is_integer(array.type))
    throw util::InputError({name, 0, 0}, "descr",
                           fmt::format("{} holds floats; the fabric takes integers: quantize the tensor first "
                                       "(docs/quantization.md)", util::npy_descr(array.type)));
  const std::int64_t half = std::int64_t(1) << (bits - 1);
  for (std::size_t i = 0; i < array.integers.size(); ++i)
    if (array.integers[i] < -half || array.integers[i] >= half)
      throw util::InputError({name, 0, 0}, "data",
                             fmt::format("value {} at flat index {} does not fit {} signed bits ({} … {})",
                                         array.integers[i], i, bits, -half, half - 1));
  return array.integers;
}

util::NpyArray output_array(const contracts::Layer& layer, const std::vector<std::int64_t>& output, int acc_width) {
  return util::integer_array(util::smallest_signed_type(acc_width), contracts::output_shape(layer), output);
}

}  // namespace maeri::testbench
