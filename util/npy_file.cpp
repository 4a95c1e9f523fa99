// The .npy reader and writer and the .npz archives (see npy_file.hpp; the format: NumPy's NEP 1,
// numpy/lib/format.py).
#include "util/npy_file.hpp"

#include <fmt/format.h>
#include <zip.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <stdexcept>

#include "util/atomic_file.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"
#include "util/memory_budget.hpp"

namespace maeri::util {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicBytes = 6;
constexpr std::size_t kAlignment = 64;

enum class Kind { Signed, Unsigned, Float, Bool };
struct DtypeEntry {
  NpyType type;
  const char* name;  // without the byte-order character
  std::size_t bytes;
  Kind kind;
};
constexpr DtypeEntry kDtypes[] = {
    {NpyType::Int8, "i1", 1, Kind::Signed},     {NpyType::Int16, "i2", 2, Kind::Signed},
    {NpyType::Int32, "i4", 4, Kind::Signed},    {NpyType::Int64, "i8", 8, Kind::Signed},
    {NpyType::UInt8, "u1", 1, Kind::Unsigned},  {NpyType::UInt16, "u2", 2, Kind::Unsigned},
    {NpyType::UInt32, "u4", 4, Kind::Unsigned}, {NpyType::UInt64, "u8", 8, Kind::Unsigned},
    {NpyType::Bool, "b1", 1, Kind::Bool},       {NpyType::Float16, "f2", 2, Kind::Float},
    {NpyType::Float32, "f4", 4, Kind::Float},   {NpyType::Float64, "f8", 8, Kind::Float},
};

// Values are held as int64 or double, 8 bytes each whatever the dtype: the array's size in memory.
constexpr std::size_t kHeldValueBytes = 8;
// A chunk of a member's data inflated and converted at a time.
constexpr std::size_t kDataChunkBytes = std::size_t{1} << 20;
// The members a message lists when the one asked for is not there.
constexpr std::size_t kMembersListed = 16;

const DtypeEntry& entry_of(NpyType type) {
  for (const DtypeEntry& entry : kDtypes)
    if (entry.type == type) return entry;
  throw std::invalid_argument("npy: unknown dtype");
}

std::string accepted_dtypes() {
  std::string list;
  for (const DtypeEntry& entry : kDtypes) list += (list.empty() ? "" : ", ") + npy_descr(entry.type);
  return list;
}

// The integer range of an integer dtype.
std::pair<std::int64_t, std::int64_t> range_of(const DtypeEntry& entry) {
  if (entry.kind == Kind::Bool) return {0, 1};
  if (entry.bytes == 8)
    return {entry.kind == Kind::Signed ? std::numeric_limits<std::int64_t>::min() : 0,
            std::numeric_limits<std::int64_t>::max()};
  const int bits = int(entry.bytes) * 8;
  if (entry.kind == Kind::Signed) return {-(std::int64_t{1} << (bits - 1)), (std::int64_t{1} << (bits - 1)) - 1};
  return {0, (std::int64_t{1} << bits) - 1};
}

// IEEE 754 binary16 ↔ double (exact one way; round to nearest even the other, as NumPy's astype('<f2')).
double half_to_double(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
  const double sign = bits & 0x8000 ? -1.0 : 1.0;
  if (exponent == 0x1f)
    return fraction ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0) return sign * std::ldexp(fraction, -24);
  return sign * std::ldexp(fraction + 1024, exponent - 25);
}
std::uint16_t double_to_half(double value) {
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return sign | 0x7e00;
  const double magnitude = std::fabs(value);
  if (magnitude == 0) return sign;
  if (magnitude >= 65520.0) return sign | 0x7c00;  // rounds past the largest half, 65504: infinity
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = m·2^exponent, m in [0.5, 1)
  // The half's unit in the last place: 2^(exponent − 11) for normals, 2^−24 for subnormals.
  const int ulp = std::max(exponent - 11, -24);
  const double units = std::nearbyint(std::ldexp(magnitude, -ulp));  // round to nearest even (default mode)
  std::uint32_t steps = std::uint32_t(units);
  if (ulp == -24) return sign | std::uint16_t(steps);  // subnormal, or rounded up to the smallest normal (0x400)
  int biased = ulp + 25;                                 // the exponent field when steps is in [1024, 2048)
  if (steps == 2048) steps = 1024, ++biased;             // rounded up to the next power of two
  return sign | std::uint16_t(biased << 10) | std::uint16_t(steps - 1024);
}

