// SHA-256 (FIPS 180-4) of byte strings: the checksum of the network manifest (docs/network-manifest.md)
// and of merged output tensors. None of the Debian libraries the toolkit links has a hash of this strength (zlib has
// CRC-32 only), so this is a small implementation checked against the FIPS 180-2 examples in
// tests/unit/test_network_files.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace maeri::util {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  void update(const std::string& bytes) { update(bytes.data(), bytes.size()); }
  // The digest as 64 lower-case hex digits; the object must not be updated afterwards.
  std::string hex_digest();

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Files are hashed after util::read_input_file has read them within their limit (never an endless device).
std::string sha256_hex(const std::string& bytes);

}  // namespace maeri::util
