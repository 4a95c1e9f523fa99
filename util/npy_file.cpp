// The .npy reader and writer and the .npz archives (see npy_file.hpp; the format: NumPy's NEP 1,
// numpy/lib/format.py).
#include "util/npy_file.hpp"

#include <fmt/format.h>
#include <zip.h>

#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>

#include "util/atomic_file.hpp"
#include "util/input_error.hpp"
#include "util/input_file.hpp"

namespace maeri::util {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicBytes = 6;
constexpr std::size_t kAlignment = 64;

struct DtypeEntry {
  NpyType type;
  const char* name;  // without the byte-order character
  std::size_t bytes;
  bool integer, is_signed;
};
constexpr DtypeEntry kDtypes[] = {
    {NpyType::Int8, "i1", 1, true, true},       {NpyType::Int16, "i2", 2, true, true},
    {NpyType::Int32, "i4", 4, true, true},      {NpyType::Int64, "i8", 8, true, true},
    {NpyType::UInt8, "u1", 1, true, false},     {NpyType::UInt16, "u2", 2, true, false},
    {NpyType::UInt32, "u4", 4, true, false},    {NpyType::Float32, "f4", 4, false, true},
    {NpyType::Float64, "f8", 8, false, true},
};

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
  if (entry.bytes == 8) return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  const int bits = int(entry.bytes) * 8;
  if (entry.is_signed) return {-(std::int64_t{1} << (bits - 1)), (std::int64_t{1} << (bits - 1)) - 1};
  return {0, (std::int64_t{1} << bits) - 1};
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

}  // namespace

std::string npy_descr(NpyType type) {
  const DtypeEntry& entry = entry_of(type);
  return (entry.bytes == 1 ? "|" : "<") + std::string(entry.name);
}

std::size_t npy_item_bytes(NpyType type) { return entry_of(type).bytes; }

bool npy_is_integer(NpyType type) { return entry_of(type).integer; }

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
  if (!entry.integer) throw std::invalid_argument("integer_array: " + npy_descr(type) + " is not an integer dtype");
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

NpyArray parse_npy(const std::string& bytes, const std::string& source) {
  if (bytes.size() < kMagicBytes + 2 || bytes.compare(0, kMagicBytes, kMagic, kMagicBytes) != 0)
    throw InputError({source, 0, 0}, "magic", "not a .npy file: it does not start with \\x93NUMPY");
  const int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    throw InputError({source, 0, 0}, "version",
                     fmt::format("format version {}.{} is not 1.0, 2.0 or 3.0", major, minor));
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t header_start = 8 + length_bytes;
  if (bytes.size() < header_start)
    throw InputError({source, 0, 0}, "header", fmt::format("the file ends within the header's length ({} bytes)",
                                                           bytes.size()));
  const std::uint64_t header_length = little_endian(bytes.data() + 8, length_bytes);
  if (header_length > bytes.size() - header_start)
    throw InputError({source, 0, 0}, "header",
                     fmt::format("the header's length {} runs past the end of the file ({} bytes)", header_length,
                                 bytes.size()));
  NpyArray array;
  HeaderParser(bytes.substr(header_start, std::size_t(header_length)), source).parse(array);

  const std::size_t item = npy_item_bytes(array.type);
  std::uint64_t elements = 1;
  for (const std::int64_t dim : array.shape) {
    if (dim != 0 && elements > kMaxNpyBytes / item / std::uint64_t(dim))
      throw InputError({source, 0, 0}, "shape",
                       fmt::format("{} of {} needs more than kMaxNpyBytes ({} bytes)", shape_text(array.shape),
                                   npy_descr(array.type), kMaxNpyBytes));
    elements *= std::uint64_t(dim);
  }
  const std::size_t data_start = header_start + std::size_t(header_length);
  const std::size_t data_bytes = bytes.size() - data_start;
  if (data_bytes != elements * item)
    throw InputError({source, 0, 0}, "data",
                     fmt::format("{} bytes of data, but the shape {} of {} needs {} ({})", data_bytes,
                                 shape_text(array.shape), npy_descr(array.type), elements * item,
                                 data_bytes < elements * item ? "truncated" : "oversized"));

  const DtypeEntry& entry = entry_of(array.type);
  const char* data = bytes.data() + data_start;
  if (entry.integer) array.integers.resize(std::size_t(elements));
  else array.reals.resize(std::size_t(elements));
  for (std::size_t i = 0; i < elements; ++i) {
    const std::uint64_t raw = little_endian(data + i * item, item);
    if (!entry.integer) {
      if (item == 4) {
        float value;
        const std::uint32_t bits = std::uint32_t(raw);
        std::memcpy(&value, &bits, sizeof value);
        array.reals[i] = value;
      } else {
        std::memcpy(&array.reals[i], &raw, sizeof raw);
      }
    } else if (entry.is_signed && item < 8) {
      const int shift = 64 - int(item) * 8;  // sign-extend
      array.integers[i] = std::int64_t(raw << shift) >> shift;
    } else {
      array.integers[i] = std::int64_t(raw);
    }
  }
  return array;
}

