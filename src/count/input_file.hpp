// Reading the count layer's input files (models, specs, ONNX, VNN-LIB) whole, with one message
// for a folder given where a file is expected (reading a folder would look like an empty file).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
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

/// The bytes of `path`; `cannot_open` is the message when it cannot be opened.
inline std::string read_input_file(const std::string& path, const char* what,
                                   const std::string& cannot_open) {
  refuse_folder(path, what);
  note_input(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}", cannot_open);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace assay::count::detail
