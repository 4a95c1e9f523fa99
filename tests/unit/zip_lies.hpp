// Zip archives that lie about their members (tests and fuzz seeds of the .npz reader): the uncompressed size that
// an archive's first member declares, changed in its local header and its central directory alike, so the archive
// stays consistent for libzip while the member inflates to another length than it declares.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace maeri::test {

inline std::string with_declared_size(std::string archive, std::uint32_t size) {
  const auto put = [&](std::size_t at) {
    for (int i = 0; i < 4; ++i) archive[at + std::size_t(i)] = char((size >> (8 * i)) & 0xff);
  };
  const std::size_t local = archive.find(std::string("PK\x03\x04", 4)),
                    central = archive.find(std::string("PK\x01\x02", 4));
  if (local == std::string::npos || central == std::string::npos) throw std::invalid_argument("not a zip archive");
  put(local + 22);    // the local header's uncompressed size
  put(central + 24);  // the central directory's
  return archive;
}

}  // namespace maeri::test
