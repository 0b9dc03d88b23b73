// Reading the count layer's input files (models, specs, ONNX, VNN-LIB) whole, with one message
// for a folder given where a file is expected (reading a folder would look like an empty file).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

#include "assay/core/error.hpp"
#include "assay/core/input_files.hpp"

namespace assay::count::detail {

/// Fails with "path: is a folder, expected <what>" when `path` names a folder.
inline void refuse_folder(const std::string& path, const char* what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("{}: is a folder, expected {}", path, what);
}

/// True when `bytes` start like an ONNX model (binary protobuf) rather than JSON text: a
/// ModelProto starts with field 1 (ir_version, a varint: tag byte 0x08), and JSON text never
/// starts with a control character.
inline bool looks_like_onnx(std::string_view bytes) {
  return !bytes.empty() && bytes[0] == '\x08';
}

/// The most bytes read from a pipe or device: models, specs and properties are far smaller, and
/// an ONNX file (protobuf) cannot exceed 2 GB.
inline constexpr std::size_t kMaxStreamBytes = std::size_t{2} << 30;

/// The bytes of `path`; `cannot_open` is the message when it cannot be opened. A pipe or device
/// is read up to kMaxStreamBytes and refused at once when it starts with a NUL byte (no model,
/// spec, property or ONNX file does; /dev/zero would otherwise be read until memory runs out).
inline std::string read_input_file(const std::string& path, const char* what,
                                   const std::string& cannot_open) {
  refuse_folder(path, what);
  note_input(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}", cannot_open);
  std::error_code ec;
  const bool stream = !std::filesystem::is_regular_file(path, ec);
  std::string bytes;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    bytes.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (!stream) continue;
    if (bytes[0] == '\0') {
      fail("{}: expected {}, found a NUL byte at byte 0 (binary zeros, as /dev/zero gives)", path,
           what);
    }
    if (bytes.size() > kMaxStreamBytes) {
      fail(
          "{}: expected {}, found a stream of more than 2 GB (the most read from a pipe or "
          "device); save it to a file",
          path, what);
    }
  }
  return bytes;
}

}  // namespace assay::count::detail
