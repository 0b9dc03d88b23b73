// The registry's file operations that must not leave it stuck: reading JSON with located
// errors (never nlohmann's exceptions), creating a file exclusively (job claims), and moving a
// damaged file aside instead of deleting it.
#pragma once

#include <filesystem>
#include <string>

#include "assay/core/json.hpp"

namespace assay::batch::detail {

/// The bytes of a regular file. Throws assay::Error "PATH: cannot read: ..." (a folder: "expected
/// a file, found a folder").
std::string read_file(const std::filesystem::path& path);

/// Parses `text` read from `path`. Throws assay::Error "PATH:LINE:COL: expected JSON, found ..."
/// for text that is not JSON and "PATH:LINE:COL: expected a number within the range of a double,
/// found 1e400" for a number beyond it.
Json parse_json_text(const std::string& text, const std::filesystem::path& path);

/// read_file, then parse_json_text.
Json parse_json_file(const std::filesystem::path& path);

/// Creates `path` holding `text` only if no file of that name exists: the text goes to a unique
/// temporary file in the same folder, which is then hard-linked to `path` (link(2) fails when
/// `path` exists; atomic on local file systems and on NFS, where a lost reply is detected by the
/// temporary file's link count). True when created; false when `path` existed. Throws
/// assay::Error when the folder cannot be written.
bool create_exclusive(const std::filesystem::path& path, const std::string& text);

/// Renames `path` to `path` + ".damaged-" + the UTC time (made unique), and returns the new
/// name. Throws assay::Error when it cannot.
std::filesystem::path set_aside(const std::filesystem::path& path);

/// A random 64-bit token as 16 hex digits.
std::string random_token();

}  // namespace assay::batch::detail
