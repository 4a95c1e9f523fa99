// NumPy's array files: a strict `.npy` reader and writer, and `.npz` archives (a zip of `.npy` members, through
// libzip) read by member name and written whole. What is accepted and why (docs/cosim.md, "Tensors from NumPy files"):
// - format versions 1.0, 2.0 and 3.0 are read; 1.0 is written whenever the header fits its 16-bit length (always, for
//   the dtypes here), 2.0 otherwise;
// - dtypes (the header's "descr"): signed integers i1 i2 i4 i8, unsigned u1 u2 u4 u8 (a value past int64 is
//   refused), bool b1 (bytes 0 and 1; integers 0 and 1), floats f2 f4 f8, little-endian ('<'; one-byte types have no
//   byte order: '|', '<' or '>'). Big-endian ('>') and native ('=') data are refused, not converted: NumPy writes
//   little-endian on every machine we run on, so such a file was made on purpose and its reader should say so rather
//   than guess; complex, strings and objects are refused;
// - C order only: "fortran_order": True is refused (the tensors' layouts are row-major: docs/cosim.md);
// - the header is a Python dict literal with exactly the keys descr, fortran_order and shape, each once, in any
//   order, strings in '…' or "…", trailing commas allowed, then spaces and one '\n'. NumPy's 64-byte alignment of
//   the data (16 bytes before NumPy 1.13) is not checked, as NumPy's own reader does not check it; it is written;
// - the data's length must equal the shape's product times the item size exactly: a truncated or oversized file is
//   refused;
// - memory is bounded before it is allocated: the header is read first, and its shape checked against the budget
//   (kMaxNpyBytes of 8-byte values), the shape the caller expects (NpyExpectation) and the bytes there are; only then
//   is the data read (an archive member inflated) and converted, a chunk at a time. A member is inflated no further
//   than its directory entry says, and one that inflates to fewer or more bytes is refused.
// Every error is an InputError naming the file (or "FILE:member" inside an archive) and the field: "magic",
// "version", "header", "descr", "fortran_order", "shape", "data"; archives add "member" (a missing or duplicate name,
// a member that disagrees with its directory entry, a 0-byte file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct zip;  // libzip's archive (zip_t), kept out of this header

namespace maeri::util {

// 1 GiB: the largest .npy or .npz file read, the largest member of an archive, and the largest array read, counted
// as it is held (8 bytes a value) — ResNet-50's weights as float32 are ~100 MB. Larger files are refused before they
// are read whole, larger arrays before their data is read.
inline constexpr std::size_t kMaxNpyBytes = std::size_t{1} << 30;
// 1 MiB: the longest header read (NumPy writes 128 bytes for a 4-D shape, and its own reader stops at 10,000).
inline constexpr std::size_t kMaxNpyHeaderBytes = std::size_t{1} << 20;

enum class NpyType { Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Bool, Float16, Float32, Float64 };

// The dtype's descr as written ("<i4", "|u1", "<f8") and its size in bytes.
std::string npy_descr(NpyType type);
std::size_t npy_item_bytes(NpyType type);
bool npy_is_integer(NpyType type);

// An array in C order: integer and bool dtypes hold their values in `integers`, float dtypes in `reals` (the other
// is empty).
struct NpyArray {
  NpyType type = NpyType::Int64;
  std::vector<std::int64_t> shape;  // () for a scalar: one element
  std::vector<std::int64_t> integers;
  std::vector<double> reals;

  std::int64_t elements() const;  // the shape's product
};

// The smallest signed integer dtype that holds `bits`-bit two's-complement values (i1, i2, i4 or i8).
NpyType smallest_signed_type(int bits);

// An integer array of `type` (an integer dtype) and shape; throws std::invalid_argument when the values' count is not
// the shape's product or a value does not fit the dtype.
NpyArray integer_array(NpyType type, std::vector<std::int64_t> shape, std::vector<std::int64_t> values);

// The one shape a caller takes, checked on the header before any data is read or inflated, so that a file declaring
// another shape costs nothing: refused "FILE: field 'shape': (1, 4, 10, 10), but the layer needs (1, 3, 10, 10)".
// A 0-d array (numpy's scalar: one token id) is taken where the shape (1) is expected, and read as that shape.
struct NpyExpectation {
  std::vector<std::int64_t> shape;
  std::string needed_by;  // who needs the shape, in messages: "the layer", "the network input 'image'"
};

// The array in a .npy file's bytes. `source` names the file in messages. Throws InputError.
NpyArray parse_npy(const std::string& bytes, const std::string& source,
                   const std::optional<NpyExpectation>& expected = std::nullopt);
std::string npy_bytes(const NpyArray& array);

// A .npy file (read whole through util::read_input_file, regular files only, kMaxNpyBytes). Throws InputError.
NpyArray read_npy_file(const std::string& path, const std::optional<NpyExpectation>& expected = std::nullopt);
// Through util::write_file_atomically: nothing is written when anything fails. Throws InputError naming the path.
void write_npy_file(const std::string& path, const NpyArray& array);

// A .npz archive read whole once (util::read_input_file: regular files only, kMaxNpyBytes) and opened; members are
// inflated and parsed when asked for, so a whole network's weights in one archive are read from disk once.
class NpzArchive {
 public:
  // Throws InputError: unreadable, empty (0 bytes), not a zip archive, two members of one name.
  explicit NpzArchive(const std::string& path);
  ~NpzArchive();
  NpzArchive(const NpzArchive&) = delete;
  NpzArchive& operator=(const NpzArchive&) = delete;

  const std::string& path() const { return path_; }
  // The members' names as np.load shows them: a member "x.npy" is "x".
  std::vector<std::string> member_names() const;
  // The member `name` ("name.npy", or a member called exactly `name`), stored or deflated. Throws InputError naming
  // the archive and the member ("FILE:name"), listing the members when there is none of that name.
  NpyArray member(const std::string& name, const std::optional<NpyExpectation>& expected = std::nullopt) const;

 private:
  std::string path_, bytes_;
  struct ::zip* archive_ = nullptr;
};

// One-shot forms of NpzArchive.
std::vector<std::string> npz_member_names(const std::string& path);
NpyArray read_npz_member(const std::string& path, const std::string& name);
// An archive of the arrays, each as member "name.npy", stored uncompressed (as np.savez) and dated 1980-01-01 (the
// same arrays make the same bytes); atomically.
void write_npz_file(const std::string& path, const std::vector<std::pair<std::string, NpyArray>>& members);
// A zip archive of members given as (file name, bytes), stored as write_npz_file stores them, or deflated as
// np.savez_compressed does (tests, fuzz seeds).
std::string npz_archive_bytes(const std::vector<std::pair<std::string, std::string>>& members, bool deflated = false);

// A tensor's place as the command line names it: "FILE.npy", "FILE.npz" or "FILE.npz:MEMBER" (a colon after a name
// ending in .npz starts the member).
struct TensorSource {
  std::string path;
  std::string member;  // "" for a .npy file, or an archive whose member the caller chooses
  bool archive = false;
};
TensorSource tensor_source(const std::string& text);
// The source as messages name it: "FILE" or "FILE:MEMBER".
std::string tensor_source_name(const TensorSource& source);

}  // namespace maeri::util
