// SHA-256 (FIPS 180-4) of bytes and of files, as lowercase hex: the checksums a batch registry
// keeps of its inputs, comparable with `sha256sum`.
//
// Example:
//   sha256_hex("abc");   // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
//   sha256_file("data/vowel.csv");   // the same digits as `sha256sum data/vowel.csv`
//   Sha256 h;  h.update("a");  h.update("bc");
//   h.digest_hex();      // the same as sha256_hex("abc")
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace assay {

/// Incremental SHA-256. Requires: no update() after digest_hex().
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  /// The digest of everything passed to update(), as 64 lowercase hex digits.
  std::string digest_hex();

 private:
  void block(const unsigned char* p);
  std::uint32_t h_[8];
  unsigned char buffer_[64];
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;
};

/// SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

/// SHA-256 of a file's bytes. Throws assay::Error "PATH: cannot read: <reason>".
std::string sha256_file(const std::string& path);

}  // namespace assay
