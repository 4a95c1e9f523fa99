// Bounded reading of input files and values shown in messages (see input_file.hpp).
#include "util/input_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "util/input_error.hpp"
#include "util/utf8_text.hpp"

namespace maeri::util {
namespace {

const char* file_type_name(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string too_large(const InputFileRules& rules) {
  return fmt::format("file larger than the limit of {} bytes ({}, docs/cli.md: Limits)", rules.max_bytes,
                     rules.limit_name);
}

}  // namespace

std::string read_input_file(const std::string& path, const InputFileRules& rules) {
  // O_NONBLOCK: opening a FIFO nobody writes to would otherwise wait forever, before the checks below could run.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError({path, 0, 0}, "", std::string("cannot open file for reading: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0)
    throw InputError({path, 0, 0}, "", std::string("cannot read file: ") + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw InputError({path, 0, 0}, "", fmt::format("is a directory (expected {})", rules.expected));
  const bool regular = S_ISREG(info.st_mode);
  if (!regular && rules.regular_files_only)
    throw InputError({path, 0, 0}, "",
                     fmt::format("is {}, not a regular file (expected {})", file_type_name(info.st_mode), rules.expected));
  if (regular && std::uintmax_t(info.st_size) > rules.max_bytes) throw InputError({path, 0, 0}, "", too_large(rules));
  if (!regular) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // a stream is read as it comes
  std::string bytes;
  if (regular) bytes.reserve(std::size_t(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError({path, 0, 0}, "", std::string("cannot read file: ") + std::strerror(errno));
    if (got == 0) return bytes;
    bytes.append(buffer, static_cast<std::size_t>(got));
    if (bytes.size() > rules.max_bytes) throw InputError({path, 0, 0}, "", too_large(rules));
  }
}

void refuse_cr_only_line_endings(const std::string& text, const std::string& path) {
  if (text.find('\r') != std::string::npos && text.find('\n') == std::string::npos)
    throw InputError({path, 0, 0}, "",
                     "lines end in CR alone (classic Mac OS line endings); save the file with LF or CR LF line endings");
}

std::string shown_value(const std::string& value) {
  std::string text;
  std::size_t at = 0, valid_end = 0;
  while (at < value.size()) {
    // Well-formed UTF-8 is shown as it is (names may be in any script), whole characters only; a byte that starts
    // no character (Latin-1 text, binary) is escaped like a control byte, so a message is always valid UTF-8.
    if (at >= valid_end)
      valid_end = at + first_invalid_utf8(std::string_view(value).substr(at, kMaxShownValueBytes + 4));
    const unsigned char byte = static_cast<unsigned char>(value[at]);
    const std::size_t length = at == valid_end ? 1 : byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
    if (at + length > kMaxShownValueBytes) break;
    const bool escaped = at == valid_end || byte < 0x20 || byte == 0x7f;
    text += escaped ? fmt::format("\\x{:02x}", byte) : value.substr(at, length);
    at += length;
  }
  if (at < value.size()) text += fmt::format("… ({} bytes)", value.size());
  return text;
}

}  // namespace maeri::util