std::string npy_bytes(const NpyArray& array) {
  const DtypeEntry& entry = entry_of(array.type);
  const std::size_t count = entry.integer ? array.integers.size() : array.reals.size();
  if ((entry.integer ? !array.reals.empty() : !array.integers.empty()) || std::int64_t(count) != array.elements())
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
  if (entry.integer) {
    const auto [low, high] = range_of(entry);
    for (const std::int64_t value : array.integers) {
      if (value < low || value > high)
        throw std::invalid_argument(fmt::format("npy_bytes: {} does not fit {}", value, npy_descr(array.type)));
      append_little_endian(out, std::uint64_t(value), entry.bytes);
    }
  } else {
    for (const double value : array.reals) {
      std::uint64_t bits = 0;
      if (entry.bytes == 4) {
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

NpyArray read_npy_file(const std::string& path) {
  return parse_npy(read_input_file(path, {"a .npy file", kMaxNpyBytes, "kMaxNpyBytes", true}), path);
}

void write_npy_file(const std::string& path, const NpyArray& array) { write_file_atomically(path, npy_bytes(array)); }

NpzArchive::NpzArchive(const std::string& path)
    : path_(path), bytes_(read_input_file(path, {"a .npz archive", kMaxNpyBytes, "kMaxNpyBytes", true})) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes_.data(), bytes_.size(), 0, &error);
  if (!source) throw InputError({path, 0, 0}, "", "cannot read the archive: " + zip_reason(&error));
  archive_ = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!archive_) {
    zip_source_free(source);
    throw InputError({path, 0, 0}, "", "not a .npz (zip) archive: " + zip_reason(&error));
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

NpyArray NpzArchive::member(const std::string& name) const {
  const std::string source = path_ + ":" + name;
  zip_int64_t index = zip_name_locate(archive_, (name + ".npy").c_str(), 0);
  if (index < 0) index = zip_name_locate(archive_, name.c_str(), 0);
  if (index < 0) {
    std::string list;
    for (const std::string& member : member_names()) list += (list.empty() ? "" : ", ") + member;
    throw InputError({path_, 0, 0}, "member", fmt::format("no member '{}' (the archive has: {})", shown_value(name),
                                                          list.empty() ? "no members" : shown_value(list)));
  }
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive_, zip_uint64_t(index), 0, &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE))
    throw InputError({source, 0, 0}, "member", "cannot read the member's size");
  if (stat.size > kMaxNpyBytes)
    throw InputError({source, 0, 0}, "member",
                     fmt::format("{} bytes uncompressed, larger than kMaxNpyBytes ({})", stat.size, kMaxNpyBytes));
  zip_file_t* file = zip_fopen_index(archive_, zip_uint64_t(index), 0);
  if (!file)
    throw InputError({source, 0, 0}, "member",
                     std::string("cannot open the member: ") + zip_error_strerror(zip_get_error(archive_)));
  std::string bytes(std::size_t(stat.size) + 1, '\0');  // one byte more: a member longer than it says fails
  std::size_t got = 0;
  std::string problem;
  while (got < bytes.size()) {
    const zip_int64_t read = zip_fread(file, bytes.data() + got, bytes.size() - got);
    if (read < 0) {
      problem = std::string("cannot read the member: ") + zip_error_strerror(zip_file_get_error(file));
      break;
    }
    if (read == 0) break;
    got += std::size_t(read);
  }
  zip_fclose(file);
  if (problem.empty() && got != stat.size)
    problem = fmt::format("the member has {} bytes, its directory entry says {}", got, stat.size);
  if (!problem.empty()) throw InputError({source, 0, 0}, "member", problem);
  bytes.resize(got);
  return parse_npy(bytes, source);
}

std::vector<std::string> npz_member_names(const std::string& path) { return NpzArchive(path).member_names(); }

NpyArray read_npz_member(const std::string& path, const std::string& name) { return NpzArchive(path).member(name); }

std::string npz_archive_bytes(const std::vector<std::pair<std::string, std::string>>& members) {
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
    if (zip_set_file_compression(archive, zip_uint64_t(index), ZIP_CM_STORE, 0) != 0 ||
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