// The header dict, token by token: strict Python literal syntax for the three keys numpy writes.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  void parse(NpyArray& array) {
    bool seen_descr = false, seen_order = false, seen_shape = false;
    skip_spaces();
    expect('{');
    while (true) {
      skip_spaces();
      if (peek() == '}') break;
      const std::string key = string_literal("header");
      skip_spaces();
      expect(':');
      skip_spaces();
      bool* seen = key == "descr" ? &seen_descr : key == "fortran_order" ? &seen_order : key == "shape" ? &seen_shape
                                                                                                       : nullptr;
      if (!seen)
        fail("header", "unknown key '" + shown_value(key) + "' (a .npy header has descr, fortran_order, shape)");
      if (*seen) fail("header", "the key '" + key + "' appears twice");
      *seen = true;
      if (key == "descr") array.type = descr();
      else if (key == "fortran_order") fortran_order();
      else array.shape = shape();
      skip_spaces();
      if (peek() == ',') {
        ++next_;
        continue;
      }
      if (peek() != '}') syntax("',' or '}'");
    }
    ++next_;
    for (const auto& [seen, key] :
         {std::pair{seen_descr, "descr"}, {seen_order, "fortran_order"}, {seen_shape, "shape"}})
      if (!seen) fail(key, std::string("the header has no '") + key + "' key");
    // numpy pads with spaces to its alignment and ends the header with one newline.
    while (next_ < text_.size() && text_[next_] == ' ') ++next_;
    if (next_ + 1 != text_.size() || text_[next_] != '\n')
      fail("header", fmt::format("after the dict, expected spaces and one newline ending the header, found '{}'",
                                 shown_value(text_.substr(next_))));
  }

 private:
  char peek() const { return next_ < text_.size() ? text_[next_] : '\0'; }
  void skip_spaces() {
    while (next_ < text_.size() && text_[next_] == ' ') ++next_;
  }
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError({source_, 0, 0}, field, problem);
  }
  [[noreturn]] void syntax(const std::string& expected, const std::string& field = "header") const {
    fail(field, fmt::format("at byte {} of the header dict: expected {}, found '{}'", next_, expected,
                            next_ < text_.size() ? shown_value(text_.substr(next_, 16)) : "the end"));
  }
  void expect(char c) {
    if (peek() != c) syntax(std::string("'") + c + "'");
    ++next_;
  }
  std::string string_literal(const std::string& field) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') syntax("a quoted string", field);
    const std::size_t end = text_.find(quote, next_ + 1);
    if (end == std::string::npos) syntax("a closing quote", field);
    std::string value = text_.substr(next_ + 1, end - next_ - 1);
    if (value.find('\\') != std::string::npos) fail(field, "escapes in strings are not supported");
    next_ = end + 1;
    return value;
  }
  NpyType descr() {
    if (peek() == '[') fail("descr", "a structured dtype (a list of fields) is not supported; expected one of " +
                                         accepted_dtypes());
    const std::string value = string_literal("descr");
    const std::string shown = "'" + shown_value(value) + "'";
    if (value.size() == 3) {
      const char order = value[0];
      for (const DtypeEntry& entry : kDtypes) {
        if (value.compare(1, 2, entry.name) != 0) continue;
        if (order == '<' || (entry.bytes == 1 && (order == '|' || order == '>'))) return entry.type;
        if (order == '>')
          fail("descr", fmt::format("{} is big-endian; only little-endian data is read: convert it with "
                                    "array.astype('<{}')", shown, entry.name));
        if (order == '=')
          fail("descr", fmt::format("{} has the writer's native byte order; write it as '<{}'", shown, entry.name));
      }
    }
    fail("descr", "dtype " + shown + " is not one of " + accepted_dtypes());
  }
  void fortran_order() {
    if (text_.compare(next_, 5, "False") == 0) {
      next_ += 5;
      return;
    }
    if (text_.compare(next_, 4, "True") == 0)
      fail("fortran_order", "True: the array is in Fortran (column-major) order; only C order is read: save "
                            "np.ascontiguousarray(array)");
    syntax("False or True", "fortran_order");
  }
  std::vector<std::int64_t> shape() {
    std::vector<std::int64_t> dims;
    if (peek() != '(') syntax("a tuple '(…)'", "shape");
    ++next_;
    bool comma_after_last = false;
    while (true) {
      skip_spaces();
      if (peek() == ')') break;
      if (!(peek() >= '0' && peek() <= '9')) syntax("a non-negative integer or ')'", "shape");
      std::int64_t dim = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (dim > (std::numeric_limits<std::int64_t>::max() - 9) / 10) fail("shape", "a dimension is too large");
        dim = dim * 10 + (text_[next_++] - '0');
      }
      dims.push_back(dim);
      skip_spaces();
      comma_after_last = peek() == ',';
      if (comma_after_last) ++next_;
      else if (peek() != ')') syntax("',' or ')'", "shape");
    }
    ++next_;
    if (dims.size() == 1 && !comma_after_last) fail("shape", "(n) is an integer, not a tuple: a 1-D shape is (n,)");
    return dims;
  }

  const std::string& text_;
  const std::string& source_;
  std::size_t next_ = 0;
};

std::uint64_t little_endian(const char* bytes, std::size_t count) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < count; ++i) value |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  return value;
}

void append_little_endian(std::string& out, std::uint64_t value, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out += char((value >> (8 * i)) & 0xff);
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

// Reads `count` bytes from where the previous read ended, fewer only at the end of the bytes; the view is valid
// until the next read.
using ByteSource = std::function<std::string_view(std::size_t count)>;

[[noreturn]] void refuse(const std::string& source, const char* field, const std::string& problem) {
  throw InputError({source, 0, 0}, field, problem);
}

// The data's values appended to the array, checked where a dtype holds values the array cannot (u8 past int64, a
// bool byte other than 0 and 1).
void append_values(NpyArray& array, const DtypeEntry& entry, std::string_view data, const std::string& source) {
  for (std::size_t at = 0; at + entry.bytes <= data.size(); at += entry.bytes) {
    const std::uint64_t raw = little_endian(data.data() + at, entry.bytes);
    if (entry.kind == Kind::Float) {
      if (entry.bytes == 2) {
        array.reals.push_back(half_to_double(std::uint16_t(raw)));
      } else if (entry.bytes == 4) {
        float value;
        const std::uint32_t bits = std::uint32_t(raw);
        std::memcpy(&value, &bits, sizeof value);
        array.reals.push_back(value);
      } else {
        double value;
        std::memcpy(&value, &raw, sizeof value);
        array.reals.push_back(value);
      }
      continue;
    }
    if (entry.kind == Kind::Signed && entry.bytes < 8) {
      const int shift = 64 - int(entry.bytes) * 8;  // sign-extend
      array.integers.push_back(std::int64_t(raw << shift) >> shift);
      continue;
    }
    const auto [low, high] = range_of(entry);
    if (entry.kind != Kind::Signed && raw > std::uint64_t(high))
      refuse(source, "data", fmt::format("value {} at flat index {} of {} is past {}{}", raw, array.integers.size(),
                                         npy_descr(entry.type), high,
                                         entry.kind == Kind::Bool ? " (a bool is 0 or 1)" : ", the largest int64"));
    array.integers.push_back(std::int64_t(raw));
  }
}

// The array in `total` bytes read through `read` (an archive's `member`: `total` is its directory entry's size): the
// preamble and the header first; the declared shape checked
// against the memory budget (kMaxNpyBytes of held values), the caller's expectation and the bytes there are; only
// then the data, a chunk at a time, converted as it comes — so nothing is allocated or inflated for data the header
// does not promise or the caller does not want.
NpyArray read_npy(const ByteSource& read, std::uint64_t total, const std::string& source,
                  const std::optional<NpyExpectation>& expected, bool member) {
  const std::string_view preamble = read(kMagicBytes + 2);
  if (preamble.size() < kMagicBytes + 2 || preamble.substr(0, kMagicBytes) != std::string_view(kMagic, kMagicBytes))
    refuse(source, "magic", "not a .npy file: it does not start with \\x93NUMPY");
  const int major = static_cast<unsigned char>(preamble[6]), minor = static_cast<unsigned char>(preamble[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    refuse(source, "version", fmt::format("format version {}.{} is not 1.0, 2.0 or 3.0", major, minor));
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t header_start = 8 + length_bytes;
  if (total < header_start)
    refuse(source, "header", fmt::format("the file ends within the header's length ({} bytes)", total));
  const std::uint64_t header_length = little_endian(read(length_bytes).data(), length_bytes);
  if (header_length > total - header_start)
    refuse(source, "header",
           fmt::format("the header's length {} runs past the end of the file ({} bytes)", header_length, total));
  if (header_length > kMaxNpyHeaderBytes)
    refuse(source, "header", fmt::format("the header's length {} is more than kMaxNpyHeaderBytes ({})", header_length,
                                         kMaxNpyHeaderBytes));
  NpyArray array;
  HeaderParser(std::string(read(std::size_t(header_length))), source).parse(array);

  const DtypeEntry& entry = entry_of(array.type);
  std::uint64_t elements = 1;
  for (const std::int64_t dim : array.shape) {
    if (dim != 0 && elements > kMaxNpyBytes / kHeldValueBytes / std::uint64_t(dim))
      refuse(source, "shape",
             fmt::format("{} of {} needs more than kMaxNpyBytes ({} bytes) as {}-byte values in memory",
                         shape_text(array.shape), npy_descr(array.type), kMaxNpyBytes, kHeldValueBytes));
    elements *= std::uint64_t(dim);
  }
  if (expected && array.shape.empty() && expected->shape == std::vector<std::int64_t>{1}) array.shape = {1};
  if (expected && array.shape != expected->shape)
    refuse(source, "shape", fmt::format("{}, but {} needs {}", shape_text(array.shape), expected->needed_by,
                                        shape_text(expected->shape)));
  require_memory(static_cast<long double>(elements) * kHeldValueBytes, source, "shape",
                 fmt::format("the array {} of {}, held as {}-byte values,", shape_text(array.shape),
                             npy_descr(array.type), kHeldValueBytes));
  const std::uint64_t data_bytes = total - header_start - header_length, needed = elements * entry.bytes;
  if (data_bytes != needed)
    refuse(source, "data", fmt::format("{} bytes of data{}, but the shape {} of {} needs {} ({})", data_bytes,
                                       member ? fmt::format(" (its directory entry says {} bytes)", total) : "",
                                       shape_text(array.shape), npy_descr(array.type), needed,
                                       data_bytes < needed ? "truncated" : "oversized"));
  if (entry.kind == Kind::Float) array.reals.reserve(std::size_t(elements));
  else array.integers.reserve(std::size_t(elements));
  const std::size_t chunk = kDataChunkBytes / entry.bytes * entry.bytes;
  for (std::uint64_t left = needed; left > 0;) {
    const std::string_view data = read(std::size_t(std::min<std::uint64_t>(left, chunk)));
    if (data.empty()) throw std::logic_error("read_npy: the byte source ended before its total");
    append_values(array, entry, data, source);
    left -= data.size();
  }
  return array;
}

// ---- .npz archives through libzip ----

struct ZipCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
using ZipArchive = std::unique_ptr<zip_t, ZipCloser>;

std::string zip_reason(zip_error_t* error) {
  std::string reason = zip_error_strerror(error);
  zip_error_fini(error);
  return reason;
}

// The first name that two entries of a zip archive's central directory share ("" when the directory cannot be
// walked): libzip refuses such an archive but does not say which name.
std::string duplicate_member_name(const std::string& bytes) {
  const std::size_t end = bytes.rfind(std::string("PK\x05\x06", 4));
  if (end == std::string::npos || end + 22 > bytes.size()) return "";
  const std::size_t entries = std::size_t(little_endian(bytes.data() + end + 10, 2));
  std::size_t at = std::size_t(little_endian(bytes.data() + end + 16, 4));
  std::set<std::string> names;
  for (std::size_t i = 0; i < entries; ++i) {
    if (at + 46 > bytes.size() || bytes.compare(at, 4, "PK\x01\x02", 4) != 0) return "";
    const std::size_t name_length = std::size_t(little_endian(bytes.data() + at + 28, 2));
    const std::size_t rest = name_length + std::size_t(little_endian(bytes.data() + at + 30, 2)) +
                             std::size_t(little_endian(bytes.data() + at + 32, 2));
    if (at + 46 + name_length > bytes.size()) return "";
    std::string name = bytes.substr(at + 46, name_length);
    if (!names.insert(name).second) return name;
    at += 46 + rest;
  }
  return "";
}

}  // namespace

std::string npy_descr(NpyType type) {
  const DtypeEntry& entry = entry_of(type);
  return (entry.bytes == 1 ? "|" : "<") + std::string(entry.name);
}

std::size_t npy_item_bytes(NpyType type) { return entry_of(type).bytes; }

bool npy_is_integer(NpyType type) { return entry_of(type).kind != Kind::Float; }

std::int64_t NpyArray::elements() const {
  std::int64_t product = 1;
  for (const std::int64_t dim : shape) product *= dim;
  return product;
}

NpyType smallest_signed_type(int bits) {
  if (bits <= 8) return NpyType::Int8;
  if (bits <= 16) return NpyType::Int16;
  if (bits <= 32) return NpyType::Int32;
  return NpyType::Int64;
}

NpyArray integer_array(NpyType type, std::vector<std::int64_t> shape, std::vector<std::int64_t> values) {
  const DtypeEntry& entry = entry_of(type);
  if (entry.kind == Kind::Float)
    throw std::invalid_argument("integer_array: " + npy_descr(type) + " is not an integer dtype");
  NpyArray array;
  array.type = type;
  array.shape = std::move(shape);
  if (array.elements() != std::int64_t(values.size()))
    throw std::invalid_argument(fmt::format("integer_array: {} values for the shape {}", values.size(),
                                            shape_text(array.shape)));
  const auto [low, high] = range_of(entry);
  for (const std::int64_t value : values)
    if (value < low || value > high)
      throw std::invalid_argument(fmt::format("integer_array: {} does not fit {}", value, npy_descr(type)));
  array.integers = std::move(values);
  return array;
}

NpyArray parse_npy(const std::string& bytes, const std::string& source, const std::optional<NpyExpectation>& expected) {
  std::size_t next = 0;
  const ByteSource read = [&](std::size_t count) {
    const std::string_view part = std::string_view(bytes).substr(next, count);
    next += part.size();
    return part;
  };
  return read_npy(read, bytes.size(), source, expected, false);
}

std::string npy_bytes(const NpyArray& array) {
  const DtypeEntry& entry = entry_of(array.type);
  const bool integer = entry.kind != Kind::Float;
  const std::size_t count = integer ? array.integers.size() : array.reals.size();
  if ((integer ? !array.reals.empty() : !array.integers.empty()) || std::int64_t(count) != array.elements())
    throw std::invalid_argument(fmt::format("npy_bytes: {} values of {} for the shape {}", count,
                                            npy_descr(array.type), shape_text(array.shape)));
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", npy_descr(array.type),
                                   shape_text(array.shape));
  // The padding brings the data to the alignment; version 1.0 holds a header of up to 65535 bytes.
  const auto padded = [&](std::size_t preamble) {
    return header + std::string((kAlignment - (preamble + header.size() + 1) % kAlignment) % kAlignment, ' ') + '\n';
  };
  const bool version_1 = padded(kMagicBytes + 4).size() <= 65535;
  header = padded(kMagicBytes + (version_1 ? 4 : 6));
  std::string out(kMagic, kMagicBytes);
  out += char(version_1 ? 1 : 2);
  out += char(0);
  append_little_endian(out, header.size(), version_1 ? 2 : 4);
  out += header;
  out.reserve(out.size() + count * entry.bytes);
  if (integer) {
    const auto [low, high] = range_of(entry);
    for (const std::int64_t value : array.integers) {
      if (value < low || value > high)
        throw std::invalid_argument(fmt::format("npy_bytes: {} does not fit {}", value, npy_descr(array.type)));
      append_little_endian(out, std::uint64_t(value), entry.bytes);
    }
  } else {
    for (const double value : array.reals) {
      std::uint64_t bits = 0;
      if (entry.bytes == 2) {
        bits = double_to_half(value);
      } else if (entry.bytes == 4) {
        const float narrow = float(value);
        std::uint32_t narrow_bits;
        std::memcpy(&narrow_bits, &narrow, sizeof narrow_bits);
        bits = narrow_bits;
      } else {
        std::memcpy(&bits, &value, sizeof bits);
      }
      append_little_endian(out, bits, entry.bytes);
    }
  }
  return out;
}

NpyArray read_npy_file(const std::string& path, const std::optional<NpyExpectation>& expected) {
  return parse_npy(read_input_file(path, {"a .npy file", kMaxNpyBytes, "kMaxNpyBytes", true}), path, expected);
}

void write_npy_file(const std::string& path, const NpyArray& array) { write_file_atomically(path, npy_bytes(array)); }

NpzArchive::NpzArchive(const std::string& path)
    : path_(path), bytes_(read_input_file(path, {"a .npz archive", kMaxNpyBytes, "kMaxNpyBytes", true})) {
  // libzip opens 0 bytes as an archive without members: a file that is not there would silently seed every tensor.
  if (bytes_.empty()) throw InputError({path, 0, 0}, "", "the file is empty (0 bytes): not a .npz (zip) archive");
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes_.data(), bytes_.size(), 0, &error);
  if (!source) throw InputError({path, 0, 0}, "", "cannot read the archive: " + zip_reason(&error));
  archive_ = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!archive_) {
    zip_source_free(source);
    const bool duplicate = zip_error_code_zip(&error) == ZIP_ER_EXISTS;
    const std::string reason = zip_reason(&error);
    if (duplicate) {  // libzip's "File already exists"
      const std::string name = duplicate_member_name(bytes_);
      throw InputError({path, 0, 0}, "member",
                       (name.empty() ? std::string("two members have the same name")
                                     : "two members are named '" + shown_value(name) + "'") +
                           ": which one is meant is ambiguous; write the archive again with each name once");
    }
    throw InputError({path, 0, 0}, "", "not a .npz (zip) archive: " + reason);
  }
  zip_error_fini(&error);
}

NpzArchive::~NpzArchive() { zip_discard(archive_); }

std::vector<std::string> NpzArchive::member_names() const {
  std::vector<std::string> names;
  const zip_int64_t count = zip_get_num_entries(archive_, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const char* name = zip_get_name(archive_, zip_uint64_t(i), 0);
    if (!name) continue;
    std::string shown = name;
    if (shown.size() > 4 && shown.compare(shown.size() - 4, 4, ".npy") == 0) shown.resize(shown.size() - 4);
    names.push_back(shown);
  }
  return names;
}

NpyArray NpzArchive::member(const std::string& name, const std::optional<NpyExpectation>& expected) const {
  const std::string source = path_ + ":" + shown_value(name);
  zip_int64_t index = zip_name_locate(archive_, (name + ".npy").c_str(), 0);
  if (index < 0) index = zip_name_locate(archive_, name.c_str(), 0);
  if (index < 0) {
    const std::vector<std::string> members = member_names();
    std::string list;
    for (std::size_t i = 0; i < std::min(members.size(), kMembersListed); ++i)
      list += (i ? ", " : "") + shown_value(members[i]);
    if (members.size() > kMembersListed) list += fmt::format(" and {} more", members.size() - kMembersListed);
    throw InputError({path_, 0, 0}, "member", fmt::format("no member '{}' (the archive has: {})", shown_value(name),
                                                          list.empty() ? "no members" : list));
  }
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive_, zip_uint64_t(index), 0, &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE))
    throw InputError({source, 0, 0}, "member", "cannot read the member's size");
  if (stat.size > kMaxNpyBytes)
    throw InputError({source, 0, 0}, "member",
                     fmt::format("{} bytes uncompressed, larger than kMaxNpyBytes ({})", stat.size, kMaxNpyBytes));
  const std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(zip_fopen_index(archive_, zip_uint64_t(index), 0),
                                                               zip_fclose);
  if (!file)
    throw InputError({source, 0, 0}, "member",
                     std::string("cannot open the member: ") + zip_error_strerror(zip_get_error(archive_)));
  // The member is inflated as far as its reader asks, never whole: at most the bytes its header promises, checked
  // against its directory entry's size (a member that inflates to less or more than that is refused).
  std::string buffer;
  std::uint64_t got = 0;
  const auto inflate = [&](std::size_t count) {
    buffer.resize(count);
    std::size_t filled = 0;
    while (filled < count) {
      const zip_int64_t read = zip_fread(file.get(), buffer.data() + filled, count - filled);
      if (read < 0)
        throw InputError({source, 0, 0}, "member",
                         std::string("cannot read the member: ") + zip_error_strerror(zip_file_get_error(file.get())));
      if (read == 0) break;
      filled += std::size_t(read);
    }
    got += filled;
    return filled;
  };
  const ByteSource read = [&](std::size_t count) {
    const std::size_t filled = inflate(count);
    if (filled < count && got < stat.size)
      throw InputError({source, 0, 0}, "member",
                       fmt::format("the member has {} bytes, its directory entry says {}", got, stat.size));
    return std::string_view(buffer.data(), filled);
  };
  NpyArray array = read_npy(read, stat.size, source, expected, true);
  if (inflate(1) != 0)
    throw InputError({source, 0, 0}, "member",
                     fmt::format("the member has more bytes than its directory entry says ({})", stat.size));
  return array;
}

std::vector<std::string> npz_member_names(const std::string& path) { return NpzArchive(path).member_names(); }

NpyArray read_npz_member(const std::string& path, const std::string& name) { return NpzArchive(path).member(name); }

std::string npz_archive_bytes(const std::vector<std::pair<std::string, std::string>>& members, bool deflated) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (!buffer) throw std::runtime_error("npz_archive_bytes: " + zip_reason(&error));
  zip_source_keep(buffer);  // to read the archive's bytes after zip_close
  const auto free_buffer = std::unique_ptr<zip_source_t, void (*)(zip_source_t*)>(buffer, zip_source_free);
  zip_t* archive = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
  if (!archive) throw std::runtime_error("npz_archive_bytes: " + zip_reason(&error));
  zip_error_fini(&error);
  ZipArchive owned(archive);
  const auto failure = [&](const std::string& what) {
    return std::runtime_error("npz_archive_bytes: " + what + ": " + zip_error_strerror(zip_get_error(archive)));
  };
  for (const auto& [name, contents] : members) {
    zip_source_t* data = zip_source_buffer(archive, contents.data(), contents.size(), 0);  // read at zip_close
    const zip_int64_t index = data ? zip_file_add(archive, name.c_str(), data, ZIP_FL_ENC_UTF_8) : -1;
    if (index < 0) {
      if (data) zip_source_free(data);
      throw failure("cannot add member " + name);
    }
    // Stored as np.savez stores, dated 1980-01-01 so that the same arrays always make the same bytes.
    if (zip_set_file_compression(archive, zip_uint64_t(index), deflated ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) != 0 ||
        zip_file_set_dostime(archive, zip_uint64_t(index), 0, (0 << 9) | (1 << 5) | 1, 0) != 0)
      throw failure("member " + name);
  }
  if (zip_close(archive) != 0) throw failure("closing the archive");
  owned.release();
  std::string bytes;
  if (zip_source_open(buffer) != 0) throw std::runtime_error("npz_archive_bytes: cannot read the archive back");
  zip_int64_t size = -1;
  if (zip_source_seek(buffer, 0, SEEK_END) == 0) size = zip_source_tell(buffer);
  if (size >= 0) bytes.resize(std::size_t(size));
  const bool read = size >= 0 && zip_source_seek(buffer, 0, SEEK_SET) == 0 &&
                    zip_source_read(buffer, bytes.data(), zip_uint64_t(size)) == size;
  zip_source_close(buffer);
  if (!read) throw std::runtime_error("npz_archive_bytes: cannot read the archive back");
  return bytes;
}

void write_npz_file(const std::string& path, const std::vector<std::pair<std::string, NpyArray>>& members) {
  check_output_path(path);
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [name, array] : members) files.emplace_back(name + ".npy", npy_bytes(array));
  write_file_atomically(path, npz_archive_bytes(files));
}

TensorSource tensor_source(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  const auto is_archive = [](const std::string& path) {
    return path.size() > 4 && path.compare(path.size() - 4, 4, ".npz") == 0;
  };
  if (colon != std::string::npos && is_archive(text.substr(0, colon)))
    return {text.substr(0, colon), text.substr(colon + 1), true};
  return {text, "", is_archive(text)};
}

std::string tensor_source_name(const TensorSource& source) {
  return source.member.empty() ? source.path : source.path + ":" + source.member;
}

}  // namespace maeri::util
